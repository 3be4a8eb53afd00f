// `npm run db:migrate`: applies prisma/migrations to DATABASE_URL and says what it applied.
import { z } from "zod";
import { applyMigrations } from "../db/migrate.js";
import { createLogger } from "../logger.js";

const MigrateEnvironment = z.object({
  DATABASE_URL: z
    .string({ error: "DATABASE_URL is not set: give the Postgres URL to migrate, e.g. postgres://user:password@host:5432/db" })
    .url("DATABASE_URL must be a URL such as postgres://user:password@host:5432/db"),
  /** Directory holding Prisma's migration folders; the default finds the repository's. */
  MIGRATIONS_DIR: z.string().min(1).optional(),
});

async function main(): Promise<number> {
  const parsed = MigrateEnvironment.safeParse(process.env);
  if (!parsed.success) {
    process.stderr.write(`${parsed.error.issues.map((issue) => issue.message).join("\n")}\n`);
    return 2;
  }
  const { DATABASE_URL, MIGRATIONS_DIR } = parsed.data;
  try {
    const { applied } = await applyMigrations(DATABASE_URL, {
      migrationsDir: MIGRATIONS_DIR,
      logger: createLogger("warn"),
    });
    if (applied.length === 0) process.stdout.write("The database is up to date: no migration to apply.\n");
    else process.stdout.write(`Applied ${applied.length} migration(s):\n${applied.map((name) => `  ${name}\n`).join("")}`);
    return 0;
  } catch (error) {
    process.stderr.write(`Migration failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main();
