import { ConfigError, parseConfig } from "./config.js";
import { openDatabase } from "./db/open-database.js";
import { createLogger } from "./logger.js";
import { startService } from "./service.js";

async function main(): Promise<void> {
  let config;
  try {
    config = parseConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.LOG_LEVEL);
  const database = await openDatabase(config, logger);
  if (database.embedded) logger.info({ dataDir: config.DATA_DIR }, "using the embedded Postgres (set DATABASE_URL to use your own)");

  let service;
  try {
    service = await startService(config, process.env, database.connectionString, logger);
  } catch (error) {
    logger.fatal({ err: error }, error instanceof ConfigError ? error.message : "the service failed to start");
    await database.stop();
    process.exit(1);
  }
  logger.info({ url: service.url, runtime: config.SESSION_RUNTIME }, "browser-agents API listening");

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    try {
      await service.close();
      await database.stop();
    } finally {
      process.exit(0);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

void main();
