import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiHarness, type ApiHarness } from "../support/api-harness.js";

let api: ApiHarness;
let key: string;

beforeAll(async () => {
  api = await startApiHarness();
  key = await api.newTenantKey();
});
afterAll(async () => api?.close());

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectEnvelope(body: unknown, code: string) {
  expect(body).toMatchObject({ code, message: expect.any(String), resolution: expect.any(String) });
  expect(body).toHaveProperty("detail");
}

describe("createProfile", () => {
  it("creates an empty profile with no body, with {}, and with fields", async () => {
    const bare = await api.call(key, "POST", "/v3/profiles");
    expect(bare.status).toBe(201);
    expect(bare.body).toEqual({
      id: expect.stringMatching(UUID),
      userId: null,
      name: null,
      lastUsedAt: null,
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
      cookieDomains: [],
    });
    expect((await api.call(key, "POST", "/v3/profiles", {})).status).toBe(201);
    const named = await api.call(key, "POST", "/v3/profiles", { name: "Work", userId: "u-1", workspaceId: "ignored" });
    expect(named.status).toBe(201);
    expect(named.body).toMatchObject({ name: "Work", userId: "u-1" });
  });

  it("answers 422 ErrorEnvelope for wrong types and stores nothing", async () => {
    const before = (await api.call(key, "GET", "/v3/profiles")).body.totalItems;
    const response = await api.call(key, "POST", "/v3/profiles", { name: 42 });
    expect(response.status).toBe(422);
    expectEnvelope(response.body, "validation_error");
    expect(response.body.detail[0].loc).toEqual(["body", "name"]);
    expect((await api.call(key, "GET", "/v3/profiles")).body.totalItems).toBe(before);
  });
});

describe("listProfiles", () => {
  let listKey: string;
  const ids: string[] = [];
  beforeAll(async () => {
    listKey = await api.newTenantKey();
    for (const [name, userId] of [["Alpha Shop", "user-a"], ["beta", "user-b"], ["Gamma shop", null]] as const) {
      ids.push((await api.call(listKey, "POST", "/v3/profiles", { name, userId })).body.id);
    }
  });

  it("pages newest first with the contract's field names", async () => {
    const all = await api.call(listKey, "GET", "/v3/profiles");
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ totalItems: 3, pageNumber: 1, pageSize: 20 });
    expect(all.body.items.map((p: { id: string }) => p.id)).toEqual([...ids].reverse());
    const second = await api.call(listKey, "GET", "/v3/profiles?page=2&page_size=2");
    expect(second.body).toMatchObject({ totalItems: 3, pageNumber: 2, pageSize: 2 });
    expect(second.body.items.map((p: { id: string }) => p.id)).toEqual([ids[0]]);
  });

  it("narrows by name substring (any case), exact id or exact userId", async () => {
    const names = async (query: string) =>
      (await api.call(listKey, "GET", `/v3/profiles?query=${encodeURIComponent(query)}`)).body.items.map((p: { name: string }) => p.name);
    expect((await names("SHOP")).sort()).toEqual(["Alpha Shop", "Gamma shop"]);
    expect(await names(ids[1]!)).toEqual(["beta"]);
    expect(await names("user-a")).toEqual(["Alpha Shop"]);
    expect(await names("user")).toEqual([]);
  });

  it.each(["page=0", "page_size=0", "page_size=101", "page=abc", "page_size=1.5"])("rejects %s with 422 ErrorEnvelope", async (query) => {
    const response = await api.call(listKey, "GET", `/v3/profiles?${query}`);
    expect(response.status).toBe(422);
    expectEnvelope(response.body, "validation_error");
    expect(response.body.detail[0].loc[0]).toBe("query");
  });

  it("ignores unknown query parameters", async () => {
    expect((await api.call(listKey, "GET", "/v3/profiles?foo=bar")).status).toBe(200);
  });
});

