import { agentSessionName, LABEL_SESSION_ID } from "@browser-agents/protocol";
import { z } from "zod";
import { controllerOf } from "../reconcile/owned-objects.js";

/** The little the watches keep about pods and secrets: enough to find their AgentSession. */
export const OwnedObjectSummary = z.object({
  metadata: z.object({
    name: z.string(),
    uid: z.string().nullish(),
    labels: z.record(z.string(), z.string()).nullish(),
    ownerReferences: z
      .array(
        z.object({
          apiVersion: z.string(),
          kind: z.string(),
          name: z.string(),
          uid: z.string(),
          controller: z.boolean().nullish(),
        }),
      )
      .nullish(),
  }),
  status: z.object({ phase: z.string().nullish() }).nullish(),
});
export type OwnedObjectSummary = z.infer<typeof OwnedObjectSummary>;

export function decodeOwnedObject(raw: unknown): OwnedObjectSummary | null {
  const parsed = OwnedObjectSummary.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** The name of the AgentSession an object belongs to: its controller, else its session label. */
export function owningAgentSession(object: OwnedObjectSummary): string | undefined {
  const owner = controllerOf(object.metadata.ownerReferences);
  if (owner) return owner.name;
  const sessionId = object.metadata.labels?.[LABEL_SESSION_ID];
  return sessionId ? agentSessionName(sessionId) : undefined;
}
