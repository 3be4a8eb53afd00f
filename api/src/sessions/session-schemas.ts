import { z } from "zod";
import { PathId, queryInt } from "../http/common-schemas.js";

const decimalText = /^\d+(\.\d+)?$/;

const PositiveDecimal = z
  .union([z.number(), z.string().regex(decimalText, "must be a decimal number")])
  .transform((value) => String(value))
  .refine((value) => Number(value) > 0, "must be greater than 0");

export const RunTaskRequest = z
  .object({
    task: z.string().min(1, "must not be empty").nullish(),
    model: z.string().min(1).optional(),
    sessionId: PathId.nullish(),
    keepAlive: z.boolean().default(false),
    maxCostUsd: PositiveDecimal.nullish(),
    profileId: PathId.nullish(),
    outputSchema: z.record(z.string(), z.unknown()).nullish(),
    sensitiveData: z.record(z.string(), z.string()).nullish(),
    systemPromptExtension: z.string().nullish(),
    skills: z.boolean().default(true),
    enableRecording: z.boolean().default(false),
    proxyCountryCode: z.string().nullish(),
    reasoningEffort: z.string().nullish(),
  })
  .prefault({})
  .meta({ id: "RunTaskRequest" });
export type RunTaskRequest = z.infer<typeof RunTaskRequest>;

export const SessionStatus = z.enum(["created", "idle", "running", "stopped", "timed_out", "error"]);
export type SessionStatus = z.infer<typeof SessionStatus>;

export const SessionResponse = z
  .object({
    id: z.string(),
    status: z.string(),
    model: z.string(),
    title: z.string().nullable(),
    output: z.unknown(),
    outputSchema: z.record(z.string(), z.unknown()).nullable(),
    stepCount: z.number().int(),
    lastStepSummary: z.string().nullable(),
    isTaskSuccessful: z.boolean().nullable(),
    liveUrl: z.string().nullable(),
    recordingUrls: z.array(z.string()),
    profileId: z.string().nullable(),
    workspaceId: z.string().nullable(),
    proxyCountryCode: z.string().nullable(),
    maxCostUsd: z.string().nullable(),
    totalInputTokens: z.number().int(),
    totalOutputTokens: z.number().int(),
    llmCostUsd: z.string(),
    proxyCostUsd: z.string(),
    browserCostUsd: z.string(),
    proxyUsedMb: z.string(),
    totalCostUsd: z.string(),
    screenshotUrl: z.string().nullable(),
    reasoningEffort: z.string(),
    failureKind: z.string().nullable(),
    failureStatusCode: z.number().int().nullable(),
    inboxEmail: z.string().nullable(),
    integrationsUsed: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "SessionResponse" });
export type SessionResponse = z.infer<typeof SessionResponse>;

export const SessionListResponse = z
  .object({
    sessions: z.array(SessionResponse),
    total: z.number().int(),
    page: z.number().int(),
    pageSize: z.number().int(),
  })
  .meta({ id: "SessionListResponse" });

export const StopSessionRequest = z
  .object({ strategy: z.enum(["session", "task"]).default("session") })
  .prefault({})
  .meta({ id: "StopSessionRequest" });

export const SessionIdParams = z.object({ session_id: PathId });

export const MessageResponse = z
  .object({
    id: z.string(),
    sessionId: z.string(),
    role: z.string(),
    data: z.string(),
    type: z.string(),
    summary: z.string(),
    screenshotUrl: z.string().nullable(),
    hidden: z.boolean(),
    createdAt: z.string(),
  })
  .meta({ id: "MessageResponseModel" });
export type MessageResponse = z.infer<typeof MessageResponse>;

export const MessageListResponse = z
  .object({ messages: z.array(MessageResponse), hasMore: z.boolean() })
  .meta({ id: "MessageListResponse" });

export const MessageListQuery = z.object({
  after: PathId.nullish(),
  before: PathId.nullish(),
  limit: queryInt(1, 1000, 100),
});
