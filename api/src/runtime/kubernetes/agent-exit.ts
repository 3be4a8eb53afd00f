import type { AgentSession } from "@browser-agents/protocol";
import type { RuntimeEvents } from "../session-runtime.js";

export type AgentExitDetail = Parameters<RuntimeEvents["agentExited"]>[1];

export interface AgentExit {
  sessionId: string;
  /** One report per launch of a pod: the same failure seen again (resync, re-list) is not news. */
  launchKey: string;
  detail: AgentExitDetail;
}

/**
 * What a Failed AgentSession means for its session: the operator puts the pod's failure reason
 * in the Ready condition (DeadlineExceeded when the pod outlived activeDeadlineSeconds).
 */
export function agentExitOf(session: AgentSession): AgentExit | null {
  const status = session.status;
  if (status?.phase !== "Failed") return null;
  const ready = status.conditions?.find((condition) => condition.type === "Ready");
  const reason = ready?.reason ?? status.message?.split(":")[0] ?? "Failed";
  const timedOut = reason === "DeadlineExceeded";
  const message = timedOut
    ? "The session reached its time limit and its pod was stopped."
    : `The agent pod failed: ${status.message ?? reason}`;
  return {
    sessionId: session.spec.sessionId,
    launchKey: `${session.metadata.uid ?? session.metadata.name}/${status.launchedGeneration ?? 0}`,
    detail: { failureKind: timedOut ? "timed_out" : "pod_failed", message },
  };
}
