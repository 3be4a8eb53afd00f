import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiHarness, type ApiHarness } from "../support/api-harness.js";

let api: ApiHarness;
let key: string;

beforeAll(async () => {
  api = await startApiHarness({
    MODEL_CATALOG: JSON.stringify({
      models: [{ name: "m", providerModel: "provider-m", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "M_KEY", efforts: ["none", "low"], recommendedEffort: "low", inputPricePerMillionUsd: "1", outputPricePerMillionUsd: "2" }],
    }),
    M_KEY: "provider-secret",
    DEFAULT_MODEL: "m",
    MAX_STEPS: "7",
    SESSION_IDLE_TIMEOUT_SECONDS: "60",
    SESSION_MAX_DURATION_SECONDS: "120",
  });
  key = await api.newTenantKey();
});
afterAll(async () => api?.close());

const create = async (body?: unknown) => (await api.call(key, "POST", "/v3/sessions", body)).body;
const get = async (id: string) => (await api.call(key, "GET", `/v3/sessions/${id}`)).body;
const message = (taskNumber: number, summary: string, type = "browser_action") => ({
  kind: "message",
  eventId: randomUUID(),
  taskNumber,
  role: "ai",
  type,
  data: JSON.stringify({ summary }),
  summary,
});

describe("a task from start to finish", () => {
  it("hands out the work, counts steps, tokens and cost, and stops on the result", async () => {
    const session = await create({ task: "Buy milk", sensitiveData: { pw: "hunter2" }, outputSchema: { type: "object" }, systemPromptExtension: "Be brief." });
    const agent = api.agent(session.id);

    expect((await agent.request("GET", "/bootstrap")).body).toEqual({ sessionId: session.id, profileId: null, storageState: null });
    const work = await agent.request("GET", "/work?waitSeconds=0");
    expect(work.body).toEqual({
      action: "run",
      work: {
        taskNumber: 1,
        task: "Buy milk",
        model: { name: "m", providerModel: "provider-m", baseUrl: "http://127.0.0.1:9/v1", apiKey: "provider-secret", reasoningEffort: "low", inputPricePerMillionUsd: "1", outputPricePerMillionUsd: "2" },
        outputSchema: { type: "object" },
        sensitiveData: { pw: "hunter2" },
        systemPromptExtension: "Be brief.",
        maxCostUsd: null,
        spentCostUsd: "0",
        maxSteps: 7,
        keepAlive: false,
      },
    });

    const batch = {
      events: [
        message(1, "Clicking element #5: Sign in"),
        { kind: "step", eventId: randomUUID(), taskNumber: 1, stepNumber: 1, summary: "Signed in" },
        { kind: "usage", eventId: randomUUID(), taskNumber: 1, inputTokens: 1000, outputTokens: 200, costUsd: "0.0014" },
      ],
    };
    const first = await agent.request("POST", "/events", batch);
    expect(first.body).toEqual({ applied: 3, duplicates: 0, stale: 0, sessionStatus: "running", currentTaskNumber: 1 });
    const retried = await agent.request("POST", "/events", batch);
    expect(retried.body).toMatchObject({ applied: 0, duplicates: 3 });

    expect(await get(session.id)).toMatchObject({
      status: "running",
      stepCount: 1,
      lastStepSummary: "Signed in",
      totalInputTokens: 1000,
      totalOutputTokens: 200,
      llmCostUsd: "0.0014",
      totalCostUsd: "0.0014",
    });

    const result = await agent.request("POST", "/task-result", { taskNumber: 1, output: { price: 3 }, isTaskSuccessful: true });
    expect(result.body).toEqual({ status: "stopped", applied: true });
    expect((await agent.request("POST", "/task-result", { taskNumber: 1, output: null, isTaskSuccessful: false })).body).toEqual({ status: "stopped", applied: false });
    expect(await get(session.id)).toMatchObject({ status: "stopped", output: { price: 3 }, isTaskSuccessful: true, failureKind: null });
    expect((await agent.request("GET", "/work?waitSeconds=0")).body).toEqual({ action: "exit", reason: "the session is stopped" });

    const stored = await api.service.db.session.findUniqueOrThrow({ where: { id: session.id } });
    expect(stored.sensitiveData).toBeNull();
    const messages = (await api.call(key, "GET", `/v3/sessions/${session.id}/messages`)).body.messages;
    expect(messages.map((m: { type: string }) => m.type)).toEqual(["user_message", "browser_action"]);
  });

  it("keepAlive leaves the session idle; new work runs in it with per-task fields reset and totals kept", async () => {
    const session = await create({ task: "first", keepAlive: true });
    const agent = api.agent(session.id);
    await agent.request("POST", "/events", { events: [{ kind: "step", eventId: randomUUID(), taskNumber: 1, stepNumber: 1, summary: "one" }] });
    await agent.request("POST", "/task-result", { taskNumber: 1, output: "done", isTaskSuccessful: true });
    expect(await get(session.id)).toMatchObject({ status: "idle", output: "done", stepCount: 1 });

    const waiting = agent.request("GET", "/work?waitSeconds=20");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const followUp = await api.call(key, "POST", "/v3/sessions", { sessionId: session.id, task: "second", keepAlive: true });
    expect(followUp.status).toBe(200);
    expect(followUp.body).toMatchObject({ id: session.id, status: "running", output: null, isTaskSuccessful: null, lastStepSummary: null, stepCount: 1 });
    const woke = await waiting;
    expect(woke.body).toMatchObject({ action: "run", work: { taskNumber: 2, task: "second" } });

    const late = await agent.request("POST", "/events", { events: [{ kind: "step", eventId: randomUUID(), taskNumber: 1, stepNumber: 2, summary: "late" }] });
    expect(late.body).toMatchObject({ applied: 1, stale: 1, currentTaskNumber: 2 });
    expect((await get(session.id)).lastStepSummary).toBeNull();
    const humans = (await api.call(key, "GET", `/v3/sessions/${session.id}/messages`)).body.messages.filter((m: { role: string }) => m.role === "human");
    expect(humans.map((m: { data: string }) => m.data)).toEqual(["first", "second"]);
  });

  it("a session created without a task becomes idle when its browser is ready", async () => {
    const session = await create();
    expect(session.status).toBe("created");
    const agent = api.agent(session.id);
    expect((await agent.request("GET", "/work?waitSeconds=0")).body).toEqual({ action: "wait" });
    expect((await agent.request("POST", "/ready", { devtoolsPort: 9333 })).status).toBe(204);
    expect((await get(session.id)).status).toBe("idle");
    await agent.request("POST", "/ready", {});
    expect((await get(session.id)).status).toBe("idle");
  });

  it("stops a running task when the stop arrives first, and ignores the late result", async () => {
    const session = await create({ task: "t" });
    const agent = api.agent(session.id);
    await api.call(key, "POST", `/v3/sessions/${session.id}/stop`);
    const late = await agent.request("POST", "/task-result", { taskNumber: 1, output: "x", isTaskSuccessful: true });
    expect(late.body).toEqual({ status: "stopped", applied: false });
    expect(await get(session.id)).toMatchObject({ status: "stopped", failureKind: "cancelled", output: null });
    const events = await agent.request("POST", "/events", { events: [message(1, "after stop")] });
    expect(events.body).toMatchObject({ applied: 1, sessionStatus: "stopped" });
  });

  it("two writers racing (result and stop) move the session along exactly one path", async () => {
    for (let i = 0; i < 10; i += 1) {
      const session = await create({ task: "race", keepAlive: true });
      const agent = api.agent(session.id);
      const [result, stop] = await Promise.all([
        agent.request("POST", "/task-result", { taskNumber: 1, output: "won", isTaskSuccessful: true }),
        api.call(key, "POST", `/v3/sessions/${session.id}/stop`, { strategy: "task" }),
      ]);
      const final = await get(session.id);
      expect(final.status).toBe("idle");
      if (result.body.applied) expect(final).toMatchObject({ output: "won", isTaskSuccessful: true });
      else expect(final).toMatchObject({ output: null, failureKind: "cancelled" });
      expect(stop.status).toBe(200);
    }
  });

  it("an agent failure ends the session in error with the reason as a message", async () => {
    const session = await create({ task: "t" });
    const agent = api.agent(session.id);
    const failed = await agent.request("POST", "/failure", { failureKind: "llm_error", failureStatusCode: 401, message: "The model provider refused the credentials" });
    expect(failed.status).toBe(204);
    expect(await get(session.id)).toMatchObject({ status: "error", failureKind: "llm_error", failureStatusCode: 401, isTaskSuccessful: false });
    const messages = (await api.call(key, "GET", `/v3/sessions/${session.id}/messages`)).body.messages;
    expect(messages.at(-1)).toMatchObject({ role: "ai", type: "error", summary: "The model provider refused the credentials" });
    expect((await agent.request("GET", "/work?waitSeconds=0")).body.action).toBe("exit");
  });

  it("times out idle sessions and sessions running past the time limit", async () => {
    const idle = await create({ task: "t", keepAlive: true });
    await api.agent(idle.id).request("POST", "/task-result", { taskNumber: 1, output: null, isTaskSuccessful: true });
    const running = await create({ task: "t" });
    const ended = await api.service.sessions.sweepTimeouts(new Date(Date.now() + 121_000));
    expect(ended).toBeGreaterThanOrEqual(2);
    expect(await get(idle.id)).toMatchObject({ status: "timed_out", failureKind: null, isTaskSuccessful: true });
    expect(await get(running.id)).toMatchObject({ status: "timed_out", failureKind: "timed_out", isTaskSuccessful: false });
  });
});

