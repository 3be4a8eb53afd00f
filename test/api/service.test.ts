import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiHarness, type ApiHarness } from "../support/api-harness.js";

let api: ApiHarness;

beforeAll(async () => {
  api = await startApiHarness();
});
afterAll(async () => api?.close());

describe("around the API", () => {
  it("serves an OpenAPI 3 document with every operation of the contract", async () => {
    const response = await fetch(`${api.url}/openapi.json`);
    expect(response.status).toBe(200);
    const document = await response.json();
    expect(document.openapi).toMatch(/^3\./);
    expect(document.info.version).toBe("1.12.0");
    const operations = Object.values(document.paths as Record<string, Record<string, { operationId?: string }>>)
      .flatMap((methods) => Object.values(methods).map((operation) => operation.operationId))
      .sort();
    expect(operations).toEqual(
      [
        "createProfile", "listProfiles", "getProfile", "updateProfile", "patchProfile", "deleteProfile", "putProfileStorageState",
        "createSession", "listSessions", "getSession", "deleteSession", "listSessionMessages", "stopSession",
      ].sort(),
    );
    expect(Object.keys(document.paths).every((path: string) => path.startsWith("/v3/"))).toBe(true);
    const createBody = document.paths["/v3/sessions"].post.requestBody.content["application/json"].schema;
    expect(createBody.$ref).toBe("#/components/schemas/RunTaskRequest");
    expect(Object.keys(document.components.schemas.RunTaskRequest.properties)).toEqual(
      expect.arrayContaining(["task", "model", "sessionId", "keepAlive", "maxCostUsd", "profileId", "outputSchema", "sensitiveData", "reasoningEffort"]),
    );
    expect(document.components.schemas).toHaveProperty("SessionResponse");
    expect(document.components.schemas).toHaveProperty("ErrorEnvelope");
  });

  it("answers health and readiness", async () => {
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${api.url}/readyz`)).json()).toEqual({ status: "ready" });
  });

  it("answers unknown routes with a 404 envelope", async () => {
    const key = await api.newTenantKey();
    const response = await api.call(key, "GET", "/v3/nothing-here");
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: "not_found", resolution: expect.any(String) });
  });
});
