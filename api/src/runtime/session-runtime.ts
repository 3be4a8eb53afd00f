/**
 * Where sessions' agents run. The API never runs an agent itself: it records what should happen
 * and tells the runtime. Implementations: local child processes, Kubernetes AgentSessions.
 * Every method is idempotent; the session state machine calls them after a status change.
 */
export interface SessionRef {
  id: string;
  tenantId: string;
  tenantName: string;
}

export type StopStrategy = "session" | "task";

/** What a runtime needs to find a session's browser: the port its agent reported, if any. */
export interface LiveSessionTarget {
  id: string;
  devtoolsPort: number | null;
}

export interface DevtoolsEndpoint {
  host: string;
  port: number;
}

/** What a runtime reports back about sessions it runs (a crash, a failed pod, an end). */
export interface RuntimeEvents {
  agentExited(sessionId: string, detail: { failureKind: "internal_error" | "pod_failed" | "timed_out" | "browser_error"; message: string }): Promise<void>;
}

export interface SessionRuntime {
  readonly name: "local" | "kubernetes" | "external";
  /** Make sure an agent runs for this session (new session, or new work for a session without one). */
  start(session: SessionRef): Promise<void>;
  /** Cancel the session's run; the agent saves state, closes its browser and exits. */
  stop(session: SessionRef, strategy: StopStrategy): Promise<void>;
  /** Remove everything the runtime holds for the session, after cancelling its run. */
  delete(session: SessionRef): Promise<void>;
  /** Where the session's browser DevTools endpoint can be reached from the API, if anywhere. */
  devtoolsEndpoint(session: LiveSessionTarget): Promise<DevtoolsEndpoint | null>;
  /** Called once at API start: reconcile sessions the database believes are live with reality. */
  recover(liveSessions: SessionRef[]): Promise<void>;
  close(): Promise<void>;
}
