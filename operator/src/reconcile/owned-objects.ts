import {
  AGENT_SESSION_API_VERSION,
  AGENT_SESSION_KIND,
  LABEL_MANAGED_BY,
  LABEL_SESSION_ID,
  LABEL_TENANT,
  MANAGED_BY_VALUE,
  type AgentSession,
} from "@browser-agents/protocol";
import type { V1OwnerReference } from "@kubernetes/client-node";

/** Label selector that finds every pod and secret this operator made. */
export const MANAGED_SELECTOR = `${LABEL_MANAGED_BY}=${MANAGED_BY_VALUE}`;

export function childLabels(session: AgentSession): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: MANAGED_BY_VALUE,
    [LABEL_SESSION_ID]: session.spec.sessionId,
    [LABEL_TENANT]: session.spec.tenant,
  };
}

/**
 * The garbage collector deletes children whose controller is gone: the backstop for any bug
 * of ours that leaves a pod or secret behind.
 */
export function controllerReference(session: AgentSession): V1OwnerReference {
  if (!session.metadata.uid) throw new Error(`AgentSession ${session.metadata.name} has no uid`);
  return {
    apiVersion: AGENT_SESSION_API_VERSION,
    kind: AGENT_SESSION_KIND,
    name: session.metadata.name,
    uid: session.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The AgentSession that controls an object, by its ownerReferences. */
export interface OwnerReferenceLike {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean | null;
}

export function controllerOf(owners: OwnerReferenceLike[] | null | undefined): { name: string; uid: string } | undefined {
  const owner = owners?.find((ref) => ref.controller && ref.kind === AGENT_SESSION_KIND && ref.apiVersion === AGENT_SESSION_API_VERSION);
  return owner ? { name: owner.name, uid: owner.uid } : undefined;
}
