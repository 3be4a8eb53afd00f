import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { deployWithPrismaEngine, diagnoseWithPrismaEngine } from "../../../scripts/schema-engine/migration-history.js";
import { diffDatabaseToSchema, diffMigrationsToSchema, readSchemaFile } from "../../../scripts/schema-engine/schema-diff.js";
import { createTestDatabase, type TestDatabase } from "../../../test/support/database.js";
import { migrationChecksum } from "./migration-files.js";
import { applyMigrations, DEFAULT_MIGRATIONS_DIR, MigrationFailedError, MigrationHistoryError } from "./migrate.js";

const SCHEMA_PATH = path.resolve(DEFAULT_MIGRATIONS_DIR, "../schema.prisma");

const databases: TestDatabase[] = [];
async function emptyDatabase(): Promise<string> {
  const database = await createTestDatabase({ empty: true });
  databases.push(database);
  return database.connectionString;
}
afterAll(async () => {
  await Promise.all(databases.map((database) => database.drop()));
});

async function query<Row extends pg.QueryResultRow>(connectionString: string, sql: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

async function migrationFolders(dir: string): Promise<string[]> {
  return (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** A copy of prisma/migrations that a test may change. */
async function copyOfMigrations(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "migrations-"));
  await cp(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}

describe("the migrations", () => {
  it("create exactly the schema that schema.prisma describes", async () => {
    const connectionString = await emptyDatabase();
    await applyMigrations(connectionString);
    const schema = await readSchemaFile(SCHEMA_PATH);

    const migrated = await diffDatabaseToSchema({ connectionString, schema });
    expect(migrated.script).toBe("-- This is an empty migration.\n");
    expect(migrated.isEmpty).toBe(true);

    // The same check fails when the two differ: one more column in the schema.
    const widened = { ...schema, content: schema.content.replace("model Tenant {", "model Tenant {\n  extraColumn String?") };
    const behind = await diffDatabaseToSchema({ connectionString, schema: widened });
    expect(behind.isEmpty).toBe(false);
    expect(behind.script).toContain('ALTER TABLE "Tenant" ADD COLUMN     "extraColumn" TEXT;');
  });

  it("are complete: replaying them on a shadow database leaves nothing for a new migration", async () => {
    const diff = await diffMigrationsToSchema({
      migrationsDir: DEFAULT_MIGRATIONS_DIR,
      schema: await readSchemaFile(SCHEMA_PATH),
      shadowServerConnectionString: inject("testPostgresAdminUrl"),
    });
    expect(diff.script).toBe("-- This is an empty migration.\n");
    expect(diff.isEmpty).toBe(true);
  });
});

describe("applyMigrations", () => {
  let connectionString: string;
  let folders: string[];
  beforeAll(async () => {
    connectionString = await emptyDatabase();
    folders = await migrationFolders(DEFAULT_MIGRATIONS_DIR);
  });

  it("applies every migration once and records it in _prisma_migrations as Prisma does", async () => {
    expect(await applyMigrations(connectionString)).toEqual({ applied: folders });
    expect(await applyMigrations(connectionString)).toEqual({ applied: [] });

    const rows = await query<{
      id: string;
      checksum: string;
      migration_name: string;
      logs: string | null;
      rolled_back_at: Date | null;
      started_at: Date;
      finished_at: Date | null;
      applied_steps_count: number;
    }>(connectionString, "SELECT * FROM _prisma_migrations ORDER BY migration_name");
    expect(rows.map((row) => row.migration_name)).toEqual(folders);
    for (const row of rows) {
      const script = await readFile(path.join(DEFAULT_MIGRATIONS_DIR, row.migration_name, "migration.sql"), "utf8");
      expect(row).toMatchObject({ checksum: migrationChecksum(script), logs: null, rolled_back_at: null, applied_steps_count: 1 });
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row.finished_at?.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
    }

    // Prisma's own engine (what `migrate status` and `migrate deploy` run) sees a clean, complete history.
    const diagnosis = await diagnoseWithPrismaEngine(connectionString, DEFAULT_MIGRATIONS_DIR);
    expect(diagnosis).toMatchObject({ history: null, failedMigrationNames: [], editedMigrationNames: [], hasMigrationsTable: true });
    expect(await deployWithPrismaEngine(connectionString, DEFAULT_MIGRATIONS_DIR)).toEqual([]);
  });

  it("creates _prisma_migrations exactly as prisma migrate deploy does", async () => {
    const ours = await emptyDatabase();
    const prismas = await emptyDatabase();
    await applyMigrations(ours);
    expect(await deployWithPrismaEngine(prismas, DEFAULT_MIGRATIONS_DIR)).toEqual(folders);

    const describeTable = (database: string) =>
      query(
        database,
        `SELECT column_name, data_type, character_maximum_length, is_nullable, column_default
           FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
      );
    expect(await describeTable(ours)).toEqual(await describeTable(prismas));
    const records = (database: string) =>
      query(database, "SELECT migration_name, checksum, logs, applied_steps_count FROM _prisma_migrations ORDER BY migration_name");
    expect(await records(ours)).toEqual(await records(prismas));
    // And it goes on from a history Prisma wrote.
    expect(await applyMigrations(prismas)).toEqual({ applied: [] });
  });

  it("lets concurrent callers migrate one at a time", async () => {
    const fresh = await emptyDatabase();
    const results = await Promise.all([applyMigrations(fresh), applyMigrations(fresh), applyMigrations(fresh)]);
    expect(results.flatMap((result) => result.applied).sort()).toEqual(folders);
    const rows = await query<{ count: string }>(fresh, "SELECT count(*) FROM _prisma_migrations");
    expect(Number(rows[0]?.count)).toBe(folders.length);
  });
});

describe("applyMigrations refuses", () => {
  let migrationsDir: string;
  beforeAll(async () => {
    migrationsDir = await copyOfMigrations();
  });
  afterAll(async () => {
    await rm(migrationsDir, { recursive: true, force: true });
  });

  it("a migration whose file changed after it was applied, but not its line endings", async () => {
    const connectionString = await emptyDatabase();
    await applyMigrations(connectionString, { migrationsDir });
    const [first] = await migrationFolders(migrationsDir);
    const file = path.join(migrationsDir, first ?? "", "migration.sql");
    const original = await readFile(file, "utf8");

    await writeFile(file, original.replaceAll("\n", "\r\n"));
    expect(await applyMigrations(connectionString, { migrationsDir })).toEqual({ applied: [] });

    await writeFile(file, `${original}\n-- edited afterwards\n`);
    const refusal = applyMigrations(connectionString, { migrationsDir });
    await expect(refusal).rejects.toThrow(MigrationHistoryError);
    await expect(refusal).rejects.toThrow(`Migration ${first} was changed after it was applied`);
    await writeFile(file, original);
  });

  it("a database whose history records a failed migration", async () => {
    const connectionString = await emptyDatabase();
    await applyMigrations(connectionString, { migrationsDir });
    await query(connectionString, "UPDATE _prisma_migrations SET finished_at = NULL, logs = 'it broke'");
    await expect(applyMigrations(connectionString, { migrationsDir })).rejects.toThrow(
      /records failed migration\(s\): .*prisma migrate resolve/,
    );
  });

  it("to keep any part of a migration that fails, and says which one failed", async () => {
    const connectionString = await emptyDatabase();
    await applyMigrations(connectionString, { migrationsDir });
    const broken = path.join(migrationsDir, "99990101000000_broken");
    await cp(path.join(migrationsDir, (await migrationFolders(migrationsDir))[0] ?? ""), broken, { recursive: true });
    await writeFile(path.join(broken, "migration.sql"), 'CREATE TABLE "Half" ("id" INTEGER);\nSELECT * FROM "NoSuchTable";\n');
    try {
      const failure = applyMigrations(connectionString, { migrationsDir });
      await expect(failure).rejects.toThrow(MigrationFailedError);
      await expect(failure).rejects.toThrow(/99990101000000_broken failed and was rolled back: relation "NoSuchTable" does not exist/);
      expect(await query(connectionString, "SELECT to_regclass('\"Half\"') AS half")).toEqual([{ half: null }]);
      expect(await query(connectionString, "SELECT 1 FROM _prisma_migrations WHERE migration_name = '99990101000000_broken'")).toEqual([]);
    } finally {
      await rm(broken, { recursive: true, force: true });
    }
  });
});
