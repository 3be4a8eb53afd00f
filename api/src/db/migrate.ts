// Applies prisma/migrations the way `prisma migrate deploy` does, with node-postgres alone: the
// native schema engine is not available everywhere, and the API migrates itself at start-up.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { Logger } from "pino";
import { readMigrationFiles, scriptMatchesChecksum, type MigrationFile } from "./migration-files.js";
import {
  MIGRATION_ADVISORY_LOCK_KEY,
  applyAndRecordMigration,
  ensureMigrationsTable,
  listMigrationRecords,
  type MigrationRecord,
} from "./migrations-table.js";

/**
 * prisma/migrations of this checkout, found from this file: api/src/db (tsx, vitest) and api/dist/db
 * (built) both sit three levels below the repository root, as /app/api/dist/db sits below /app.
 */
export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(new URL("../../../prisma/migrations", import.meta.url));

export type MigrationLogger = Pick<Logger, "info" | "warn">;

export interface ApplyMigrationsOptions {
  /** Where the migration folders are; defaults to DEFAULT_MIGRATIONS_DIR. */
  migrationsDir?: string;
  logger?: MigrationLogger;
}

export interface ApplyMigrationsResult {
  /** Names of the migrations this call applied, in the order it applied them. */
  applied: string[];
}

/** The database's migration history does not allow migrating; a person has to look. */
export class MigrationHistoryError extends Error {
  override name = "MigrationHistoryError";
}

/** A migration's SQL failed; it was rolled back and nothing of it remains. */
export class MigrationFailedError extends Error {
  override name = "MigrationFailedError";
}

/**
 * Applies every migration folder not yet recorded in `_prisma_migrations`, in name order, each in its
 * own transaction. Holds Prisma Migrate's advisory lock throughout, so replicas starting together
 * migrate one at a time. Refuses a database whose history records a failed migration or a migration
 * whose file has changed since it was applied.
 */
export async function applyMigrations(
  connectionString: string,
  options: ApplyMigrationsOptions = {},
): Promise<ApplyMigrationsResult> {
  const migrationsDir = options.migrationsDir ?? DEFAULT_MIGRATIONS_DIR;
  const logger = options.logger;
  const files = await readMigrationFiles(migrationsDir);

  const client = new pg.Client({ connectionString });
  // A lost connection also fails the query in flight, which is where it is reported.
  client.on("error", () => undefined);
  await client.connect();
  try {
    await acquireMigrationLock(client, logger);
    try {
      await ensureMigrationsTable(client);
      const pending = pendingMigrations(files, await listMigrationRecords(client), migrationsDir, logger);
      const applied: string[] = [];
      for (const migration of pending) {
        await applyOne(client, migration);
        applied.push(migration.name);
        logger?.info({ migration: migration.name }, "applied migration");
      }
      return { applied };
    } finally {
      // The lock also ends with the session; a failure here must not hide the error being thrown.
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_ADVISORY_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function acquireMigrationLock(client: pg.Client, logger: MigrationLogger | undefined): Promise<void> {
  const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [
    MIGRATION_ADVISORY_LOCK_KEY,
  ]);
  if (rows[0]?.locked) return;
  logger?.info("another process is migrating this database; waiting for it to finish");
  await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_ADVISORY_LOCK_KEY]);
}

function pendingMigrations(
  files: MigrationFile[],
  records: MigrationRecord[],
  migrationsDir: string,
  logger: MigrationLogger | undefined,
): MigrationFile[] {
  const live = records.filter((record) => record.rolledBackAt === null);
  const failed = live.filter((record) => record.finishedAt === null);
  if (failed.length > 0) {
    const names = failed.map((record) => record.migrationName).join(", ");
    throw new MigrationHistoryError(
      `The database records failed migration(s): ${names}. Repair the database, then mark each one with ` +
        "`prisma migrate resolve --rolled-back <name>` (or `--applied <name>`) before migrating again.",
    );
  }

  const filesByName = new Map(files.map((file) => [file.name, file]));
  const appliedNames = new Set<string>();
  for (const record of live) {
    appliedNames.add(record.migrationName);
    const file = filesByName.get(record.migrationName);
    if (!file) {
      logger?.warn({ migration: record.migrationName, migrationsDir }, "applied migration is not in the migrations directory");
    } else if (!scriptMatchesChecksum(file.script, record.checksum)) {
      throw new MigrationHistoryError(
        `Migration ${record.migrationName} was changed after it was applied: the checksum recorded in ` +
          `_prisma_migrations differs from ${migrationsDir}/${record.migrationName}/migration.sql. ` +
          "Restore the file as it was applied and put the change in a new migration.",
      );
    }
  }
  return files.filter((file) => !appliedNames.has(file.name));
}

async function applyOne(client: pg.Client, migration: MigrationFile): Promise<void> {
  try {
    await applyAndRecordMigration(client, { id: randomUUID(), ...migration });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new MigrationFailedError(`Migration ${migration.name} failed and was rolled back: ${reason}`, {
      cause: error,
    });
  }
}
