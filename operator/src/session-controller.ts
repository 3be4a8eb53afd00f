import { AgentSessionSchema, type AgentSession } from "@browser-agents/protocol";
import type { Logger } from "pino";
import type { OperatorConfig } from "./config.js";
import type { AgentSessionClient } from "./kube/agent-session-client.js";
import type { KubeClients } from "./kube/clients.js";
import { decodeOwnedObject, owningAgentSession, type OwnedObjectSummary } from "./kube/owned-object-summary.js";
import { ResilientWatch } from "./kube/resilient-watch.js";
import type { OperatorMetrics } from "./metrics.js";
import { WorkQueue } from "./queue/work-queue.js";
import { MANAGED_SELECTOR } from "./reconcile/owned-objects.js";
import type { AgentSessionReconciler } from "./reconcile/reconciler.js";
import { OrphanSweeper } from "./sweep/orphan-sweeper.js";

export interface SessionControllerDeps {
  clients: KubeClients;
  sessions: AgentSessionClient;
  reconciler: AgentSessionReconciler;
  config: OperatorConfig;
  metrics: OperatorMetrics;
  logger: Logger;
}

interface Running {
  queue: WorkQueue;
  watches: ResilientWatch<unknown>[];
  sweeper: OrphanSweeper;
}

/**
 * The acting part of the operator: watches feed AgentSession names into the work queue, the
 * queue runs the reconciler, the sweeper removes orphans. Runs only while this replica leads;
 * stop() and start() may alternate as leadership comes and goes.
 */
export class SessionController {
  private running: Running | undefined;

  constructor(private readonly deps: SessionControllerDeps) {}

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** True when every watch has listed its resources at least once. */
  get hasSynced(): boolean {
    return this.running?.watches.every((watch) => watch.hasSynced) ?? false;
  }

  start(): void {
    if (this.running) return;
    const { config, metrics, logger, clients, sessions, reconciler } = this.deps;
    const queue = new WorkQueue({
      concurrency: config.RECONCILE_CONCURRENCY,
      retryBaseDelayMs: config.RETRY_BASE_DELAY_MS,
      retryMaxDelayMs: config.RETRY_MAX_DELAY_MS,
      handler: async (name) => {
        const stopTimer = metrics.reconcileDuration.startTimer();
        try {
          const result = await reconciler.reconcile(name);
          stopTimer({ result: "success" });
          return result;
        } catch (error) {
          stopTimer({ result: "error" });
          throw error;
        }
      },
      onFailure: (name, error, kind, retryInMs) => {
        metrics.reconcileErrors.labels({ kind }).inc();
        const level = kind === "temporary" ? "debug" : "warn";
        logger[level]({ agentSession: name, err: error, retryInMs }, "reconcile failed");
      },
    });

    const namespace = config.WATCH_NAMESPACE;
    const common = {
      watch: clients.watch,
      timeoutSeconds: config.WATCH_TIMEOUT_SECONDS,
      retryBaseDelayMs: config.RETRY_BASE_DELAY_MS,
      retryMaxDelayMs: Math.min(config.RETRY_MAX_DELAY_MS, 30_000),
    };
    const sessionWatch: ResilientWatch<AgentSession> = new ResilientWatch<AgentSession>({
      ...common,
      resource: "agentsessions",
      path: sessions.path,
      list: () => sessions.list(),
      decode: (raw) => {
        const parsed = AgentSessionSchema.safeParse(raw);
        return parsed.success ? parsed.data : null;
      },
      keyOf: (session) => session.metadata.name,
      onUpsert: (session) => sessionChanged(session),
      onDelete: (session) => sessionChanged(session),
      logger: logger.child({ watch: "agentsessions" }),
    });
    const updateRunningSessions = () =>
      metrics.setRunningSessions(
        sessionWatch
          .values()
          .filter((session) => session.status?.phase === "Running")
          .map((session) => session.spec.tenant),
      );
    const sessionChanged = (session: AgentSession) => {
      queue.add(session.metadata.name);
      updateRunningSessions();
    };
    const enqueueOwner = (object: OwnedObjectSummary) => {
      const owner = owningAgentSession(object);
      if (owner) queue.add(owner);
    };
    const ownedWatch = (resource: "pods" | "secrets", onChange: () => void) =>
      new ResilientWatch<OwnedObjectSummary>({
        ...common,
        resource,
        path: `/api/v1/namespaces/${namespace}/${resource}`,
        labelSelector: MANAGED_SELECTOR,
        list: async () => {
          const list =
            resource === "pods"
              ? await clients.core.listNamespacedPod({ namespace, labelSelector: MANAGED_SELECTOR })
              : await clients.core.listNamespacedSecret({ namespace, labelSelector: MANAGED_SELECTOR });
          return { items: list.items, resourceVersion: list.metadata?.resourceVersion ?? "" };
        },
        decode: decodeOwnedObject,
        keyOf: (object) => object.metadata.name,
        onUpsert: (object) => {
          enqueueOwner(object);
          onChange();
        },
        onDelete: (object) => {
          enqueueOwner(object);
          onChange();
        },
        logger: logger.child({ watch: resource }),
      });
    const podWatch = ownedWatch("pods", () => metrics.setPodPhases(podWatch.values().map((pod) => pod.status?.phase ?? undefined)));
    const secretWatch = ownedWatch("secrets", () => undefined);

    const sweeper = new OrphanSweeper({
      core: clients.core,
      sessions,
      intervalMs: config.SWEEP_INTERVAL_SECONDS * 1000,
      logger: logger.child({ component: "sweeper" }),
    });

    this.running = { queue, watches: [sessionWatch, podWatch, secretWatch] as ResilientWatch<unknown>[], sweeper };
    for (const watch of this.running.watches) watch.start();
    sweeper.start();
    logger.info({ namespace }, "controller started");
  }

  async stop(): Promise<void> {
    const running = this.running;
    if (!running) return;
    this.running = undefined;
    await Promise.all([...running.watches.map((watch) => watch.stop()), running.sweeper.stop()]);
    await running.queue.shutdown();
    this.deps.logger.info("controller stopped");
  }
}
