import { KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import { collectDefaultMetrics, Registry } from "prom-client";
import { ConfigError, parseOperatorConfig } from "./config.js";
import { startOperator } from "./operator.js";

async function main(): Promise<void> {
  const config = parseOperatorConfig(process.env);
  const logger = pino({ level: config.LOG_LEVEL, base: { service: "browser-agents-operator", identity: config.POD_NAME } });
  const kubeConfig = new KubeConfig();
  // In a pod: the service account; elsewhere: KUBECONFIG or ~/.kube/config.
  kubeConfig.loadFromDefault();
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const operator = await startOperator({ config, kubeConfig, logger, registry });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    operator.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  const message = error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`${message}\n`);
  process.exit(1);
});
