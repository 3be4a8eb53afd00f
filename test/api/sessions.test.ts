import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiHarness, type ApiHarness } from "../support/api-harness.js";

let api: ApiHarness;
let key: string;

const catalog = JSON.stringify({
  models: [
    { name: "default-model", baseUrl: "http://127.0.0.1:9/v1", efforts: ["none", "low"], recommendedEffort: "none" },
    { name: "thinker", baseUrl: "http://127.0.0.1:9/v1", efforts: ["low", "medium", "high"], recommendedEffort: "medium", inputPricePerMillionUsd: "2", outputPricePerMillionUsd: "8" },
  ],
});

beforeAll(async () => {
  api = await startApiHarness({ MODEL_CATALOG: catalog, DEFAULT_MODEL: "default-model" });
  key = await api.newTenantKey();
});
afterAll(async () => api?.close());

const create = (body?: unknown) => api.call(key, "POST", "/v3/sessions", body);

function expectEnvelope(body: unknown, code: string) {
  expect(body).toMatchObject({ code, message: expect.any(String), resolution: expect.any(String) });
  expect(body).toHaveProperty("detail");
}

async function endSession(id: string) {
  await api.call(key, "POST", `/v3/sessions/${id}/stop`);
}

describe("createSession", () => {
  it("with no body starts a created session with every contract field", async () => {
    const response = await create();
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      status: "created",
      model: "default-model",
      title: null,
      output: null,
      outputSchema: null,
      stepCount: 0,
      lastStepSummary: null,
      isTaskSuccessful: null,
      liveUrl: null,
      recordingUrls: [],
      profileId: null,
      workspaceId: null,
      proxyCountryCode: null,
      maxCostUsd: null,
      totalInputTokens: 0,
      totalOutputTokens: 0,
      llmCostUsd: "0",
      proxyCostUsd: "0",
      browserCostUsd: "0",
      proxyUsedMb: "0",
      totalCostUsd: "0",
      screenshotUrl: null,
      reasoningEffort: "default",
      failureKind: null,
      failureStatusCode: null,
      inboxEmail: null,
      integrationsUsed: [],
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect((await create({})).body.status).toBe("created");
  });

  it("with a task answers running at once and records the task as the first message", async () => {
    const response = await create({ task: "Find the price", maxCostUsd: 0.5, outputSchema: { type: "object" }, proxyCountryCode: "us" });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: "running", title: "Find the price", maxCostUsd: "0.5", outputSchema: { type: "object" }, proxyCountryCode: "us" });
    const messages = await api.call(key, "GET", `/v3/sessions/${response.body.id}/messages`);
    expect(messages.body.messages).toEqual([
      expect.objectContaining({ role: "human", type: "user_message", data: "Find the price", summary: "Find the price", hidden: false, screenshotUrl: null }),
    ]);
  });

  it("accepts maxCostUsd as a decimal string and ignores client-library fields", async () => {
    const response = await create({
      task: "t",
      maxCostUsd: "1.25",
      thinkingLevel: "high",
      workspaceId: "w",
      browserScreenWidth: 1024,
      agentmail: true,
      useOwnKey: false,
      skills: false,
      enableRecording: true,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ maxCostUsd: "1.25", workspaceId: null, recordingUrls: [] });
  });

  it.each([
    ["maxCostUsd 0", { maxCostUsd: 0 }, ["body", "maxCostUsd"]],
    ["maxCostUsd negative", { maxCostUsd: -1 }, ["body", "maxCostUsd"]],
    ["maxCostUsd text", { maxCostUsd: "cheap" }, ["body", "maxCostUsd"]],
    ["keepAlive not boolean", { keepAlive: "yes" }, ["body", "keepAlive"]],
    ["task not string", { task: 5 }, ["body", "task"]],
    ["sensitiveData values not strings", { sensitiveData: { a: 1 } }, ["body", "sensitiveData", "a"]],
    ["outputSchema not an object", { outputSchema: "string" }, ["body", "outputSchema"]],
    ["outputSchema not a JSON Schema", { outputSchema: { type: "thing" } }, ["body", "outputSchema"]],
    ["sessionId without task", { sessionId: "00000000-0000-4000-8000-000000000000" }, ["body", "task"]],
  ])("answers 422 ErrorEnvelope for %s and stores nothing", async (_label, body, loc) => {
    const before = (await api.call(key, "GET", "/v3/sessions")).body.total;
    const response = await create(body);
    expect(response.status).toBe(422);
    expectEnvelope(response.body, "validation_error");
    expect(response.body.detail[0].loc).toEqual(loc);
    expect((await api.call(key, "GET", "/v3/sessions")).body.total).toBe(before);
  });

  it("validates the model and reasoning effort against the catalog", async () => {
    const unknown = await create({ task: "t", model: "gpt-nope" });
    expect(unknown.status).toBe(422);
    expectEnvelope(unknown.body, "unknown_model");
    for (const effort of ["ultra", "medium"]) {
      const bad = await create({ task: "t", reasoningEffort: effort });
      expect(bad.status).toBe(422);
      expectEnvelope(bad.body, "invalid_reasoning_effort");
    }
    const thinker = await create({ task: "t", model: "thinker", reasoningEffort: "high" });
    expect(thinker.body).toMatchObject({ model: "thinker", reasoningEffort: "high" });
    const byDefault = await create({ task: "t", model: "thinker" });
    expect(byDefault.body.reasoningEffort).toBe("default");
  });

  it("answers 404 for a profile or session of nobody, and uses a profile it knows", async () => {
    const noProfile = await create({ task: "t", profileId: "missing-profile" });
    expect(noProfile.status).toBe(404);
    expectEnvelope(noProfile.body, "profile_not_found");
    const noSession = await create({ task: "t", sessionId: "0192aaaa-0000-7000-8000-000000000000" });
    expect(noSession.status).toBe(404);
    expectEnvelope(noSession.body, "session_not_found");

    const profile = (await api.call(key, "POST", "/v3/profiles")).body;
    expect(profile.lastUsedAt).toBeNull();
    const session = await create({ task: "t", profileId: profile.id });
    expect(session.body.profileId).toBe(profile.id);
    expect((await api.call(key, "GET", `/v3/profiles/${profile.id}`)).body.lastUsedAt).toMatch(/Z$/);
  });

  it("answers 409 session_busy for a running session and session_not_idle for an ended one", async () => {
    const running = (await create({ task: "first" })).body;
    const busy = await create({ task: "second", sessionId: running.id });
    expect(busy.status).toBe(409);
    expectEnvelope(busy.body, "session_busy");
    await endSession(running.id);
    const ended = await create({ task: "second", sessionId: running.id });
    expect(ended.status).toBe(409);
    expectEnvelope(ended.body, "session_not_idle");
  });

  it("answers 422 for malformed JSON and 413 for a body over the limit, storing nothing", async () => {
    const before = (await api.call(key, "GET", "/v3/sessions")).body.total;
    const malformed = await create('{"task": ');
    expect(malformed.status).toBe(422);
    expectEnvelope(malformed.body, "validation_error");
    const huge = await create({ task: "x".repeat(2 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expectEnvelope(huge.body, "payload_too_large");
    expect((await api.call(key, "GET", "/v3/sessions")).body.total).toBe(before);
  });
});

describe("listSessions", () => {
  it("pages newest first, running and finished together", async () => {
    const listKey = await api.newTenantKey();
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await api.call(listKey, "POST", "/v3/sessions", { task: `t${i}` })).body.id);
    await api.call(listKey, "POST", `/v3/sessions/${ids[0]}/stop`);
    const all = await api.call(listKey, "GET", "/v3/sessions");
    expect(all.body).toMatchObject({ total: 3, page: 1, pageSize: 20 });
    expect(all.body.sessions.map((s: { id: string }) => s.id)).toEqual([...ids].reverse());
    expect(all.body.sessions.map((s: { status: string }) => s.status)).toEqual(["running", "running", "stopped"]);
    const paged = await api.call(listKey, "GET", "/v3/sessions?page=2&page_size=2");
    expect(paged.body).toMatchObject({ total: 3, page: 2, pageSize: 2 });
    expect(paged.body.sessions.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
  });

  it.each(["page=0", "page_size=0", "page_size=101", "page=x", "page=-1"])("rejects %s with 422 ErrorEnvelope", async (query) => {
    const response = await api.call(key, "GET", `/v3/sessions?${query}`);
    expect(response.status).toBe(422);
    expectEnvelope(response.body, "validation_error");
  });
});

