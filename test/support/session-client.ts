import { expect } from "vitest";
import { waitFor } from "./agent-processes.js";
import type { ApiHarness, ApiResponse } from "./api-harness.js";

export interface MessageView {
  role: string;
  type: string;
  data: string;
  summary: string;
}

/** A caller of the public API, as the end-to-end suites drive sessions. */
export function sessionClient(api: ApiHarness, key: string) {
  const call = (method: string, path: string, body?: unknown): Promise<ApiResponse> => api.call(key, method, path, body);
  const getSession = async (id: string) => (await call("GET", `/v3/sessions/${id}`)).body;
  const untilStatus = (id: string, accept: (status: string) => boolean, timeoutMs = 60_000) =>
    waitFor(() => getSession(id), (session) => accept(session.status), timeoutMs, `session ${id} status`);
  return {
    call,
    getSession,
    untilStatus,
    async createSession(body: Record<string, unknown>): Promise<{ id: string; status: string }> {
      const response = await call("POST", "/v3/sessions", body);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body;
    },
    /** Until the session is neither created nor running: its task ended, or the session did. */
    untilEnded: (id: string, timeoutMs?: number) => untilStatus(id, (status) => !["created", "running"].includes(status), timeoutMs),
    messagesOf: async (id: string): Promise<MessageView[]> => (await call("GET", `/v3/sessions/${id}/messages?limit=1000`)).body.messages,
  };
}
