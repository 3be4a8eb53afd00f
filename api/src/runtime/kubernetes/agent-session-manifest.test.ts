import { AgentSessionSchema, LABEL_SESSION_ID, LABEL_TENANT } from "@browser-agents/protocol";
import { describe, expect, it } from "vitest";
import { ANNOTATION_TENANT_NAME, buildAgentSession } from "./agent-session-manifest.js";

const ref = { id: "0f0e0d0c-0b0a-4908-8706-050403020100", tenantId: "a1b2c3d4-0000-4000-8000-000000000001", tenantName: "Acme Inc." };

describe("buildAgentSession", () => {
  it("asks for a run of the session's agent, named and labelled after the session", () => {
    const session = buildAgentSession(ref, {
      apiUrlForAgents: "http://api.browser-agents:8080",
      agentImage: "registry.example/agent-pod:1",
      podResources: { limits: { memory: "2Gi" } },
      activeDeadlineSeconds: 4500,
    });
    expect(AgentSessionSchema.parse(session)).toEqual(session);
    expect(session.metadata.name).toBe(`session-${ref.id}`);
    expect(session.metadata.labels).toMatchObject({ [LABEL_SESSION_ID]: ref.id, [LABEL_TENANT]: ref.tenantId });
    expect(session.metadata.annotations?.[ANNOTATION_TENANT_NAME]).toBe("Acme Inc.");
    expect(session.spec).toEqual({
      sessionId: ref.id,
      tenant: ref.tenantId,
      desiredState: "run",
      apiUrl: "http://api.browser-agents:8080",
      image: "registry.example/agent-pod:1",
      resources: { limits: { memory: "2Gi" } },
      activeDeadlineSeconds: 4500,
    });
    expect(session.status).toBeUndefined();
  });
});
