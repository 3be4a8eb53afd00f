import { ConfigError, parseConfig } from "./config.js";
import { LogSecrets } from "./logging/log-secrets.js";
import { createLogger } from "./logging/logger.js";
import { runAgentProcess } from "./process/agent-process.js";
import { watchForShutdown } from "./process/shutdown.js";
import { ReportApiClient } from "./report/api-client.js";
import { Redactor } from "./secrets/redactor.js";

/** After a stop signal the process is gone within 2 s, whatever is still running. */
const SHUTDOWN_DEADLINE_MS = 1_900;
const CRASH_REPORT_MS = 1_500;

async function main(): Promise<number> {
  let config;
  try {
    config = parseConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    createLogger({ level: "info", redactor: () => new Redactor(null) }).fatal(error.message);
    return 1;
  }
  const logSecrets = new LogSecrets(config.AGENT_TOKEN);
  const logger = createLogger({ level: config.LOG_LEVEL, redactor: () => logSecrets.current() });
  const client = new ReportApiClient({
    apiUrl: config.AGENT_API_URL,
    sessionId: config.AGENT_SESSION_ID,
    token: config.AGENT_TOKEN,
    onRetry: (info) => logger.warn(info, "report API request failed, retrying"),
  });

  const crash = (error: unknown): void => {
    logger.fatal({ err: error }, "unhandled error");
    const message = logSecrets.current().redact(error instanceof Error ? error.message : String(error)).slice(0, 4000);
    client
      .postFailure({ failureKind: "internal_error", failureStatusCode: null, message }, AbortSignal.timeout(CRASH_REPORT_MS))
      .catch(() => undefined)
      .finally(() => process.exit(1));
  };
  process.once("uncaughtException", crash);
  process.once("unhandledRejection", crash);

  const shutdown = watchForShutdown({
    exitWithStdin: config.AGENT_EXIT_WITH_STDIN,
    onRequested: (reason) => {
      logger.info({ reason }, "shutdown requested");
      setTimeout(() => {
        logger.warn("shutdown deadline reached; exiting");
        process.exit(0);
      }, SHUTDOWN_DEADLINE_MS);
    },
  });
  logger.info({ sessionId: config.AGENT_SESSION_ID, pid: process.pid }, "agent starting");
  return runAgentProcess({ config, logger, logSecrets, client, shutdown });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`agent-pod failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
