import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ReportApiClient, ReportApiError, SessionGoneError } from "./api-client.js";
import { EventReporter } from "./event-reporter.js";

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  body: unknown;
}

type Handler = (seen: Seen, count: number) => { status: number; body?: unknown } | "drop";

let server: Server | null = null;

async function startApi(handler: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString();
      const entry = { method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization, body: text ? JSON.parse(text) : undefined };
      seen.push(entry);
      const answer = handler(entry, seen.length);
      if (answer === "drop") {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status, answer.body === undefined ? {} : { "content-type": "application/json" });
      res.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

const fastRetry = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 };

function clientFor(url: string): ReportApiClient {
  return new ReportApiClient({ apiUrl: url, sessionId: "sess-1", token: "tok-1", retry: fastRetry });
}

describe("ReportApiClient", () => {
  it("calls the session's agent routes with its bearer token and parses the answer", async () => {
    const api = await startApi(() => ({ status: 200, body: { action: "wait" } }));
    await expect(clientFor(api.url).work(5)).resolves.toEqual({ action: "wait" });
    expect(api.seen[0]).toMatchObject({ method: "GET", url: "/agent/v1/sessions/sess-1/work?waitSeconds=5", authorization: "Bearer tok-1" });
  });

  it("retries 5xx answers and dropped connections, then succeeds", async () => {
    const api = await startApi((_seen, count) => (count === 1 ? { status: 503 } : count === 2 ? "drop" : { status: 204 }));
    await clientFor(api.url).postFailure({ failureKind: "browser_error", failureStatusCode: null, message: "x" });
    expect(api.seen).toHaveLength(3);
  });

  it("gives up after the bounded number of attempts", async () => {
    const api = await startApi(() => ({ status: 500 }));
    await expect(clientFor(api.url).bootstrap()).rejects.toBeInstanceOf(ReportApiError);
    expect(api.seen).toHaveLength(3);
  });

  it.each([401, 404, 410])("treats %i as the session being gone, without retrying", async (status) => {
    const api = await startApi(() => ({ status }));
    await expect(clientFor(api.url).work(1)).rejects.toBeInstanceOf(SessionGoneError);
    expect(api.seen).toHaveLength(1);
  });

  it("does not retry other client errors", async () => {
    const api = await startApi(() => ({ status: 422, body: { detail: "bad" } }));
    await expect(clientFor(api.url).ready({ devtoolsPort: null })).rejects.toMatchObject({ status: 422 });
    expect(api.seen).toHaveLength(1);
  });

  it("stops waiting when its signal aborts", async () => {
    const api = await startApi(() => ({ status: 503 }));
    const controller = new AbortController();
    const client = new ReportApiClient({
      apiUrl: api.url,
      sessionId: "sess-1",
      token: "tok-1",
      retry: { attempts: 5, baseDelayMs: 60_000, maxDelayMs: 60_000 },
      onRetry: () => controller.abort(new Error("shutting down")),
    });
    await expect(client.bootstrap(controller.signal)).rejects.toThrow("shutting down");
    expect(api.seen).toHaveLength(1);
  });
});

describe("EventReporter", () => {
  it("sends events in order with ids and task numbers, and resends a lost batch with the same ids", async () => {
    const api = await startApi((_seen, count) => (count === 1 ? "drop" : { status: 200, body: { applied: 2, duplicates: 0, stale: 0, sessionStatus: "running", currentTaskNumber: 3 } }));
    const answers: unknown[] = [];
    const reporter = new EventReporter(clientFor(api.url), { flushIntervalMs: 60_000, onBatchResult: (answer) => answers.push(answer) });
    reporter.add(3, { kind: "step", stepNumber: 1, summary: "Clicking" });
    reporter.add(3, { kind: "message", role: "ai", type: "planning", data: "x", summary: "x" });
    await reporter.flush();

    expect(api.seen).toHaveLength(2);
    const [lost, delivered] = api.seen.map((entry) => (entry.body as { events: Array<Record<string, unknown>> }).events);
    expect(delivered).toEqual(lost);
    expect(delivered?.map((event) => [event.kind, event.taskNumber])).toEqual([["step", 3], ["message", 3]]);
    expect(delivered?.[1]).toMatchObject({ hidden: false, eventId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(reporter.pending).toBe(0);
    expect(answers).toEqual([expect.objectContaining({ sessionStatus: "running", currentTaskNumber: 3 })]);
  });

  it("sends a finished step with its messages at once, without waiting for the interval", async () => {
    const api = await startApi(() => ({ status: 200, body: { applied: 2, duplicates: 0, stale: 0, sessionStatus: "running", currentTaskNumber: 1 } }));
    const reporter = new EventReporter(clientFor(api.url), { flushIntervalMs: 60_000 });
    reporter.add(1, { kind: "message", role: "ai", type: "browser_action", data: "{}", summary: "Clicking element #1" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(api.seen).toHaveLength(0);
    reporter.add(1, { kind: "step", stepNumber: 1, summary: "Clicked" });
    await expect.poll(() => api.seen.length).toBe(1);
    const events = (api.seen[0]?.body as { events: Array<{ kind: string }> }).events;
    expect(events.map((event) => event.kind)).toEqual(["message", "step"]);
  });

  it("keeps events queued when the API stays unreachable, and reports a gone session", async () => {
    let gone = false;
    const api = await startApi(() => (gone ? { status: 410 } : { status: 500 }));
    const reporter = new EventReporter(clientFor(api.url), { flushIntervalMs: 60_000 });
    reporter.add(1, { kind: "usage", inputTokens: 1, outputTokens: 1, costUsd: "0.01" });
    await expect(reporter.flush()).rejects.toBeInstanceOf(ReportApiError);
    expect(reporter.pending).toBe(1);
    gone = true;
    await expect(reporter.flush()).rejects.toBeInstanceOf(SessionGoneError);
    expect(reporter.pending).toBe(0);
  });
});
