import { fileURLToPath } from "node:url";
import { CustomObjectsApi } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCrdFile, startFakeKube, type FakeKube } from "../fake-kube/index.js";
import { failureStatus } from "../fake-kube/test-support.js";

const CRD = fileURLToPath(new URL("../../crds/agentsession.yaml", import.meta.url));
const coordinates = { group: "browser-agents.dev", version: "v1alpha1", plural: "agentsessions", namespace: "default" } as const;

let kube: FakeKube;
let api: CustomObjectsApi;

beforeAll(async () => {
  kube = await startFakeKube({ crds: await readCrdFile(CRD) });
  api = kube.kubeConfig.makeApiClient(CustomObjectsApi);
});

afterAll(async () => {
  await kube.close();
});

const validSpec = {
  sessionId: "0f0e0d0c-0b0a-4908-8706-050403020100",
  tenant: "a1b2c3d4-0000-4000-8000-000000000001",
  desiredState: "run",
  apiUrl: "http://api.browser-agents:8080",
  image: "registry.example/agent-pod:1",
  resources: { requests: { cpu: "500m", memory: "1Gi" }, limits: { cpu: "2", memory: "2Gi" } },
  activeDeadlineSeconds: 3600,
  terminationGracePeriodSeconds: 30,
};

function agentSession(name: string, spec: Record<string, unknown>) {
  return { apiVersion: "browser-agents.dev/v1alpha1", kind: "AgentSession", metadata: { name }, spec };
}

describe("the AgentSession CRD schema", () => {
  it("accepts a well-formed AgentSession", async () => {
    const created = (await api.createNamespacedCustomObject({ ...coordinates, body: agentSession("good", validSpec) })) as { spec: unknown };
    expect(created.spec).toEqual(validSpec);
  });

  it.each([
    ["a missing sessionId", { sessionId: undefined }, "spec.sessionId"],
    ["a sessionId that is not a UUID", { sessionId: "not-a-uuid" }, "spec.sessionId"],
    ["an unknown desiredState", { desiredState: "pause" }, "spec.desiredState"],
    ["a tenant that cannot be a label value", { tenant: "Acme Inc." }, "spec.tenant"],
    ["an apiUrl that is not http(s)", { apiUrl: "ftp://api" }, "spec.apiUrl"],
    ["a malformed memory quantity", { resources: { limits: { memory: "lots" } } }, "spec.resources.limits.memory"],
    ["a deadline of zero", { activeDeadlineSeconds: 0 }, "spec.activeDeadlineSeconds"],
    ["a deadline that is not an integer", { activeDeadlineSeconds: "soon" }, "spec.activeDeadlineSeconds"],
    ["a missing image", { image: undefined }, "spec.image"],
  ])("rejects %s", async (_what, change, field) => {
    const spec = Object.fromEntries(Object.entries({ ...validSpec, ...change }).filter(([, value]) => value !== undefined));
    const status = await failureStatus(api.createNamespacedCustomObject({ ...coordinates, body: agentSession("bad", spec) }));
    expect(status.code).toBe(422);
    expect(status.message).toContain(`${field}:`);
  });

  it("rejects an unknown status phase on the status subresource", async () => {
    const created = (await api.createNamespacedCustomObject({ ...coordinates, body: agentSession("status-check", validSpec) })) as {
      metadata: Record<string, unknown>;
    };
    const status = await failureStatus(
      api.replaceNamespacedCustomObjectStatus({
        ...coordinates,
        name: "status-check",
        body: { ...created, status: { phase: "Exploded" } },
      }),
    );
    expect(status.code).toBe(422);
    expect(status.message).toContain("status.phase:");
  });
});
