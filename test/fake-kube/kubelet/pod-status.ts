import { kubeTimestamp } from "../store/kube-object.js";
import type { Container } from "./pod-spec.js";

export type ContainerState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | { terminated: { exitCode: number; reason: string; message?: string; startedAt?: string; finishedAt: string; containerID?: string } };

export interface PodStatusInput {
  container: Container;
  startTime: string;
  state: ContainerState;
  pid?: number;
  phase: "Pending" | "Running" | "Succeeded" | "Failed";
  reason?: string;
  message?: string;
}

function condition(type: string, status: boolean, reason?: string): Record<string, unknown> {
  return {
    type,
    status: status ? "True" : "False",
    lastProbeTime: null,
    lastTransitionTime: kubeTimestamp(),
    ...(reason ? { reason } : {}),
  };
}

/** A whole pod status as the kubelet writes it; only the first container is reported. */
export function podStatus(input: PodStatusInput): Record<string, unknown> {
  const running = "running" in input.state;
  const finished = input.phase === "Succeeded" || input.phase === "Failed";
  const notReadyReason = finished ? "PodCompleted" : "ContainersNotReady";
  const containerID = input.pid !== undefined ? `fake://${input.pid}` : undefined;
  const status: Record<string, unknown> = {
    phase: input.phase,
    startTime: input.startTime,
    hostIP: "127.0.0.1",
    hostIPs: [{ ip: "127.0.0.1" }],
    podIP: "127.0.0.1",
    podIPs: [{ ip: "127.0.0.1" }],
    qosClass: "BestEffort",
    conditions: [
      condition("PodScheduled", true),
      condition("Initialized", true),
      condition("ContainersReady", running, running ? undefined : notReadyReason),
      condition("Ready", running, running ? undefined : notReadyReason),
    ],
    containerStatuses: [
      {
        name: input.container.name,
        image: input.container.image,
        imageID: "waiting" in input.state ? "" : `fake://${input.container.image}`,
        ...(containerID ? { containerID } : {}),
        ready: running,
        started: running,
        restartCount: 0,
        state: input.state,
        lastState: {},
      },
    ],
  };
  if (input.reason) status.reason = input.reason;
  if (input.message) status.message = input.message;
  return status;
}
