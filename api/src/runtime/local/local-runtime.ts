import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { deriveAgentToken, type AgentEnvironment } from "@browser-agents/protocol";
import type { Logger } from "pino";
import type { RuntimeContext } from "../create-runtime.js";
import type { DevtoolsEndpoint, LiveSessionTarget, RuntimeEvents, SessionRef, SessionRuntime, StopStrategy } from "../session-runtime.js";
import { AgentProcess } from "./agent-process.js";

const DEFAULT_AGENT_ENTRY = fileURLToPath(new URL("../../../../agent-pod/dist/main.js", import.meta.url));
/** Long enough for the agent to write the profile back and close Chromium. */
const STOP_GRACE_MS = 10_000;

export interface LocalRuntimeOptions {
  maxConcurrent: number;
  command: string[];
  agentEnvironment: (sessionId: string) => Record<string, string>;
  events: RuntimeEvents;
  logger: Logger;
}

/**
 * Runs each session's agent as a local child process: the off-cluster runtime. At most
 * `maxConcurrent` agents run at once; later sessions wait in order and start as capacity frees.
 */
export class LocalRuntime implements SessionRuntime {
  readonly name = "local" as const;
  private readonly agents = new Map<string, AgentProcess>();
  /** Sessions whose agent was told to go: their exit is expected, not a crash. */
  private readonly leaving = new Set<string>();
  /** Sessions given new work while their previous agent was still on its way out. */
  private readonly restartAfterExit = new Map<string, SessionRef>();
  private readonly waiting: SessionRef[] = [];
  private closed = false;

  constructor(private readonly options: LocalRuntimeOptions) {}

  async start(session: SessionRef): Promise<void> {
    if (this.closed || this.waiting.some((s) => s.id === session.id)) return;
    if (this.leaving.has(session.id)) {
      this.restartAfterExit.set(session.id, session);
      return;
    }
    if (this.agents.has(session.id)) return;
    this.waiting.push(session);
    this.startWaiting();
  }

  async stop(session: SessionRef, _strategy: StopStrategy): Promise<void> {
    await this.end(session.id);
  }

  async delete(session: SessionRef): Promise<void> {
    await this.end(session.id);
  }

  async devtoolsEndpoint(session: LiveSessionTarget): Promise<DevtoolsEndpoint | null> {
    return session.devtoolsPort && this.agents.has(session.id) ? { host: "127.0.0.1", port: session.devtoolsPort } : null;
  }

  /** Local agents die with the API process, so every live session found at start-up lost its agent. */
  async recover(liveSessions: SessionRef[]): Promise<void> {
    for (const session of liveSessions) {
      if (this.agents.has(session.id) || this.waiting.some((s) => s.id === session.id)) continue;
      await this.options.events.agentExited(session.id, {
        failureKind: "internal_error",
        message: "The API restarted while this session was live; its agent process was lost.",
      });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const live = [...this.agents.keys(), ...this.waiting.map((s) => s.id)];
    this.waiting.length = 0;
    await Promise.all([...this.agents.keys()].map((id) => this.end(id)));
    for (const sessionId of live) {
      await this.options.events
        .agentExited(sessionId, { failureKind: "internal_error", message: "The API shut down while this session was live." })
        .catch((error: unknown) => this.options.logger.warn({ err: error, sessionId }, "could not record the shutdown"));
    }
  }

  /** How many agents run and wait now (for tests and metrics). */
  counts(): { running: number; waiting: number } {
    return { running: this.agents.size, waiting: this.waiting.length };
  }

  private async end(sessionId: string): Promise<void> {
    this.restartAfterExit.delete(sessionId);
    const queued = this.waiting.findIndex((s) => s.id === sessionId);
    if (queued >= 0) this.waiting.splice(queued, 1);
    const agent = this.agents.get(sessionId);
    if (!agent) return;
    this.leaving.add(sessionId);
    await agent.terminate(STOP_GRACE_MS);
  }

  private startWaiting(): void {
    while (!this.closed && this.agents.size < this.options.maxConcurrent && this.waiting.length > 0) {
      const session = this.waiting.shift()!;
      this.spawn(session);
    }
  }

  private spawn(session: SessionRef): void {
    const logger = this.options.logger.child({ sessionId: session.id, tenant: session.tenantName });
    const agent = new AgentProcess({
      command: this.options.command,
      env: this.options.agentEnvironment(session.id),
      logger,
      onExit: (code, signal) => {
        this.agents.delete(session.id);
        const expected = this.leaving.delete(session.id);
        logger.info({ code, signal, expected }, "agent process exited");
        if (!expected && !this.closed) {
          const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
          void this.options.events
            .agentExited(session.id, { failureKind: "internal_error", message: `The agent process ${how}.` })
            .catch((error: unknown) => logger.warn({ err: error }, "could not record the agent's exit"));
        }
        const restart = this.restartAfterExit.get(session.id);
        if (restart) {
          this.restartAfterExit.delete(session.id);
          this.waiting.unshift(restart);
        }
        this.startWaiting();
      },
    });
    this.agents.set(session.id, agent);
    logger.info({ pid: agent.pid }, "agent process started");
  }
}

export function createLocalRuntime(context: RuntimeContext): LocalRuntime {
  const { config } = context;
  const command = config.AGENT_COMMAND ? config.AGENT_COMMAND.split(/\s+/).filter(Boolean) : [process.execPath, DEFAULT_AGENT_ENTRY];
  if (!config.AGENT_COMMAND && !existsSync(DEFAULT_AGENT_ENTRY)) {
    context.logger.warn({ expected: DEFAULT_AGENT_ENTRY }, "agent-pod is not built; run `npm run build` before starting sessions");
  }
  return new LocalRuntime({
    maxConcurrent: config.MAX_CONCURRENT_SESSIONS,
    command,
    events: context.events,
    logger: context.logger,
    agentEnvironment: (sessionId) => {
      const env: Record<keyof AgentEnvironment, string> = {
        AGENT_API_URL: context.agentApiUrl,
        AGENT_SESSION_ID: sessionId,
        AGENT_TOKEN: deriveAgentToken(context.agentTokenSigningKey, sessionId),
        CHROMIUM_PATH: config.CHROMIUM_PATH,
        CHROMIUM_FLAGS: config.CHROMIUM_FLAGS,
        DEVTOOLS_PORT: "0",
        DEVTOOLS_ADDRESS: "127.0.0.1",
        AGENT_EXIT_WITH_STDIN: "true",
        LOG_LEVEL: config.LOG_LEVEL === "silent" ? "warn" : config.LOG_LEVEL,
      };
      // Only what a process needs to run: the API's own secrets stay in the API.
      const inherited = Object.fromEntries(
        ["PATH", "HOME", "TMPDIR", "LANG", "TZ", "XDG_RUNTIME_DIR"].flatMap((name) => (context.hostEnv[name] ? [[name, context.hostEnv[name] as string]] : [])),
      );
      return { ...inherited, ...env };
    },
  });
}
