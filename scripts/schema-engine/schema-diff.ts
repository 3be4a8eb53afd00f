// `prisma migrate diff --script`, through the wasm schema engine.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { DiffTarget, SchemaEngine } from "@prisma/schema-engine-wasm";
import { readMigrationsList } from "./migrations-list.js";
import { runEngineCall, type SchemaFile } from "./wasm-schema-engine.js";
import { withSchemaEngine } from "./with-schema-engine.js";

export interface SchemaDiff {
  /** True when the two sides describe the same schema. */
  isEmpty: boolean;
  /** The SQL that turns the first side into the second. */
  script: string;
}

export async function readSchemaFile(schemaPath: string): Promise<SchemaFile> {
  return { path: path.resolve(schemaPath), content: await readFile(schemaPath, "utf8") };
}

/** The SQL that takes a database migrated with `migrationsDir` to `schema` (what `migrate dev` writes). */
export async function diffMigrationsToSchema(options: {
  migrationsDir: string;
  schema: SchemaFile;
  shadowServerConnectionString: string;
}): Promise<SchemaDiff> {
  const migrations = await readMigrationsList(options.migrationsDir);
  return await withSchemaEngine(
    {
      mainConnectionString: options.shadowServerConnectionString,
      shadowServerConnectionString: options.shadowServerConnectionString,
    },
    (engine) => diff(engine, { tag: "migrations", ...migrations }, { tag: "schemaDatamodel", files: [options.schema] }),
  );
}

/** The SQL that takes the live database at `connectionString` to `schema`. */
export async function diffDatabaseToSchema(options: { connectionString: string; schema: SchemaFile }): Promise<SchemaDiff> {
  return await withSchemaEngine(
    { mainConnectionString: options.connectionString, shadowServerConnectionString: options.connectionString },
    (engine) =>
      diff(
        engine,
        { tag: "schemaDatasource", files: [options.schema], configDir: path.dirname(options.schema.path) },
        { tag: "schemaDatamodel", files: [options.schema] },
      ),
  );
}

async function diff(engine: SchemaEngine, from: DiffTarget, to: DiffTarget): Promise<SchemaDiff> {
  const result = await runEngineCall(() =>
    engine.diff({ from, to, script: true, exitCode: true, filters: { externalTables: [], externalEnums: [] } }),
  );
  // With `exitCode` set the engine answers 2 when the diff is not empty, as `migrate diff --exit-code` does.
  return { isEmpty: result.exitCode === 0, script: result.stdout ?? "" };
}
