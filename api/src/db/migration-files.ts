// Prisma's migrations directory: one folder per migration, named `<timestamp>_<name>`, holding
// `migration.sql`. The checksum is the SHA-256 (hex) of that file, as Prisma records it.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

export interface MigrationFile {
  /** The folder name, which is the migration's name in `_prisma_migrations`. */
  name: string;
  script: string;
  checksum: string;
}

export async function readMigrationFiles(migrationsDir: string): Promise<MigrationFile[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") throw new Error(`Migrations directory not found: ${migrationsDir}`);
    throw error;
  });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return await Promise.all(
    names.map(async (name) => {
      const file = path.join(migrationsDir, name, "migration.sql");
      const script = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") throw new Error(`Migration ${name} has no migration.sql (${file})`);
        throw error;
      });
      return { name, script, checksum: migrationChecksum(script) };
    }),
  );
}

export function migrationChecksum(script: string): string {
  return createHash("sha256").update(script, "utf8").digest("hex");
}

/** Whether `script` is the one recorded with `checksum`, whatever line endings git gave it (as Prisma decides). */
export function scriptMatchesChecksum(script: string, checksum: string): boolean {
  const variants = [script, script.replaceAll("\r\n", "\n"), script.replaceAll("\n", "\r\n")];
  return variants.some((variant) => migrationChecksum(variant) === checksum);
}
