import type { AgentSessionCondition, AgentSessionPhase, AgentSessionStatus, DesiredState } from "@browser-agents/protocol";
import type { PodObservation } from "./pod-observation.js";

export const READY_CONDITION = "Ready";

export interface StatusInput {
  generation: number;
  desiredState: DesiredState;
  /** The generation the current (or last) pod was launched for, after this reconcile's actions. */
  launchedGeneration: number | undefined;
  pod: PodObservation | null;
  previous: AgentSessionStatus | undefined;
  now: Date;
}

interface PhaseVerdict {
  phase: AgentSessionPhase;
  reason?: string;
  message?: string;
}

/**
 * The AgentSession status that describes the world as observed. Pure, so the same observation
 * always yields the same status and an unchanged world causes no write.
 */
export function computeStatus(input: StatusInput): AgentSessionStatus & { phase: AgentSessionPhase } {
  const { previous, launchedGeneration, pod, now } = input;
  // Fields such as startTime belong to one launch; a new launch starts them afresh.
  const sameLaunch = previous !== undefined && previous.launchedGeneration === launchedGeneration;
  const earlier = sameLaunch ? previous : undefined;

  const verdict = phaseOf(input, earlier);
  const phase = verdict.phase;
  const launched = launchedGeneration !== undefined;

  const startTime =
    earlier?.startTime ??
    (pod?.startedAt && phase !== "Starting" && phase !== "Pending" ? pod.startedAt.toISOString() : undefined) ??
    (phase === "Running" ? now.toISOString() : undefined);
  const endTime =
    phase === "Stopped" || phase === "Failed"
      ? (earlier?.endTime ?? (launched ? (pod?.finishedAt ?? now).toISOString() : undefined))
      : undefined;
  const podName = pod?.name ?? earlier?.podName;

  return {
    phase,
    ...(podName ? { podName } : {}),
    ...(startTime ? { startTime } : {}),
    ...(endTime ? { endTime } : {}),
    observedGeneration: input.generation,
    ...(launched ? { launchedGeneration } : {}),
    ...(verdict.message ? { message: verdict.message } : {}),
    conditions: [readyCondition(verdict, previous, now)],
  };
}

function phaseOf(input: StatusInput, earlier: AgentSessionStatus | undefined): PhaseVerdict {
  const { pod, desiredState, launchedGeneration, generation } = input;
  // A failure is the last word about a launch: deleting the broken pod afterwards changes nothing.
  if (earlier?.phase === "Failed") {
    return { phase: "Failed", reason: failureReasonOf(earlier), ...(earlier.message ? { message: earlier.message } : {}) };
  }
  if (pod) {
    if (pod.failure) return { phase: "Failed", reason: pod.failure.reason, message: failureMessage(pod.failure) };
    if (pod.phase === "Succeeded") return { phase: "Stopped" };
    if (pod.terminating || desiredState === "stop") return { phase: "Stopping" };
    if (pod.phase === "Running") return { phase: "Running" };
    return { phase: "Starting", ...(pod.waitingReason ? { message: pod.waitingReason } : {}) };
  }
  if (launchedGeneration === undefined) return { phase: desiredState === "run" ? "Pending" : "Stopped" };
  if (desiredState === "stop") return { phase: "Stopped" };
  if (launchedGeneration < generation) return { phase: "Pending" };
  if (earlier?.phase === "Stopped") return { phase: "Stopped" };
  return { phase: "Failed", reason: "PodLost", message: "PodLost: the agent pod was deleted before the agent finished" };
}

export function failureMessage(failure: { reason: string; message?: string }): string {
  return failure.message ? `${failure.reason}: ${failure.message}` : failure.reason;
}

function failureReasonOf(status: AgentSessionStatus): string {
  const ready = status.conditions?.find((condition) => condition.type === READY_CONDITION);
  return ready?.reason ?? status.message?.split(":")[0] ?? "Failed";
}

function readyCondition(verdict: PhaseVerdict, previous: AgentSessionStatus | undefined, now: Date): AgentSessionCondition {
  const status = verdict.phase === "Running" ? "True" : "False";
  const before = previous?.conditions?.find((condition) => condition.type === READY_CONDITION);
  return {
    type: READY_CONDITION,
    status,
    reason: verdict.reason ?? verdict.phase,
    ...(verdict.message ? { message: verdict.message } : {}),
    lastTransitionTime: before && before.status === status ? before.lastTransitionTime : now.toISOString(),
  };
}

/** Compares two statuses as JSON documents, ignoring key order. */
export function sameStatus(a: AgentSessionStatus | undefined, b: AgentSessionStatus | undefined): boolean {
  return canonicalJson(a ?? {}) === canonicalJson(b ?? {});
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([x], [y]) => x.localeCompare(y)))
      : inner,
  );
}

/**
 * A JSON merge patch that turns `previous` into `next`: keys that disappear are sent as null,
 * because a merge patch leaves absent keys untouched.
 */
export function statusMergePatch(previous: AgentSessionStatus | undefined, next: AgentSessionStatus): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...next };
  for (const key of Object.keys(previous ?? {})) {
    if (!(key in next)) patch[key] = null;
  }
  return { status: patch };
}