describe("getSession, deleteSession", () => {
  it("404 for unknown or non-UUID ids, 422 HTTPValidationError for malformed ids", async () => {
    for (const id of ["0192aaaa-0000-7000-8000-000000000000", "not-a-uuid"]) {
      const response = await api.call(key, "GET", `/v3/sessions/${id}`);
      expect(response.status).toBe(404);
      expectEnvelope(response.body, "session_not_found");
    }
    for (const [method, suffix] of [["GET", ""], ["DELETE", ""], ["POST", "/stop"]] as const) {
      const response = await api.call(key, method, `/v3/sessions/${"z".repeat(129)}${suffix}`);
      expect(response.status).toBe(422);
      expect(response.body).toEqual({ detail: [expect.objectContaining({ loc: ["path", "session_id"], msg: expect.any(String), type: expect.any(String) })] });
    }
    const messages = await api.call(key, "GET", `/v3/sessions/${"z".repeat(129)}/messages`);
    expect(messages.status).toBe(422);
    expectEnvelope(messages.body, "validation_error");
  });

  it("deletes a running session and everything stored against it", async () => {
    const session = (await create({ task: "t" })).body;
    const deleted = await api.call(key, "DELETE", `/v3/sessions/${session.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect((await api.call(key, "GET", `/v3/sessions/${session.id}`)).status).toBe(404);
    expect((await api.call(key, "GET", `/v3/sessions/${session.id}/messages`)).status).toBe(404);
    expect((await api.call(key, "DELETE", `/v3/sessions/${session.id}`)).status).toBe(404);
    expect(await api.service.db.message.count({ where: { sessionId: session.id } })).toBe(0);
  });
});

describe("stopSession", () => {
  it("accepts no body, no content type and Content-Length 0", async () => {
    const session = (await create({ task: "t" })).body;
    const response = await fetch(`${api.url}/v3/sessions/${session.id}/stop`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-length": "0" },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: session.id, status: "stopped", isTaskSuccessful: false, failureKind: "cancelled" });
  });

  it("accepts a JSON content type with an empty body", async () => {
    const session = (await create()).body;
    const response = await api.call(key, "POST", `/v3/sessions/${session.id}/stop`, "", { "content-type": "application/json" });
    expect(response.status).toBe(200);
    expect(response.body.status).toBe("stopped");
  });

  it("strategy task moves a running session to idle; stopping an ended session changes nothing", async () => {
    const session = (await create({ task: "t" })).body;
    const idle = await api.call(key, "POST", `/v3/sessions/${session.id}/stop`, { strategy: "task" });
    expect(idle.body).toMatchObject({ status: "idle", isTaskSuccessful: false, failureKind: "cancelled" });
    const stopped = await api.call(key, "POST", `/v3/sessions/${session.id}/stop`, { strategy: "session" });
    expect(stopped.body.status).toBe("stopped");
    for (const strategy of ["session", "task"]) {
      const again = await api.call(key, "POST", `/v3/sessions/${session.id}/stop`, { strategy });
      expect(again.status).toBe(200);
      expect(again.body.status).toBe("stopped");
      expect(again.body.updatedAt).toBe(stopped.body.updatedAt);
    }
  });

  it("answers 422 HTTPValidationError for an unknown strategy and 404 for an unknown session", async () => {
    const session = (await create({ task: "t" })).body;
    const bad = await api.call(key, "POST", `/v3/sessions/${session.id}/stop`, { strategy: "everything" });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "strategy"]);
    expect((await api.call(key, "GET", `/v3/sessions/${session.id}`)).body.status).toBe("running");
    expect((await api.call(key, "POST", "/v3/sessions/0192aaaa-0000-7000-8000-000000000000/stop")).status).toBe(404);
  });
});
