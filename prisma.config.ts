import { defineConfig } from "prisma/config";

// Only `prisma generate` runs here (the native schema engine cannot be fetched on every machine);
// migrations are applied by the API itself (api/src/db/migrate.ts).
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
