import type { AgentSession, AgentSessionStatus } from "@browser-agents/protocol";
import { describe, expect, it } from "vitest";
import { agentExitOf } from "./agent-exit.js";

function session(status: AgentSessionStatus | undefined): AgentSession {
  return {
    apiVersion: "browser-agents.dev/v1alpha1",
    kind: "AgentSession",
    metadata: { name: "session-1", uid: "uid-1" },
    spec: { sessionId: "11111111-2222-4333-8444-555555555555", tenant: "t", desiredState: "run", apiUrl: "http://api", image: "i" },
    ...(status ? { status } : {}),
  };
}

const failed = (reason: string, message: string, launchedGeneration = 1): AgentSessionStatus => ({
  phase: "Failed",
  message,
  launchedGeneration,
  conditions: [{ type: "Ready", status: "False", reason, lastTransitionTime: "2030-01-01T00:00:00Z" }],
});

describe("agentExitOf", () => {
  it("says nothing about sessions that have not failed", () => {
    expect(agentExitOf(session(undefined))).toBeNull();
    expect(agentExitOf(session({ phase: "Running" }))).toBeNull();
    expect(agentExitOf(session({ phase: "Stopped" }))).toBeNull();
  });

  it("maps DeadlineExceeded to timed_out and every other failure to pod_failed with its reason", () => {
    expect(agentExitOf(session(failed("DeadlineExceeded", "DeadlineExceeded: Pod was active too long")))?.detail.failureKind).toBe("timed_out");
    const pulled = agentExitOf(session(failed("ErrImagePull", "ErrImagePull: not found")));
    expect(pulled?.detail).toEqual({ failureKind: "pod_failed", message: "The agent pod failed: ErrImagePull: not found" });
    expect(pulled?.sessionId).toBe("11111111-2222-4333-8444-555555555555");
    expect(agentExitOf(session({ phase: "Failed", message: "OOMKilled: exit 137" }))?.detail.failureKind).toBe("pod_failed");
  });

  it("keys each report by launch, so a relaunched session's failure is news again", () => {
    const first = agentExitOf(session(failed("Error", "Error: exit 1", 1)));
    const again = agentExitOf(session(failed("Error", "Error: exit 1", 1)));
    const relaunch = agentExitOf(session(failed("Error", "Error: exit 1", 3)));
    expect(again?.launchKey).toBe(first?.launchKey);
    expect(relaunch?.launchKey).not.toBe(first?.launchKey);
  });
});
