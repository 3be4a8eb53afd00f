import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { WorkItem, WorkResponse } from "@browser-agents/protocol";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hangingScript, httpErrorScript, secretLoginScript, startFakeLlm, type FakeLlm } from "../../../test/fake-llm/index.js";
import { SESSION_COOKIE, SITE_PASSWORD, startTestSite, type TestSite } from "../../../test/site/index.js";
import { parseConfig } from "../config.js";
import { LogSecrets } from "../logging/log-secrets.js";
import { ReportApiClient } from "../report/api-client.js";
import { runAgentProcess } from "./agent-process.js";

const TOKEN = "agent-token-123";
const logger = pino({ level: "silent" });
let site: TestSite;
let llm: FakeLlm;

beforeAll(async () => {
  site = await startTestSite();
  llm = await startFakeLlm({ scripts: [], apiKey: "test-key" });
});
afterAll(async () => {
  await llm?.close();
  await site?.close();
});

interface Received {
  method: string;
  path: string;
  body: unknown;
}

interface FakeApi {
  url: string;
  received: Received[];
  paths(): string[];
  bodiesOf(path: string): unknown[];
  close(): Promise<void>;
}

/** The API side of the report protocol: hands out `work` answers in order, then `exit`. */
async function startFakeApi(options: {
  work: Array<WorkResponse | "hang" | number>;
  profileId?: string | null;
  eventsAnswer?: { sessionStatus: string; currentTaskNumber: number };
}): Promise<FakeApi> {
  const received: Received[] = [];
  const work = [...options.work];
  const prefix = "/agent/v1/sessions/sess-1";
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString();
      const path = (req.url ?? "").replace(prefix, "").split("?")[0] ?? "";
      received.push({ method: req.method ?? "", path, body: text ? JSON.parse(text) : undefined });
      const json = (status: number, body?: unknown): void => {
        res.writeHead(status, body === undefined ? {} : { "content-type": "application/json" });
        res.end(body === undefined ? undefined : JSON.stringify(body));
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(401);
      if (path === "/bootstrap") return json(200, { sessionId: "sess-1", profileId: options.profileId ?? "prof-1", storageState: null });
      if (path === "/ready" || path === "/failure") return json(204);
      if (path === "/work") {
        const next = work.shift() ?? { action: "exit", reason: "test over" };
        if (next === "hang") return;
        if (typeof next === "number") return json(next);
        return json(200, next);
      }
      if (path === "/events") {
        const events = (JSON.parse(text) as { events: unknown[] }).events;
        return json(200, { applied: events.length, duplicates: 0, stale: 0, sessionStatus: "running", currentTaskNumber: 1, ...options.eventsAnswer });
      }
      if (path === "/task-result") return json(200, { status: "idle", applied: true });
      if (path === "/storage-state") return json(200, { written: true });
      return json(404);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    paths: () => received.map((entry) => `${entry.method} ${entry.path}`),
    bodiesOf: (path) => received.filter((entry) => entry.path === path).map((entry) => entry.body),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let api: FakeApi | null = null;
afterEach(async () => {
  await api?.close();
  api = null;
});

function work(task: string, overrides: Partial<WorkItem> = {}): WorkResponse {
  return {
    action: "run",
    work: {
      taskNumber: 1,
      task,
      model: {
        name: "fake",
        providerModel: "fake-model",
        baseUrl: llm.baseUrl,
        apiKey: "test-key",
        reasoningEffort: "none",
        inputPricePerMillionUsd: "1",
        outputPricePerMillionUsd: "1",
      },
      outputSchema: null,
      sensitiveData: null,
      systemPromptExtension: null,
      maxCostUsd: null,
      spentCostUsd: "0",
      maxSteps: 10,
      keepAlive: false,
      ...overrides,
    },
  };
}

function start(fakeApi: FakeApi, shutdown: AbortSignal = new AbortController().signal, env: Record<string, string> = {}) {
  const config = parseConfig({ AGENT_API_URL: fakeApi.url, AGENT_SESSION_ID: "sess-1", AGENT_TOKEN: TOKEN, ...env });
  const client = new ReportApiClient({
    apiUrl: config.AGENT_API_URL,
    sessionId: config.AGENT_SESSION_ID,
    token: config.AGENT_TOKEN,
    retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
  });
  return runAgentProcess({ config, logger, logSecrets: new LogSecrets(TOKEN), client, shutdown });
}

describe("runAgentProcess", () => {
  it("runs a task end to end: ready, events, profile write-back, result, exit", async () => {
    llm.addScript(secretLoginScript({ match: /\[process-login\]/, siteUrl: site.url }));
    api = await startFakeApi({
      work: [{ action: "wait" }, work("Log in [process-login]", { sensitiveData: { password: SITE_PASSWORD } })],
    });
    await expect(start(api)).resolves.toBe(0);

    expect(api.paths()).toEqual([
      "GET /bootstrap",
      "POST /ready",
      "GET /work",
      "GET /work",
      ...api.paths().filter((path) => path === "POST /events"),
      // The profile is written before the result, so the next session on it starts logged in.
      "PUT /storage-state",
      "POST /task-result",
      "GET /work",
      "PUT /storage-state",
    ]);
    expect(api.bodiesOf("/ready")[0]).toEqual({ devtoolsPort: expect.any(Number) });
    expect(api.bodiesOf("/task-result")[0]).toEqual({
      taskNumber: 1,
      output: { plan: "Pro", credits: 42 },
      isTaskSuccessful: true,
      failureKind: null,
      failureStatusCode: null,
    });
    const events = api.bodiesOf("/events").flatMap((body) => (body as { events: Array<{ eventId: string; type?: string }> }).events);
    expect(new Set(events.map((event) => event.eventId)).size).toBe(events.length);
    expect(events.some((event) => event.type === "completion")).toBe(true);
    expect(JSON.stringify(api.received)).not.toContain(SITE_PASSWORD);
    const saved = api.bodiesOf("/storage-state")[0] as { cookies: Array<{ name: string }> };
    expect(saved.cookies.map((cookie) => cookie.name)).toContain(SESSION_COOKIE);
  }, 60_000);

  it("on shutdown abandons the model call, saves the profile and exits 0 without a result", async () => {
    llm.addScript(hangingScript({ match: /\[process-hang\]/ }));
    api = await startFakeApi({ work: [work("Wait [process-hang]")] });
    const controller = new AbortController();
    const exited = start(api, controller.signal);
    await llm.waitForRequest((request) => request.rawBody.includes("[process-hang]"), 20_000);
    controller.abort(new Error("SIGTERM"));
    await expect(exited).resolves.toBe(0);
    expect(api.paths()).toContain("PUT /storage-state");
    expect(api.paths()).not.toContain("POST /task-result");
  }, 60_000);

  it("reports llm_error with the status and exits 1 when the provider refuses the key", async () => {
    llm.addScript(httpErrorScript({ match: /\[process-401\]/, status: 401 }));
    api = await startFakeApi({ work: [work("Anything [process-401]")] });
    await expect(start(api)).resolves.toBe(1);
    expect(api.bodiesOf("/failure")).toEqual([
      { failureKind: "llm_error", failureStatusCode: 401, message: expect.stringContaining("refused the credentials") },
    ]);
    expect(api.paths()).not.toContain("POST /task-result");
  }, 60_000);

  it("reports browser_error and exits 1 when Chromium cannot start", async () => {
    api = await startFakeApi({ work: [] });
    await expect(start(api, undefined, { CHROMIUM_PATH: "/nonexistent/chromium" })).resolves.toBe(1);
    expect(api.bodiesOf("/failure")).toEqual([{ failureKind: "browser_error", failureStatusCode: null, message: expect.any(String) }]);
    expect(api.paths()).not.toContain("POST /ready");
  }, 60_000);

  it("exits 0 quietly when the API no longer knows the session", async () => {
    api = await startFakeApi({ work: [410] });
    await expect(start(api)).resolves.toBe(0);
    expect(api.paths()).not.toContain("POST /failure");
  }, 60_000);

  it("abandons a task the API says is no longer current, then keeps polling", async () => {
    llm.addScript(secretLoginScript({ match: /\[process-stale\]/, siteUrl: site.url }));
    api = await startFakeApi({
      work: [work("Log in [process-stale]", { sensitiveData: { password: SITE_PASSWORD } })],
      eventsAnswer: { sessionStatus: "idle", currentTaskNumber: 1 },
    });
    await expect(start(api)).resolves.toBe(0);
    expect(api.paths()).not.toContain("POST /task-result");
    expect(api.paths().filter((path) => path === "GET /work")).toHaveLength(2);
  }, 60_000);
});
