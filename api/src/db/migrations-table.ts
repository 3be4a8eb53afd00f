// `_prisma_migrations`, the table `prisma migrate deploy` reads and writes. The DDL and the lock key
// are Prisma's own (prisma-engines, sql-schema-connector, flavour/postgres.rs), so this migrator and
// a real `prisma migrate deploy` recognise each other's work and never run at the same time.
import type pg from "pg";

/** pg_advisory_lock key Prisma Migrate takes while it migrates. */
export const MIGRATION_ADVISORY_LOCK_KEY = 72707369;

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
);
`;

export interface MigrationRecord {
  id: string;
  checksum: string;
  migrationName: string;
  finishedAt: Date | null;
  rolledBackAt: Date | null;
}

export async function ensureMigrationsTable(client: pg.ClientBase): Promise<void> {
  const { rows } = await client.query<{ exists: boolean }>(
    "SELECT to_regclass('_prisma_migrations') IS NOT NULL AS exists",
  );
  if (!rows[0]?.exists) await client.query(CREATE_MIGRATIONS_TABLE);
}

export async function listMigrationRecords(client: pg.ClientBase): Promise<MigrationRecord[]> {
  const { rows } = await client.query<{
    id: string;
    checksum: string;
    migration_name: string;
    finished_at: Date | null;
    rolled_back_at: Date | null;
  }>("SELECT id, checksum, migration_name, finished_at, rolled_back_at FROM _prisma_migrations ORDER BY started_at");
  return rows.map((row) => ({
    id: row.id,
    checksum: row.checksum,
    migrationName: row.migration_name,
    finishedAt: row.finished_at,
    rolledBackAt: row.rolled_back_at,
  }));
}

/** Runs `script` and records it as applied, all in one transaction: it applies entirely or not at all. */
export async function applyAndRecordMigration(
  client: pg.ClientBase,
  migration: { id: string; name: string; checksum: string; script: string },
): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query(
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count)
       VALUES ($1, $2, $3, clock_timestamp(), 0)`,
      [migration.id, migration.checksum, migration.name],
    );
    // Without parameters node-postgres sends the simple query protocol, which runs several statements.
    await client.query(migration.script);
    await client.query(
      "UPDATE _prisma_migrations SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1",
      [migration.id],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
