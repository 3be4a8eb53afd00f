import path from "node:path";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { findRunningEmbeddedPostgres, startEmbeddedPostgres } from "./embedded-postgres.js";

export interface OpenDatabase {
  connectionString: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/**
 * DATABASE_URL when set; otherwise the embedded Postgres whose data lives in DATA_DIR/postgres:
 * the one another process already serves from there, or a new one this process owns.
 */
export async function openDatabase(config: Config, logger: Logger, options: { shareRunning?: boolean } = {}): Promise<OpenDatabase> {
  if (config.DATABASE_URL) return { connectionString: config.DATABASE_URL, embedded: false, stop: async () => {} };
  const dataDir = path.resolve(config.DATA_DIR, "postgres");
  if (options.shareRunning) {
    const running = await findRunningEmbeddedPostgres(dataDir);
    if (running) return { connectionString: running, embedded: true, stop: async () => {} };
  }
  const server = await startEmbeddedPostgres({ dataDir, logger: logger.child({ component: "postgres" }) });
  return { connectionString: server.connectionString, embedded: true, stop: () => server.stop() };
}
