import type { Session } from "../db/client-types.js";
import { decimalString, isoTime } from "../http/format.js";
import type { SessionResponse } from "./session-schemas.js";

export function sessionView(session: Session, liveUrl: string | null = session.liveUrl): SessionResponse {
  const total = session.llmCostUsd.plus(session.browserCostUsd);
  return {
    id: session.id,
    status: session.status,
    model: session.model,
    title: session.title,
    output: session.output ?? null,
    outputSchema: (session.outputSchema as Record<string, unknown> | null) ?? null,
    stepCount: session.stepCount,
    lastStepSummary: session.lastStepSummary,
    isTaskSuccessful: session.isTaskSuccessful,
    liveUrl,
    recordingUrls: [],
    profileId: session.profileId,
    workspaceId: null,
    proxyCountryCode: session.proxyCountryCode,
    maxCostUsd: session.maxCostUsd ? decimalString(session.maxCostUsd) : null,
    totalInputTokens: session.totalInputTokens,
    totalOutputTokens: session.totalOutputTokens,
    llmCostUsd: decimalString(session.llmCostUsd),
    proxyCostUsd: "0",
    browserCostUsd: decimalString(session.browserCostUsd),
    proxyUsedMb: "0",
    totalCostUsd: decimalString(total),
    screenshotUrl: null,
    reasoningEffort: session.reasoningEffort,
    failureKind: session.failureKind,
    failureStatusCode: session.failureStatusCode,
    inboxEmail: null,
    integrationsUsed: [],
    createdAt: isoTime(session.createdAt),
    updatedAt: isoTime(session.updatedAt),
  };
}
