import { AgentSessionSchema, type AgentSession } from "@browser-agents/protocol";
import { makeInformer, type KubeConfig, type KubernetesObject } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { agentExitOf } from "./agent-exit.js";
import type { AgentSessionApi } from "./agent-session-api.js";
import type { RuntimeEvents } from "../session-runtime.js";

export interface FailureWatchOptions {
  kubeConfig: KubeConfig;
  sessions: AgentSessionApi;
  events: RuntimeEvents;
  logger: Logger;
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
}

/**
 * Watches AgentSessions and tells the API when one reaches phase Failed, as soon as the operator
 * records it. client-node's informer lists, watches from the list's version, re-lists on 410 and
 * re-watches when a stream ends; on any other error it stops, and this restarts it with backoff.
 */
export class FailureWatch {
  private readonly informer;
  private readonly reported = new Set<string>();
  private closed = false;
  private failures = 0;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: FailureWatchOptions) {
    const { sessions } = options;
    this.informer = makeInformer<KubernetesObject>(options.kubeConfig, sessions.path, () => sessions.listRaw());
    this.informer.on("add", (object) => this.observe(object));
    this.informer.on("update", (object) => this.observe(object));
    this.informer.on("delete", (object) => this.forget(object));
    this.informer.on("connect", () => {
      this.failures = 0;
    });
    this.informer.on("error", (error: unknown) => this.restartLater(error));
  }

  async start(): Promise<void> {
    await this.informer.start();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.restartTimer);
    await this.informer.stop();
  }

  private observe(object: KubernetesObject): void {
    const session = parse(object);
    const exit = session ? agentExitOf(session) : null;
    if (!exit || this.reported.has(exit.launchKey)) return;
    this.reported.add(exit.launchKey);
    this.options.logger.info({ sessionId: exit.sessionId, detail: exit.detail }, "agent pod failed");
    this.options.events.agentExited(exit.sessionId, exit.detail).catch((error: unknown) => {
      // Let the next event or re-list try again.
      this.reported.delete(exit.launchKey);
      this.options.logger.warn({ err: error, sessionId: exit.sessionId }, "could not record the agent's exit");
    });
  }

  private forget(object: KubernetesObject): void {
    const session = parse(object);
    const exit = session ? agentExitOf(session) : null;
    if (exit) this.reported.delete(exit.launchKey);
  }

  private restartLater(error: unknown): void {
    if (this.closed) return;
    this.failures += 1;
    const base = this.options.retryBaseDelayMs ?? 500;
    const delay = Math.min(this.options.retryMaxDelayMs ?? 30_000, base * 2 ** Math.min(this.failures - 1, 10));
    this.options.logger.warn({ err: error, retryInMs: delay }, "AgentSession watch failed");
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      if (!this.closed) void this.informer.start();
    }, delay);
  }
}

function parse(object: KubernetesObject): AgentSession | null {
  const parsed = AgentSessionSchema.safeParse(object);
  return parsed.success ? parsed.data : null;
}
