import { agentTokenSecretName, type AgentSession } from "@browser-agents/protocol";
import type { V1Secret } from "@kubernetes/client-node";
import { childLabels, controllerReference } from "./owned-objects.js";

export const AGENT_TOKEN_SECRET_KEY = "AGENT_TOKEN";

export function buildAgentTokenSecret(session: AgentSession, token: string): V1Secret {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: agentTokenSecretName(session.metadata.name),
      labels: childLabels(session),
      ownerReferences: [controllerReference(session)],
    },
    type: "Opaque",
    data: { [AGENT_TOKEN_SECRET_KEY]: Buffer.from(token, "utf8").toString("base64") },
  };
}

export function secretHoldsToken(secret: V1Secret, token: string): boolean {
  const stored = secret.data?.[AGENT_TOKEN_SECRET_KEY];
  return stored !== undefined && Buffer.from(stored, "base64").toString("utf8") === token;
}