describe("get, update, patch, delete", () => {
  it("404s unknown ids with an envelope, 422s malformed ids with HTTPValidationError", async () => {
    const missing = await api.call(key, "GET", "/v3/profiles/no-such-profile");
    expect(missing.status).toBe(404);
    expectEnvelope(missing.body, "profile_not_found");
    for (const bad of ["x".repeat(129), "bad%20id", "b@d"]) {
      const malformed = await api.call(key, "GET", `/v3/profiles/${bad}`);
      expect(malformed.status).toBe(422);
      expect(malformed.body.detail[0]).toMatchObject({ loc: ["path", "profile_id"], msg: expect.any(String), type: expect.any(String) });
      expect((await api.call(key, "DELETE", `/v3/profiles/${bad}`)).body.detail[0].loc).toEqual(["path", "profile_id"]);
    }
  });

  it.each(["PUT", "PATCH"])("%s applies only the fields present", async (method) => {
    const created = (await api.call(key, "POST", "/v3/profiles", { name: "n", userId: "u" })).body;
    const renamed = await api.call(key, method, `/v3/profiles/${created.id}`, { name: "renamed" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: created.id, name: "renamed", userId: "u" });
    const cleared = await api.call(key, method, `/v3/profiles/${created.id}`, { userId: null });
    expect(cleared.body).toMatchObject({ name: "renamed", userId: null });
    const bad = await api.call(key, method, `/v3/profiles/${created.id}`, { name: ["x"] });
    expect(bad.status).toBe(422);
    expectEnvelope(bad.body, "validation_error");
    expect((await api.call(key, "GET", `/v3/profiles/${created.id}`)).body.name).toBe("renamed");
    expect((await api.call(key, method, "/v3/profiles/unknown-id", { name: "x" })).status).toBe(404);
  });

  it("deletes with 204 and an empty body, then 404", async () => {
    const created = (await api.call(key, "POST", "/v3/profiles")).body;
    const deleted = await api.call(key, "DELETE", `/v3/profiles/${created.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect((await api.call(key, "GET", `/v3/profiles/${created.id}`)).status).toBe(404);
    expect((await api.call(key, "DELETE", `/v3/profiles/${created.id}`)).status).toBe(404);
  });
});

describe("putProfileStorageState", () => {
  const cookie = (domain: string, name = "sid") => ({ name, value: "v", domain, path: "/", expires: -1, httpOnly: true, secure: false, sameSite: "Lax" });

  it("imports into an existing profile and lists sorted distinct cookie domains", async () => {
    const created = (await api.call(key, "POST", "/v3/profiles")).body;
    const response = await api.call(key, "PUT", `/v3/profiles/${created.id}/storage-state`, {
      cookies: [cookie("b.example.com"), cookie(".a.example.com"), cookie("b.example.com", "other")],
      origins: [{ origin: "https://a.example.com", localStorage: [{ name: "k", value: "v" }] }],
    });
    expect(response.status).toBe(200);
    expect(response.body.cookieDomains).toEqual([".a.example.com", "b.example.com"]);
    const replaced = await api.call(key, "PUT", `/v3/profiles/${created.id}/storage-state`, { cookies: [] });
    expect(replaced.body.cookieDomains).toEqual([]);
  });

  it("creates the profile under the caller's id when it does not exist", async () => {
    const id = `my-profile.${Date.now()}`;
    const response = await api.call(key, "PUT", `/v3/profiles/${id}/storage-state`, { cookies: [cookie("x.test")] });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id, cookieDomains: ["x.test"], name: null });
    expect((await api.call(key, "GET", `/v3/profiles/${id}`)).status).toBe(200);
  });

  it.each([
    ["cookies not an array", { cookies: "nope" }],
    ["cookie without name", { cookies: [{ value: "v", domain: "a.test" }] }],
    ["cookie without domain", { cookies: [{ name: "n", value: "v" }] }],
    ["bad sameSite", { cookies: [{ ...cookie("a.test"), sameSite: "Sometimes" }] }],
    ["expires not a number", { cookies: [{ ...cookie("a.test"), expires: "tomorrow" }] }],
    ["origin not an origin", { origins: [{ origin: "not a url", localStorage: [] }] }],
    ["origin with a path", { origins: [{ origin: "https://a.test/path", localStorage: [] }] }],
    ["localStorage item without value", { origins: [{ origin: "https://a.test", localStorage: [{ name: "k" }] }] }],
  ])("answers 400 invalid_storage_state for %s and changes nothing", async (_label, body) => {
    const created = (await api.call(key, "POST", "/v3/profiles")).body;
    await api.call(key, "PUT", `/v3/profiles/${created.id}/storage-state`, { cookies: [cookie("keep.test")] });
    const response = await api.call(key, "PUT", `/v3/profiles/${created.id}/storage-state`, body);
    expect(response.status).toBe(400);
    expectEnvelope(response.body, "invalid_storage_state");
    expect((await api.call(key, "GET", `/v3/profiles/${created.id}`)).body.cookieDomains).toEqual(["keep.test"]);
    const fresh = `never-created-${Math.random().toString(36).slice(2)}`;
    expect((await api.call(key, "PUT", `/v3/profiles/${fresh}/storage-state`, body)).status).toBe(400);
    expect((await api.call(key, "GET", `/v3/profiles/${fresh}`)).status).toBe(404);
  });

  it("answers 400 for a state over 5 MiB and 413 for a body past the limit", async () => {
    const big = (bytes: number) => ({ cookies: [{ ...cookie("a.test"), value: "x".repeat(bytes) }] });
    const over = await api.call(key, "PUT", "/v3/profiles/big-one/storage-state", big(5 * 1024 * 1024 + 10));
    expect(over.status).toBe(400);
    expectEnvelope(over.body, "invalid_storage_state");
    const huge = await api.call(key, "PUT", "/v3/profiles/big-one/storage-state", big(9 * 1024 * 1024));
    expect(huge.status).toBe(413);
    expectEnvelope(huge.body, "payload_too_large");
    expect((await api.call(key, "GET", "/v3/profiles/big-one")).status).toBe(404);
  });

  it("answers 422 ErrorEnvelope for a malformed profile id", async () => {
    const response = await api.call(key, "PUT", `/v3/profiles/${"y".repeat(200)}/storage-state`, {});
    expect(response.status).toBe(422);
    expectEnvelope(response.body, "validation_error");
  });
});
