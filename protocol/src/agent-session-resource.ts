import { z } from "zod";

/**
 * The AgentSession custom resource, shared by the API's Kubernetes runtime and the operator.
 * crds/agentsession.yaml is its schema; keep both in step.
 */
export const AGENT_SESSION_GROUP = "browser-agents.dev";
export const AGENT_SESSION_VERSION = "v1alpha1";
export const AGENT_SESSION_PLURAL = "agentsessions";
export const AGENT_SESSION_KIND = "AgentSession";
export const AGENT_SESSION_API_VERSION = `${AGENT_SESSION_GROUP}/${AGENT_SESSION_VERSION}`;

export const LABEL_SESSION_ID = `${AGENT_SESSION_GROUP}/session-id`;
export const LABEL_TENANT = `${AGENT_SESSION_GROUP}/tenant`;
export const LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
export const MANAGED_BY_VALUE = "browser-agents-operator";
export const FINALIZER = `${AGENT_SESSION_GROUP}/cleanup`;

export type DesiredState = "run" | "stop";

export type AgentSessionPhase = "Pending" | "Starting" | "Running" | "Stopping" | "Stopped" | "Failed";

export interface AgentSessionSpec {
  sessionId: string;
  tenant: string;
  desiredState: DesiredState;
  /** Base URL of the API as reachable from the pod. */
  apiUrl: string;
  image: string;
  resources?: {
    requests?: { cpu?: string; memory?: string };
    limits?: { cpu?: string; memory?: string };
  };
  /** Pod activeDeadlineSeconds: the session's hard time limit. */
  activeDeadlineSeconds?: number;
  terminationGracePeriodSeconds?: number;
}

export interface AgentSessionCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason?: string;
  message?: string;
  lastTransitionTime: string;
}

export interface AgentSessionStatus {
  phase?: AgentSessionPhase;
  podName?: string;
  startTime?: string;
  endTime?: string;
  observedGeneration?: number;
  /** metadata.generation for which the operator last created a pod: one pod per start request. */
  launchedGeneration?: number;
  message?: string;
  conditions?: AgentSessionCondition[];
}

export interface AgentSession {
  apiVersion: typeof AGENT_SESSION_API_VERSION;
  kind: typeof AGENT_SESSION_KIND;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    creationTimestamp?: string;
  };
  spec: AgentSessionSpec;
  status?: AgentSessionStatus;
}

/** The custom-objects coordinates of AgentSessions in a namespace (client-node's parameter shape). */
export function agentSessionCoordinates(namespace: string): { group: string; version: string; plural: string; namespace: string } {
  return { group: AGENT_SESSION_GROUP, version: AGENT_SESSION_VERSION, plural: AGENT_SESSION_PLURAL, namespace };
}

/** The REST path of a namespace's AgentSession collection, for list and watch. */
export function agentSessionCollectionPath(namespace: string): string {
  return `/apis/${AGENT_SESSION_GROUP}/${AGENT_SESSION_VERSION}/namespaces/${namespace}/${AGENT_SESSION_PLURAL}`;
}

/** Kubernetes object names must be DNS labels; session ids are UUIDs, which fit. */
export function agentSessionName(sessionId: string): string {
  return `session-${sessionId}`;
}

/** Annotation on the pod: the AgentSession generation it was launched for. */
export const ANNOTATION_LAUNCHED_GENERATION = `${AGENT_SESSION_GROUP}/launched-generation`;

/** Name of the Secret holding a session's AGENT_TOKEN (key AGENT_TOKEN). */
export function agentTokenSecretName(agentSessionName: string): string {
  return `${agentSessionName}-agent-token`;
}

const Quantity = z.string().regex(/^[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/);
const ResourceAmounts = z.object({ cpu: Quantity.optional(), memory: Quantity.optional() });

export const AgentSessionSpecSchema = z.object({
  sessionId: z.uuid(),
  tenant: z.string().min(1),
  desiredState: z.enum(["run", "stop"]),
  apiUrl: z.string().min(1),
  image: z.string().min(1),
  resources: z.object({ requests: ResourceAmounts.optional(), limits: ResourceAmounts.optional() }).optional(),
  activeDeadlineSeconds: z.number().int().positive().optional(),
  terminationGracePeriodSeconds: z.number().int().nonnegative().optional(),
});

export const AgentSessionConditionSchema = z.object({
  type: z.string(),
  status: z.enum(["True", "False", "Unknown"]),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: z.string(),
});

export const AgentSessionStatusSchema = z.object({
  phase: z.enum(["Pending", "Starting", "Running", "Stopping", "Stopped", "Failed"]).optional(),
  podName: z.string().optional(),
  startTime: z.string().optional(),
  endTime: z.string().optional(),
  observedGeneration: z.number().int().optional(),
  launchedGeneration: z.number().int().optional(),
  message: z.string().optional(),
  conditions: z.array(AgentSessionConditionSchema).optional(),
});

/** Kubernetes may send explicit nulls for unset fields; treat them as absent. */
function absentIfNull<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((v) => v ?? undefined).optional();
}
const optionalString = absentIfNull(z.string());

/**
 * Parses an AgentSession read from the Kubernetes API (a list item, a watch event, a GET).
 * Unknown fields (managedFields, ownerReferences, ...) are dropped.
 */
export const AgentSessionSchema = z.object({
  apiVersion: z.literal(AGENT_SESSION_API_VERSION),
  kind: z.literal(AGENT_SESSION_KIND),
  metadata: z.object({
    name: z.string(),
    namespace: optionalString,
    uid: optionalString,
    resourceVersion: optionalString,
    generation: absentIfNull(z.number().int()),
    labels: absentIfNull(z.record(z.string(), z.string())),
    annotations: absentIfNull(z.record(z.string(), z.string())),
    finalizers: absentIfNull(z.array(z.string())),
    deletionTimestamp: optionalString,
    creationTimestamp: optionalString,
  }),
  spec: AgentSessionSpecSchema,
  status: absentIfNull(AgentSessionStatusSchema),
});

// The schema and the hand-written interface must describe the same object.
type Equal<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaMatchesInterface: Equal<z.output<typeof AgentSessionSchema>, AgentSession> = true;
void schemaMatchesInterface;
