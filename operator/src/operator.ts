import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { OperatorConfig } from "./config.js";
import { startHealthServer, type HealthServer } from "./http/health-server.js";
import { AgentSessionClient } from "./kube/agent-session-client.js";
import { createKubeClients } from "./kube/clients.js";
import { LeaseElector } from "./leader/lease-elector.js";
import { createOperatorMetrics, type OperatorMetrics } from "./metrics.js";
import { agentPodSettings } from "./reconcile/agent-pod-settings.js";
import { AgentSessionReconciler } from "./reconcile/reconciler.js";
import { SessionController } from "./session-controller.js";

export interface OperatorOptions {
  config: OperatorConfig;
  kubeConfig: KubeConfig;
  logger: Logger;
  registry?: Registry;
}

export interface RunningOperator {
  metrics: OperatorMetrics;
  /** Port of the /metrics, /healthz, /readyz server. */
  port: number;
  isLeader(): boolean;
  stop(): Promise<void>;
}

/** Builds and starts the operator: health server, then leader election (or the controller directly). */
export async function startOperator(options: OperatorOptions): Promise<RunningOperator> {
  const { config, kubeConfig, logger } = options;
  const clients = createKubeClients(kubeConfig);
  const metrics = createOperatorMetrics(options.registry);
  const sessions = new AgentSessionClient(clients.customObjects, config.WATCH_NAMESPACE);
  const reconciler = new AgentSessionReconciler({
    sessions,
    core: clients.core,
    signingKey: config.AGENT_TOKEN_SIGNING_KEY,
    podSettings: agentPodSettings(config),
    resyncMs: config.RESYNC_INTERVAL_SECONDS * 1000,
    metrics,
    logger: logger.child({ component: "reconciler" }),
  });
  const controller = new SessionController({ clients, sessions, reconciler, config, metrics, logger: logger.child({ component: "controller" }) });

  const startActing = () => {
    controller.start();
    metrics.leader.set(1);
  };
  const stopActing = async () => {
    metrics.leader.set(0);
    await controller.stop();
  };

  const elector = config.LEADER_ELECTION
    ? new LeaseElector({
        api: clients.coordination,
        namespace: config.LEADER_ELECTION_NAMESPACE ?? config.WATCH_NAMESPACE,
        leaseName: config.LEADER_ELECTION_LEASE_NAME,
        identity: config.POD_NAME,
        leaseDurationMs: config.LEASE_DURATION_SECONDS * 1000,
        renewDeadlineMs: config.LEASE_RENEW_DEADLINE_SECONDS * 1000,
        retryPeriodMs: config.LEASE_RETRY_PERIOD_SECONDS * 1000,
        logger: logger.child({ component: "leader-election" }),
        onStartedLeading: startActing,
        onStoppedLeading: stopActing,
      })
    : undefined;

  const health: HealthServer = await startHealthServer({
    host: config.METRICS_HOST,
    port: config.METRICS_PORT,
    registry: metrics.registry,
    // A standby is ready: it is doing its job, which is waiting for the lease.
    isReady: () => !controller.isRunning || controller.hasSynced,
  });

  if (elector) elector.start();
  else startActing();
  logger.info({ namespace: config.WATCH_NAMESPACE, leaderElection: config.LEADER_ELECTION, port: health.port }, "operator started");

  return {
    metrics,
    port: health.port,
    isLeader: () => controller.isRunning,
    stop: async () => {
      if (elector) await elector.stop();
      else await stopActing();
      await health.close();
      logger.info("operator stopped");
    },
  };
}
