import { LABEL_MANAGED_BY, LABEL_SESSION_ID, MANAGED_BY_VALUE, agentSessionName } from "@browser-agents/protocol";
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { DevtoolsEndpoint, LiveSessionTarget, RuntimeEvents, SessionRef, SessionRuntime, StopStrategy } from "../session-runtime.js";
import { AgentSessionApi } from "./agent-session-api.js";
import { buildAgentSession, type AgentSessionSettings } from "./agent-session-manifest.js";
import { FailureWatch } from "./failure-watch.js";

export interface KubernetesRuntimeOptions extends AgentSessionSettings {
  kubeConfig: KubeConfig;
  namespace: string;
  events: RuntimeEvents;
  logger: Logger;
}

/** Chromium's DevTools port in the agent pod when the pod does not name one. */
const DEFAULT_DEVTOOLS_PORT = 9222;

/**
 * Runs sessions as AgentSession resources that the operator turns into pods. The API writes only
 * the spec (desiredState) and deletes; it learns about failures by watching the status.
 */
export class KubernetesRuntime implements SessionRuntime {
  readonly name = "kubernetes" as const;
  private readonly sessions: AgentSessionApi;
  private readonly core: CoreV1Api;
  private readonly failures: FailureWatch;

  constructor(private readonly options: KubernetesRuntimeOptions) {
    this.sessions = new AgentSessionApi(options.kubeConfig.makeApiClient(CustomObjectsApi), options.namespace);
    this.core = options.kubeConfig.makeApiClient(CoreV1Api);
    this.failures = new FailureWatch({
      kubeConfig: options.kubeConfig,
      sessions: this.sessions,
      events: options.events,
      logger: options.logger.child({ component: "agentsession-watch" }),
    });
  }

  async startWatching(): Promise<void> {
    await this.failures.start();
  }

  async start(session: SessionRef): Promise<void> {
    const created = await this.sessions.create(buildAgentSession(session, this.options));
    if (created) return;
    // It exists (a retry, or new work after a stop): ask for a run again.
    if (!(await this.sessions.setDesiredState(agentSessionName(session.id), "run"))) {
      // Deleted in between: make a fresh one.
      await this.sessions.create(buildAgentSession(session, this.options));
    }
  }

  async stop(session: SessionRef, _strategy: StopStrategy): Promise<void> {
    // Both strategies end the pod; the agent saves the profile on SIGTERM. A missing one is stopped.
    await this.sessions.setDesiredState(agentSessionName(session.id), "stop");
  }

  async delete(session: SessionRef): Promise<void> {
    await this.sessions.delete(agentSessionName(session.id));
  }

  async devtoolsEndpoint(session: LiveSessionTarget): Promise<DevtoolsEndpoint | null> {
    const pods = await this.core.listNamespacedPod({
      namespace: this.options.namespace,
      labelSelector: `${LABEL_SESSION_ID}=${session.id},${LABEL_MANAGED_BY}=${MANAGED_BY_VALUE}`,
    });
    const pod = pods.items.find((candidate) => candidate.status?.phase === "Running" && candidate.status.podIP && !candidate.metadata?.deletionTimestamp);
    if (!pod?.status?.podIP) return null;
    const port = pod.spec?.containers.flatMap((container) => container.ports ?? []).find((candidate) => candidate.name === "devtools")?.containerPort;
    return { host: pod.status.podIP, port: port ?? DEFAULT_DEVTOOLS_PORT };
  }

  /**
   * The API side of the sweep: AgentSessions of sessions that are no longer live are deleted, and
   * live sessions without an AgentSession lost their agent.
   */
  async recover(liveSessions: SessionRef[]): Promise<void> {
    const items = await this.sessions.list();
    const live = new Set(liveSessions.map((session) => session.id));
    const present = new Set(items.map((item) => item.spec.sessionId));
    for (const item of items) {
      if (live.has(item.spec.sessionId) || item.metadata.deletionTimestamp) continue;
      this.options.logger.info({ sessionId: item.spec.sessionId }, "deleting the AgentSession of a session that is no longer live");
      await this.sessions.delete(item.metadata.name);
    }
    for (const session of liveSessions) {
      if (present.has(session.id)) continue;
      await this.options.events.agentExited(session.id, {
        failureKind: "pod_failed",
        message: "The session's AgentSession no longer exists in the cluster; its agent is gone.",
      });
    }
  }

  async close(): Promise<void> {
    await this.failures.close();
  }
}

/** Builds the runtime and starts its watch of AgentSession failures. */
export async function createKubernetesRuntime(options: KubernetesRuntimeOptions): Promise<KubernetesRuntime> {
  const runtime = new KubernetesRuntime(options);
  await runtime.startWatching();
  return runtime;
}
