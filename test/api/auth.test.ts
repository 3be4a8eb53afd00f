import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeApiKey } from "../../api/src/tenants/api-keys.js";
import { startApiHarness, type ApiHarness } from "../support/api-harness.js";

let api: ApiHarness;

beforeAll(async () => {
  api = await startApiHarness({ AUTH_FAILURE_LIMIT: "10", AUTH_FAILURE_WINDOW_SECONDS: "60" });
});
afterAll(async () => api?.close());

const raw = (path: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
  fetch(`${api.url}${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) } });

describe("credentials", () => {
  it("accepts the key as Bearer or in X-Browser-Use-API-Key, and ignores x-service-api-key", async () => {
    const key = await api.newTenantKey();
    expect((await raw("/v3/sessions", { authorization: `Bearer ${key}` })).status).toBe(200);
    expect((await raw("/v3/sessions", { "x-browser-use-api-key": key })).status).toBe(200);
    expect((await raw("/v3/sessions", { "x-browser-use-api-key": key, authorization: `Bearer ${key}`, "x-service-api-key": "whatever" })).status).toBe(200);
  });

  it("answers 401 with an envelope for a missing, wrong, conflicting, basic or revoked credential", async () => {
    const key = await api.newTenantKey();
    const other = await api.newTenantKey();
    const cases: Record<string, string>[] = [
      {},
      { authorization: "Bearer bu_wrong" },
      { authorization: `Bearer ${key}`, "x-browser-use-api-key": other },
      { authorization: `Basic ${Buffer.from(`user:${key}`).toString("base64")}` },
      { "x-service-api-key": key },
    ];
    for (const headers of cases) {
      const response = await raw("/v3/profiles", headers);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: "unauthorized", message: expect.any(String), resolution: expect.any(String), detail: null });
    }
    const keyId = (await api.service.db.apiKey.findFirstOrThrow({ where: { keyPrefix: key.slice(0, 10) } })).id;
    expect(await revokeApiKey(api.service.db, keyId)).toBe(true);
    expect((await raw("/v3/profiles", { authorization: `Bearer ${key}` })).status).toBe(401);
  });

  it("records when a key was last used", async () => {
    const key = await api.newTenantKey();
    const row = () => api.service.db.apiKey.findFirstOrThrow({ where: { keyPrefix: key.slice(0, 10) } });
    expect((await row()).lastUsedAt).toBeNull();
    await raw("/v3/sessions", { authorization: `Bearer ${key}` });
    await expect.poll(async () => (await row()).lastUsedAt).not.toBeNull();
  });

  it("stores keys only as hashes", async () => {
    const key = await api.newTenantKey();
    const rows = await api.service.db.apiKey.findMany();
    expect(JSON.stringify(rows)).not.toContain(key);
  });
});

describe("tenant isolation", () => {
  it("answers 404 on every endpoint for another tenant's session and profile", async () => {
    const alice = await api.newTenantKey();
    const bob = await api.newTenantKey();
    const session = (await api.call(alice, "POST", "/v3/sessions", { task: "alice's" })).body;
    const profile = (await api.call(alice, "POST", "/v3/profiles", { name: "alice" })).body;

    const probes: [string, string, unknown?][] = [
      ["GET", `/v3/sessions/${session.id}`],
      ["GET", `/v3/sessions/${session.id}/messages`],
      ["POST", `/v3/sessions/${session.id}/stop`],
      ["DELETE", `/v3/sessions/${session.id}`],
      ["GET", `/v3/profiles/${profile.id}`],
      ["PUT", `/v3/profiles/${profile.id}`, { name: "bob" }],
      ["PATCH", `/v3/profiles/${profile.id}`, { name: "bob" }],
      ["DELETE", `/v3/profiles/${profile.id}`],
      ["POST", "/v3/sessions", { task: "x", profileId: profile.id }],
      ["POST", "/v3/sessions", { task: "x", sessionId: session.id }],
    ];
    for (const [method, path, body] of probes) {
      const response = await api.call(bob, method, path, body);
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expect((await api.call(bob, "GET", "/v3/sessions")).body.total).toBe(0);
    expect((await api.call(bob, "GET", "/v3/profiles")).body.totalItems).toBe(0);

    const bobsOwn = await api.call(bob, "PUT", `/v3/profiles/${profile.id}/storage-state`, { cookies: [{ name: "n", value: "v", domain: "bob.test" }] });
    expect(bobsOwn.status).toBe(200);
    expect((await api.call(alice, "GET", `/v3/profiles/${profile.id}`)).body).toMatchObject({ name: "alice", cookieDomains: [] });
    expect((await api.call(alice, "GET", `/v3/sessions/${session.id}`)).body.status).toBe("running");
  });
});

describe("failed-attempt rate limit", () => {
  it("answers 429 with Retry-After after 10 failures, even to a valid key from that address", async () => {
    const limited = await startApiHarness({ AUTH_FAILURE_LIMIT: "10", AUTH_FAILURE_WINDOW_SECONDS: "60" });
    try {
      const key = await limited.newTenantKey();
      for (let i = 0; i < 10; i += 1) {
        expect((await limited.call("bu_wrong", "GET", "/v3/sessions")).status).toBe(401);
      }
      const blocked = await limited.call("bu_wrong", "GET", "/v3/sessions");
      expect(blocked.status).toBe(429);
      expect(blocked.body).toMatchObject({ code: "rate_limited", resolution: expect.any(String) });
      const retryAfter = Number(blocked.headers.get("retry-after"));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect((await limited.call(key, "GET", "/v3/sessions")).status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it("never limits valid keys from an address that is not blocked", async () => {
    const key = await api.newTenantKey();
    for (let i = 0; i < 30; i += 1) expect((await api.call(key, "GET", "/v3/profiles")).status).toBe(200);
  });
});
