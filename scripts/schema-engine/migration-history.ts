// What `prisma migrate deploy` and `prisma migrate status` do, through the wasm schema engine:
// the reference api/src/db/migrate.ts is checked against.
import type { DiagnoseMigrationHistoryOutput } from "@prisma/schema-engine-wasm";
import { readMigrationsList } from "./migrations-list.js";
import { runEngineCall } from "./wasm-schema-engine.js";
import { withSchemaEngine } from "./with-schema-engine.js";

const NO_FILTERS = { externalTables: [], externalEnums: [] };

/** `prisma migrate deploy`: returns the names of the migrations it applied. */
export async function deployWithPrismaEngine(connectionString: string, migrationsDir: string): Promise<string[]> {
  const migrationsList = await readMigrationsList(migrationsDir);
  return await withSchemaEngine(
    { mainConnectionString: connectionString, shadowServerConnectionString: connectionString },
    async (engine) => {
      const output = await runEngineCall(() => engine.applyMigrations({ migrationsList, filters: NO_FILTERS }));
      return output.appliedMigrationNames;
    },
  );
}

/** `prisma migrate status`: how the database's `_prisma_migrations` relates to the migrations directory. */
export async function diagnoseWithPrismaEngine(
  connectionString: string,
  migrationsDir: string,
): Promise<DiagnoseMigrationHistoryOutput> {
  const migrationsList = await readMigrationsList(migrationsDir);
  return await withSchemaEngine(
    { mainConnectionString: connectionString, shadowServerConnectionString: connectionString },
    (engine) =>
      runEngineCall(() =>
        engine.diagnoseMigrationHistory({ migrationsList, optInToShadowDatabase: false, filters: NO_FILTERS }),
      ),
  );
}
