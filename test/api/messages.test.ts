import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiHarness, type ApiHarness } from "../support/api-harness.js";

let api: ApiHarness;
let key: string;
let sessionId: string;
/** Message ids in creation order: the task message, then m1..m9. */
let ids: string[];

beforeAll(async () => {
  api = await startApiHarness();
  key = await api.newTenantKey();
  sessionId = (await api.call(key, "POST", "/v3/sessions", { task: "m0" })).body.id;
  const agent = api.agent(sessionId);
  for (let i = 1; i <= 9; i += 1) {
    await agent.request("POST", "/events", {
      events: [{ kind: "message", eventId: randomUUID(), taskNumber: 1, role: "ai", type: i % 2 ? "browser_action" : "planning", data: `m${i}`, summary: `m${i}`, hidden: i === 9 }],
    });
  }
  const all = await api.call(key, "GET", `/v3/sessions/${sessionId}/messages?limit=1000`);
  ids = all.body.messages.map((m: { id: string }) => m.id);
});
afterAll(async () => api?.close());

const page = async (query: string) => {
  const response = await api.call(key, "GET", `/v3/sessions/${sessionId}/messages${query}`);
  expect(response.status).toBe(200);
  return { data: response.body.messages.map((m: { data: string }) => m.data), hasMore: response.body.hasMore };
};

describe("listSessionMessages", () => {
  it("returns everything oldest first with ids sorting in creation order", async () => {
    expect(await page("")).toEqual({ data: ["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"], hasMore: false });
    expect([...ids].sort()).toEqual(ids);
    const last = (await api.call(key, "GET", `/v3/sessions/${sessionId}/messages`)).body.messages.at(-1);
    expect(last).toMatchObject({ sessionId, role: "ai", type: "browser_action", hidden: true, screenshotUrl: null, createdAt: expect.stringMatching(/Z$/) });
  });

  it("without a cursor gives the newest `limit`, hasMore when older exist", async () => {
    expect(await page("?limit=3")).toEqual({ data: ["m7", "m8", "m9"], hasMore: true });
    expect(await page("?limit=10")).toEqual({ data: ["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"], hasMore: false });
  });

  it("after=X gives the oldest `limit` newer than X, exclusive", async () => {
    expect(await page(`?after=${ids[2]}&limit=3`)).toEqual({ data: ["m3", "m4", "m5"], hasMore: true });
    expect(await page(`?after=${ids[6]}&limit=3`)).toEqual({ data: ["m7", "m8", "m9"], hasMore: false });
    expect(await page(`?after=${ids[9]}`)).toEqual({ data: [], hasMore: false });
  });

  it("before=X gives the newest `limit` older than X, exclusive", async () => {
    expect(await page(`?before=${ids[5]}&limit=2`)).toEqual({ data: ["m3", "m4"], hasMore: true });
    expect(await page(`?before=${ids[2]}&limit=5`)).toEqual({ data: ["m0", "m1"], hasMore: false });
  });

  it("after and before together give what lies strictly between", async () => {
    expect(await page(`?after=${ids[1]}&before=${ids[6]}`)).toEqual({ data: ["m2", "m3", "m4", "m5"], hasMore: false });
    expect(await page(`?after=${ids[1]}&before=${ids[6]}&limit=2`)).toEqual({ data: ["m2", "m3"], hasMore: true });
  });

  it("answers 422 invalid_cursor for an id that is not a message of this session", async () => {
    const other = (await api.call(key, "POST", "/v3/sessions", { task: "other" })).body.id;
    const otherMessage = (await api.call(key, "GET", `/v3/sessions/${other}/messages`)).body.messages[0].id;
    for (const cursor of [randomUUID(), otherMessage, "not-a-message"]) {
      for (const name of ["after", "before"]) {
        const response = await api.call(key, "GET", `/v3/sessions/${sessionId}/messages?${name}=${cursor}`);
        expect(response.status).toBe(422);
        expect(response.body.code).toBe("invalid_cursor");
      }
    }
  });

  it.each(["limit=0", "limit=1001", "limit=ten", `after=${"x".repeat(200)}`])("answers 422 ErrorEnvelope for %s", async (query) => {
    const response = await api.call(key, "GET", `/v3/sessions/${sessionId}/messages?${query}`);
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ code: "validation_error", resolution: expect.any(String) });
    expect(response.body.detail[0].loc[0]).toBe("query");
  });
});
