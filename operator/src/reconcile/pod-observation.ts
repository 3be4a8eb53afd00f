import { ANNOTATION_LAUNCHED_GENERATION } from "@browser-agents/protocol";
import type { V1ContainerStatus, V1Pod } from "@kubernetes/client-node";
import { AGENT_CONTAINER_NAME } from "./pod-spec.js";

/** What the reconciler needs to know about an agent pod, taken from its status. */
export interface PodObservation {
  name: string;
  uid?: string;
  /** The AgentSession generation the pod was created for (its annotation). */
  launchedGeneration?: number;
  terminating: boolean;
  phase: "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown";
  createdAt?: Date;
  /** When the agent container started running. */
  startedAt?: Date;
  finishedAt?: Date;
  /** Set when the pod failed, or is stuck in a way that never recovers by itself. */
  failure?: { reason: string; message?: string };
  /** Why a pod that is not running yet is waiting (ContainerCreating, Unschedulable...). */
  waitingReason?: string;
  ip?: string;
}

/**
 * Waiting reasons after which the pod will not run the agent without someone's help.
 * Kubelet keeps retrying image pulls, but the session's user is waiting now: report it at once.
 */
const FATAL_WAITING_REASONS = new Set([
  "ErrImagePull",
  "ImagePullBackOff",
  "InvalidImageName",
  "ErrImageNeverPull",
  "CrashLoopBackOff",
  "CreateContainerError",
  "RunContainerError",
]);

export function observePod(pod: V1Pod): PodObservation {
  const container = agentContainerStatus(pod);
  const running = container?.state?.running;
  const terminated = container?.state?.terminated ?? container?.lastState?.terminated;
  const waiting = container?.state?.waiting;
  const phase = knownPhase(pod.status?.phase);
  const generation = Number(pod.metadata?.annotations?.[ANNOTATION_LAUNCHED_GENERATION]);

  let failure: PodObservation["failure"];
  if (phase === "Failed") {
    const reason = pod.status?.reason ?? terminated?.reason ?? "Error";
    const detail = pod.status?.message ?? terminated?.message ?? exitCodeText(terminated?.exitCode);
    failure = { reason, ...(detail ? { message: detail } : {}) };
  } else if (phase !== "Succeeded" && waiting?.reason && FATAL_WAITING_REASONS.has(waiting.reason)) {
    failure = { reason: waiting.reason, ...(waiting.message ? { message: waiting.message } : {}) };
  }

  const startedAt = toDate(running?.startedAt) ?? toDate(terminated?.startedAt);
  const finishedAt = toDate(terminated?.finishedAt);
  const createdAt = toDate(pod.metadata?.creationTimestamp);
  const waitingReason = waiting?.reason ?? unschedulableReason(pod);
  return {
    name: pod.metadata?.name ?? "",
    ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}),
    ...(Number.isInteger(generation) ? { launchedGeneration: generation } : {}),
    terminating: Boolean(pod.metadata?.deletionTimestamp),
    phase,
    ...(createdAt ? { createdAt } : {}),
    ...(startedAt ? { startedAt } : {}),
    ...(finishedAt ? { finishedAt } : {}),
    ...(failure ? { failure } : {}),
    ...(waitingReason && phase === "Pending" ? { waitingReason } : {}),
    ...(pod.status?.podIP ? { ip: pod.status.podIP } : {}),
  };
}

function agentContainerStatus(pod: V1Pod): V1ContainerStatus | undefined {
  const statuses = pod.status?.containerStatuses ?? [];
  return statuses.find((status) => status.name === AGENT_CONTAINER_NAME) ?? statuses[0];
}

function knownPhase(phase: string | undefined): PodObservation["phase"] {
  return phase === "Pending" || phase === "Running" || phase === "Succeeded" || phase === "Failed" ? phase : phase ? "Unknown" : "Pending";
}

function unschedulableReason(pod: V1Pod): string | undefined {
  const scheduled = pod.status?.conditions?.find((condition) => condition.type === "PodScheduled");
  return scheduled?.status === "False" ? (scheduled.reason ?? "Unschedulable") : undefined;
}

function exitCodeText(exitCode: number | undefined): string | undefined {
  return exitCode === undefined ? undefined : `the agent exited with code ${exitCode}`;
}

/** The generated client turns timestamps into Dates; objects from a watch stream carry strings. */
function toDate(value: Date | string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
