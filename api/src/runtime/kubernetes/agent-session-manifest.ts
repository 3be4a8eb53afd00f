import {
  AGENT_SESSION_API_VERSION,
  AGENT_SESSION_GROUP,
  AGENT_SESSION_KIND,
  LABEL_SESSION_ID,
  LABEL_TENANT,
  agentSessionName,
  type AgentSession,
  type AgentSessionSpec,
} from "@browser-agents/protocol";
import type { SessionRef } from "../session-runtime.js";

/** For people reading `kubectl get ags`: the tenant's name (the spec and labels carry its id). */
export const ANNOTATION_TENANT_NAME = `${AGENT_SESSION_GROUP}/tenant-name`;
export const LABEL_CREATED_BY = "app.kubernetes.io/created-by";
export const CREATED_BY_VALUE = "browser-agents-api";

export interface AgentSessionSettings {
  apiUrlForAgents: string;
  agentImage: string;
  podResources?: AgentSessionSpec["resources"];
  activeDeadlineSeconds?: number;
  terminationGracePeriodSeconds?: number;
}

/** The AgentSession that asks the operator to run a session's agent. */
export function buildAgentSession(session: SessionRef, settings: AgentSessionSettings): AgentSession {
  return {
    apiVersion: AGENT_SESSION_API_VERSION,
    kind: AGENT_SESSION_KIND,
    metadata: {
      name: agentSessionName(session.id),
      labels: { [LABEL_SESSION_ID]: session.id, [LABEL_TENANT]: session.tenantId, [LABEL_CREATED_BY]: CREATED_BY_VALUE },
      annotations: { [ANNOTATION_TENANT_NAME]: session.tenantName },
    },
    spec: {
      sessionId: session.id,
      tenant: session.tenantId,
      desiredState: "run",
      apiUrl: settings.apiUrlForAgents,
      image: settings.agentImage,
      ...(settings.podResources ? { resources: settings.podResources } : {}),
      ...(settings.activeDeadlineSeconds ? { activeDeadlineSeconds: settings.activeDeadlineSeconds } : {}),
      ...(settings.terminationGracePeriodSeconds !== undefined ? { terminationGracePeriodSeconds: settings.terminationGracePeriodSeconds } : {}),
    },
  };
}
