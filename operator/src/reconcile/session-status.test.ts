import type { AgentSessionStatus } from "@browser-agents/protocol";
import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { observePod } from "./pod-observation.js";
import { computeStatus, sameStatus, statusMergePatch, type StatusInput } from "./session-status.js";

const created = new Date("2030-01-01T00:00:00Z");
const now = new Date("2030-01-01T00:01:00Z");

function pod(status: V1Pod["status"], extra: Partial<NonNullable<V1Pod["metadata"]>> = {}): V1Pod {
  return {
    metadata: { name: "session-x", uid: "pod-uid", creationTimestamp: created, annotations: { "browser-agents.dev/launched-generation": "1" }, ...extra },
    status,
  };
}

function statusFor(overrides: Partial<StatusInput>): ReturnType<typeof computeStatus> {
  return computeStatus({ generation: 1, desiredState: "run", launchedGeneration: 1, pod: null, previous: undefined, now, ...overrides });
}

const waiting = (reason: string, message?: string): V1Pod =>
  pod({ phase: "Pending", containerStatuses: [{ name: "agent", image: "i", imageID: "", ready: false, restartCount: 0, state: { waiting: { reason, ...(message ? { message } : {}) } } }] });

describe("computeStatus from the pod", () => {
  it("is Starting while the pod is pending, with the waiting reason as message", () => {
    const status = statusFor({ pod: observePod(waiting("ContainerCreating")) });
    expect(status).toMatchObject({ phase: "Starting", podName: "session-x", message: "ContainerCreating", observedGeneration: 1, launchedGeneration: 1 });
    expect(status.conditions?.[0]).toMatchObject({ type: "Ready", status: "False" });
  });

  it("is Running with the container's start time once the agent runs", () => {
    const startedAt = new Date("2030-01-01T00:00:07Z");
    const running = pod({ phase: "Running", podIP: "10.0.0.7", containerStatuses: [{ name: "agent", image: "i", imageID: "", ready: true, restartCount: 0, state: { running: { startedAt } } }] });
    const status = statusFor({ pod: observePod(running) });
    expect(status).toMatchObject({ phase: "Running", startTime: startedAt.toISOString() });
    expect(status.message).toBeUndefined();
    expect(status.conditions?.[0]).toMatchObject({ type: "Ready", status: "True", reason: "Running" });
  });

  it.each([
    ["ErrImagePull", 'pull access denied for "nope"'],
    ["ImagePullBackOff", 'Back-off pulling image "nope"'],
    ["CrashLoopBackOff", undefined],
  ])("is Failed at once when the container waits with %s", (reason, message) => {
    const status = statusFor({ pod: observePod(waiting(reason, message)) });
    expect(status.phase).toBe("Failed");
    expect(status.message).toBe(message ? `${reason}: ${message}` : reason);
    expect(status.conditions?.[0]?.reason).toBe(reason);
    expect(status.endTime).toBe(now.toISOString());
  });

  it("reports OOMKilled and exit codes of a failed pod", () => {
    const finishedAt = new Date("2030-01-01T00:00:30Z");
    const oom = pod({
      phase: "Failed",
      containerStatuses: [{ name: "agent", image: "i", imageID: "", ready: false, restartCount: 0, state: { terminated: { exitCode: 137, reason: "OOMKilled", finishedAt } } }],
    });
    expect(statusFor({ pod: observePod(oom) })).toMatchObject({ phase: "Failed", message: "OOMKilled: the agent exited with code 137", endTime: finishedAt.toISOString() });
    const crashed = pod({ phase: "Failed", containerStatuses: [{ name: "agent", image: "i", imageID: "", ready: false, restartCount: 0, state: { terminated: { exitCode: 1, reason: "Error" } } }] });
    expect(statusFor({ pod: observePod(crashed) }).message).toBe("Error: the agent exited with code 1");
  });

  it("reports DeadlineExceeded from the pod's own reason", () => {
    const expired = pod({ phase: "Failed", reason: "DeadlineExceeded", message: "Pod was active on the node longer than the specified deadline" });
    const status = statusFor({ pod: observePod(expired) });
    expect(status).toMatchObject({ phase: "Failed", message: "DeadlineExceeded: Pod was active on the node longer than the specified deadline" });
    expect(status.conditions?.[0]?.reason).toBe("DeadlineExceeded");
  });

  it("is Stopped when the agent exits 0, and Stopping while the pod is being deleted", () => {
    expect(statusFor({ pod: observePod(pod({ phase: "Succeeded" })) }).phase).toBe("Stopped");
    const deleting = pod({ phase: "Running" }, { deletionTimestamp: now });
    expect(statusFor({ pod: observePod(deleting) }).phase).toBe("Stopping");
    expect(statusFor({ desiredState: "stop", pod: observePod(pod({ phase: "Running" })) }).phase).toBe("Stopping");
  });
});

describe("computeStatus without a pod", () => {
  it("is Pending before the first launch and Stopped when stopped", () => {
    expect(statusFor({ launchedGeneration: undefined }).phase).toBe("Pending");
    expect(statusFor({ desiredState: "stop" }).phase).toBe("Stopped");
  });

  it("is Pending when a new start was asked for after the last pod", () => {
    expect(statusFor({ generation: 3, launchedGeneration: 1 }).phase).toBe("Pending");
  });

  it("is Failed (PodLost) when a running session's pod vanished", () => {
    const previous: AgentSessionStatus = { phase: "Running", launchedGeneration: 1, startTime: created.toISOString() };
    const status = statusFor({ previous });
    expect(status).toMatchObject({ phase: "Failed", startTime: created.toISOString() });
    expect(status.message).toMatch(/^PodLost/);
  });

  it("keeps a launch's failure after its broken pod is deleted, and forgets it on a new launch", () => {
    const failed = statusFor({ pod: observePod(waiting("ErrImagePull", "not found")) });
    const afterDeletion = computeStatus({ generation: 1, desiredState: "run", launchedGeneration: 1, pod: null, previous: failed, now: new Date("2030-01-01T00:05:00Z") });
    expect(afterDeletion.phase).toBe("Failed");
    expect(afterDeletion.message).toBe("ErrImagePull: not found");
    expect(sameStatus(failed, afterDeletion)).toBe(true);
    const relaunched = computeStatus({ generation: 3, desiredState: "run", launchedGeneration: 3, pod: observePod(waiting("ContainerCreating")), previous: failed, now });
    expect(relaunched.phase).toBe("Starting");
    expect(relaunched.endTime).toBeUndefined();
  });
});

describe("status writes", () => {
  it("an unchanged world computes an identical status (no write)", () => {
    const first = statusFor({ pod: observePod(waiting("ContainerCreating")) });
    const again = computeStatus({ generation: 1, desiredState: "run", launchedGeneration: 1, pod: observePod(waiting("ContainerCreating")), previous: first, now: new Date("2030-01-01T00:09:00Z") });
    expect(sameStatus(first, again)).toBe(true);
  });

  it("clears fields that disappear with explicit nulls", () => {
    const before: AgentSessionStatus = { phase: "Starting", message: "ContainerCreating", podName: "p" };
    const after: AgentSessionStatus = { phase: "Running", podName: "p" };
    expect(statusMergePatch(before, after)).toEqual({ status: { phase: "Running", podName: "p", message: null } });
  });
});
