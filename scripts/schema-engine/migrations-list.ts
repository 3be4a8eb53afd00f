// The migrations directory as the schema engine wants it, read the way the Prisma CLI reads it.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { MigrationList } from "@prisma/schema-engine-wasm";

export const MIGRATION_LOCK_FILE = "migration_lock.toml";
export const MIGRATION_SCRIPT_FILE = "migration.sql";

export async function readMigrationsList(migrationsDir: string): Promise<MigrationList> {
  const baseDir = path.resolve(migrationsDir);
  const lockContent = await readFile(path.join(baseDir, MIGRATION_LOCK_FILE), "utf8").catch(() => null);
  const entries = await readdir(baseDir, { withFileTypes: true }).catch(() => []);
  const folders = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const migrationDirectories = await Promise.all(
    folders.map(async (folder) => ({
      path: folder,
      migrationFile: {
        path: MIGRATION_SCRIPT_FILE,
        content: await readFile(path.join(baseDir, folder, MIGRATION_SCRIPT_FILE), "utf8").then(
          (value) => ({ tag: "ok" as const, value }),
          (error: Error) => ({ tag: "error" as const, value: error.message }),
        ),
      },
    })),
  );
  return {
    baseDir,
    lockfile: { path: MIGRATION_LOCK_FILE, content: lockContent },
    shadowDbInitScript: "",
    migrationDirectories,
  };
}
