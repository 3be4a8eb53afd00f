import type { DevtoolsEndpoint, LiveSessionTarget, SessionRef, SessionRuntime, StopStrategy } from "./session-runtime.js";

/**
 * SESSION_RUNTIME=external: agents are started by another system that holds
 * AGENT_TOKEN_SIGNING_KEY (for example a developer running `node agent-pod/dist/main.js` by hand
 * with the session's derived credential). The API only records state; agents learn of stops and
 * deletions through the report protocol (work polls answer `exit`, event reports carry the status).
 */
export class ExternalRuntime implements SessionRuntime {
  readonly name = "external" as const;
  async start(_session: SessionRef): Promise<void> {}
  async stop(_session: SessionRef, _strategy: StopStrategy): Promise<void> {}
  async delete(_session: SessionRef): Promise<void> {}
  async devtoolsEndpoint(_session: LiveSessionTarget): Promise<DevtoolsEndpoint | null> {
    return null;
  }
  async recover(_liveSessions: SessionRef[]): Promise<void> {}
  async close(): Promise<void> {}
}
