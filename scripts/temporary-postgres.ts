// A throwaway embedded Postgres in a temporary directory, removed again by stop().
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Logger } from "pino";
import { startEmbeddedPostgres } from "../api/src/db/embedded-postgres.js";

export interface TemporaryPostgres {
  /** Superuser connection to the server's "postgres" database. */
  adminConnectionString: string;
  stop(): Promise<void>;
}

export async function startTemporaryPostgres(logger: Pick<Logger, "debug" | "info" | "warn">): Promise<TemporaryPostgres> {
  const root = await mkdtemp(path.join(os.tmpdir(), "browser-agents-pg-"));
  // mkdtemp makes the directory private; Postgres may run as its own OS user (when we are root).
  await chmod(root, 0o755);
  try {
    const server = await startEmbeddedPostgres({
      dataDir: path.join(root, "data"),
      databaseName: "postgres",
      // Its data is thrown away: durability only costs time.
      settings: { fsync: "off", synchronous_commit: "off", full_page_writes: "off" },
      logger,
    });
    return {
      adminConnectionString: server.connectionString,
      stop: async () => {
        try {
          await server.stop();
        } finally {
          await rm(root, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}
