import { z } from "zod";
import { StorageState } from "./storage-state.js";

/**
 * The protocol by which an agent (a local process or a pod) reports to the API.
 * Routes live under AGENT_API_PREFIX, outside /v3, and accept only the session's own
 * credential: `Authorization: Bearer <AGENT_TOKEN>`.
 *
 *   GET  {prefix}/sessions/:id/bootstrap            -> SessionBootstrap (profile state to start from)
 *   GET  {prefix}/sessions/:id/work?waitSeconds=N   -> WorkResponse (long-poll while idle)
 *   POST {prefix}/sessions/:id/ready                -> ReadyRequest, 204 (created -> idle)
 *   POST {prefix}/sessions/:id/events               -> EventBatch, 200 EventBatchResult
 *   POST {prefix}/sessions/:id/task-result          -> TaskResult, 200 TaskResultResponse
 *   POST {prefix}/sessions/:id/failure              -> AgentFailure, 204 (session -> error)
 *   PUT  {prefix}/sessions/:id/storage-state        -> StorageState, 200 StorageStateWriteResult
 *
 * Every write is idempotent: events carry agent-made ids, results carry the task number, so a
 * retry after a lost response changes nothing.
 */
export const AGENT_API_PREFIX = "/agent/v1";

export const ReasoningEffort = z.enum(["none", "low", "medium", "high", "xhigh", "max"]);
export type ReasoningEffort = z.infer<typeof ReasoningEffort>;

export const FailureKind = z.enum([
  "max_steps_reached",
  "max_cost_exceeded",
  "output_schema_mismatch",
  "agent_gave_up",
  "cancelled",
  "timed_out",
  "browser_error",
  "llm_error",
  "pod_failed",
  "internal_error",
]);
export type FailureKind = z.infer<typeof FailureKind>;

/** Decimal amounts cross the wire as strings so no precision is lost. */
export const DecimalString = z.string().regex(/^\d+(\.\d+)?$/, "a non-negative decimal string");

export const ModelEndpoint = z.object({
  name: z.string(),
  /** The model id sent to the provider (may differ from the catalog name). */
  providerModel: z.string(),
  baseUrl: z.string(),
  apiKey: z.string().nullable(),
  /** Resolved effort: never "default". */
  reasoningEffort: ReasoningEffort,
  inputPricePerMillionUsd: DecimalString,
  outputPricePerMillionUsd: DecimalString,
});
export type ModelEndpoint = z.infer<typeof ModelEndpoint>;

export const WorkItem = z.object({
  /** Task number within the session: 1 for the first task, +1 for each new piece of work. */
  taskNumber: z.number().int().positive(),
  task: z.string(),
  model: ModelEndpoint,
  outputSchema: z.record(z.string(), z.unknown()).nullable(),
  sensitiveData: z.record(z.string(), z.string()).nullable(),
  systemPromptExtension: z.string().nullable(),
  /** Budget for the whole session in USD, null when unlimited. */
  maxCostUsd: DecimalString.nullable(),
  /** What the session has spent so far (all tasks), so the budget spans tasks. */
  spentCostUsd: DecimalString,
  maxSteps: z.number().int().positive(),
  keepAlive: z.boolean(),
});
export type WorkItem = z.infer<typeof WorkItem>;

export const WorkResponse = z.discriminatedUnion("action", [
  /** Run this task now. */
  z.object({ action: z.literal("run"), work: WorkItem }),
  /** Nothing to do yet (session idle or created); ask again. */
  z.object({ action: z.literal("wait") }),
  /** The session has ended or been deleted: save state, close the browser, exit. */
  z.object({ action: z.literal("exit"), reason: z.string() }),
]);
export type WorkResponse = z.infer<typeof WorkResponse>;

/** Everything the agent needs when it starts, beside its work. */
export const SessionBootstrap = z.object({
  sessionId: z.string(),
  profileId: z.string().nullable(),
  storageState: StorageState.nullable(),
});
export type SessionBootstrap = z.infer<typeof SessionBootstrap>;

export const ReadyRequest = z.object({
  /** Where the browser's DevTools endpoint listens, as seen by the agent (for live view). */
  devtoolsPort: z.number().int().positive().nullable().default(null),
});
export type ReadyRequest = z.infer<typeof ReadyRequest>;

export const MessageRole = z.enum(["human", "ai"]);
export const MessageType = z.string().min(1).max(64);

const eventBase = {
  /** Agent-made unique id (a UUID); the API applies each id at most once per session. */
  eventId: z.uuid(),
  taskNumber: z.number().int().positive(),
};

export const MessageEvent = z.object({
  ...eventBase,
  kind: z.literal("message"),
  role: MessageRole,
  type: MessageType,
  data: z.string(),
  summary: z.string(),
  hidden: z.boolean().default(false),
});

export const StepEvent = z.object({
  ...eventBase,
  kind: z.literal("step"),
  stepNumber: z.number().int().positive(),
  summary: z.string(),
});

export const UsageEvent = z.object({
  ...eventBase,
  kind: z.literal("usage"),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  costUsd: DecimalString,
});

export const AgentEvent = z.discriminatedUnion("kind", [MessageEvent, StepEvent, UsageEvent]);
export type AgentEvent = z.infer<typeof AgentEvent>;

export const EventBatch = z.object({ events: z.array(AgentEvent).min(1).max(500) });
export type EventBatch = z.infer<typeof EventBatch>;

export const EventBatchResult = z.object({
  applied: z.number().int(),
  duplicates: z.number().int(),
  /** Events of a task that is no longer current: kept in history, not applied to per-task fields. */
  stale: z.number().int(),
  /** The session as it stands: an agent whose task is no longer current must abandon it. */
  sessionStatus: z.string(),
  currentTaskNumber: z.number().int(),
});
export type EventBatchResult = z.infer<typeof EventBatchResult>;

export const TaskResult = z.object({
  taskNumber: z.number().int().positive(),
  output: z.unknown().nullable(),
  isTaskSuccessful: z.boolean(),
  failureKind: FailureKind.nullable().default(null),
  failureStatusCode: z.number().int().nullable().default(null),
});
export type TaskResult = z.infer<typeof TaskResult>;

export const TaskResultResponse = z.object({
  /** The session status after the result was applied (or as it already was). */
  status: z.string(),
  /** True when the result moved the session; false for a stale or repeated result. */
  applied: z.boolean(),
});
export type TaskResultResponse = z.infer<typeof TaskResultResponse>;

export const AgentFailure = z.object({
  failureKind: FailureKind,
  failureStatusCode: z.number().int().nullable().default(null),
  message: z.string().max(4000),
});
export type AgentFailure = z.infer<typeof AgentFailure>;

export const StorageStateWriteResult = z.object({
  /** False when the session has no profile or the profile was deleted meanwhile. */
  written: z.boolean(),
});
export type StorageStateWriteResult = z.infer<typeof StorageStateWriteResult>;