describe("profile write-back", () => {
  const state = { cookies: [{ name: "sid", value: "abc", domain: "shop.test", path: "/", expires: -1, httpOnly: true, secure: false, sameSite: "Lax" }], origins: [] };

  it("starts from the profile's state and writes the browser's state back", async () => {
    const profile = (await api.call(key, "PUT", `/v3/profiles/wb-${Date.now()}/storage-state`, { cookies: [] })).body;
    const session = await create({ task: "log in", profileId: profile.id });
    const agent = api.agent(session.id);
    expect((await agent.request("GET", "/bootstrap")).body).toMatchObject({ profileId: profile.id, storageState: { cookies: [], origins: [] } });
    expect((await agent.request("PUT", "/storage-state", state)).body).toEqual({ written: true });
    expect((await api.call(key, "GET", `/v3/profiles/${profile.id}`)).body.cookieDomains).toEqual(["shop.test"]);
    const invalid = await agent.request("PUT", "/storage-state", { cookies: [{ name: "x" }] });
    expect(invalid.status).toBe(400);
  });

  it("does not recreate a profile deleted while the session runs", async () => {
    const profile = (await api.call(key, "POST", "/v3/profiles")).body;
    const session = await create({ task: "t", profileId: profile.id });
    await api.call(key, "DELETE", `/v3/profiles/${profile.id}`);
    expect((await api.agent(session.id).request("PUT", "/storage-state", state)).body).toEqual({ written: false });
    expect((await api.call(key, "GET", `/v3/profiles/${profile.id}`)).status).toBe(404);
    expect((await get(session.id)).status).toBe("running");
  });
});

describe("credentials", () => {
  it("accepts only the session's own credential on the agent routes", async () => {
    const mine = await create({ task: "t" });
    const other = await create({ task: "t" });
    const url = `${api.url}/agent/v1/sessions/${mine.id}/work?waitSeconds=0`;
    const withToken = (token: string) => fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect((await withToken(api.agentToken(mine.id))).status).toBe(200);
    expect((await withToken(api.agentToken(other.id))).status).toBe(401);
    expect((await withToken(key)).status).toBe(401);
    expect((await fetch(url)).status).toBe(401);
  });

  it("never accepts an agent credential on /v3", async () => {
    const session = await create({ task: "t" });
    const response = await api.call(api.agentToken(session.id), "GET", `/v3/sessions/${session.id}`);
    expect(response.status).toBe(401);
    expect(response.body.code).toBe("unauthorized");
  });
});
