import { randomUUID } from "node:crypto";
import { agentSessionName, deriveAgentToken, FINALIZER, type AgentSession } from "@browser-agents/protocol";
import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunningOperator } from "../../operator/src/operator.js";
import { NAMESPACE, phaseOf, SIGNING_KEY, startHarness, type Harness } from "./operator-harness.js";

const coordinates = { group: "browser-agents.dev", version: "v1alpha1", plural: "agentsessions", namespace: NAMESPACE } as const;
const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

let harness: Harness;

beforeEach(async () => {
  harness = await startHarness();
});

afterEach(async () => {
  await harness.close();
});

async function setDesiredState(sessionId: string, desiredState: "run" | "stop"): Promise<void> {
  await harness.sessions.patchNamespacedCustomObject({ ...coordinates, name: agentSessionName(sessionId), body: { spec: { desiredState } } }, mergePatch);
}

const isRunning = (session: AgentSession | undefined) => phaseOf(session) === "Running";

/** Running is reported when the process starts; wait until the stand-in agent has set itself up. */
async function waitForAgentOutput(sessionId: string): Promise<void> {
  await expect.poll(() => harness.kubelet.logs(NAMESPACE, agentSessionName(sessionId)), { timeout: 10_000 }).toContain(sessionId);
}

async function successfulReconciles(operator: RunningOperator): Promise<number> {
  const metric = await operator.metrics.reconcileDuration.get();
  return metric.values.find((value) => value.metricName?.endsWith("_count") && value.labels.result === "success")?.value ?? 0;
}

describe("operator, end to end against the fake Kubernetes API", () => {
  it("turns an AgentSession into an owned Secret and Pod whose agent runs with the derived token", async () => {
    await harness.startOperator();
    const sessionId = randomUUID();
    await harness.createAgentSession(sessionId);

    const session = await harness.waitForAgentSession(sessionId, isRunning);
    expect(session?.metadata.finalizers).toContain(FINALIZER);
    expect(session?.status).toMatchObject({ phase: "Running", podName: agentSessionName(sessionId), observedGeneration: 1 });
    expect(session?.status?.startTime).toBeDefined();
    expect(session?.status?.conditions?.find((condition) => condition.type === "Ready")?.status).toBe("True");

    const owner = { kind: "AgentSession", name: agentSessionName(sessionId), uid: session?.metadata.uid, controller: true, blockOwnerDeletion: true };
    const labels = { "app.kubernetes.io/managed-by": "browser-agents-operator", "browser-agents.dev/session-id": sessionId, "browser-agents.dev/tenant": "tenant-a" };
    const pod = harness.kube.get("pods", NAMESPACE, agentSessionName(sessionId));
    const secret = harness.kube.get("secrets", NAMESPACE, `${agentSessionName(sessionId)}-agent-token`);
    for (const child of [pod, secret]) {
      expect(child?.metadata.ownerReferences).toEqual([expect.objectContaining(owner)]);
      expect(child?.metadata.labels).toEqual(labels);
    }

    const token = deriveAgentToken(SIGNING_KEY, sessionId);
    await expect.poll(() => harness.kubelet.logs(NAMESPACE, agentSessionName(sessionId))).toContain(token);
    const printed = JSON.parse(harness.kubelet.logs(NAMESPACE, agentSessionName(sessionId)).split("\n")[0] ?? "{}") as Record<string, string>;
    expect(printed).toEqual({ sessionId, token, apiUrl: "http://127.0.0.1:9" });
  });

  it("stops the pod gracefully on desiredState stop, and starts a fresh one on run", async () => {
    await harness.startOperator();
    const sessionId = randomUUID();
    await harness.createAgentSession(sessionId);
    const running = await harness.waitForAgentSession(sessionId, isRunning);
    await waitForAgentOutput(sessionId);
    const firstPodUid = harness.kube.get("pods", NAMESPACE, agentSessionName(sessionId))?.metadata.uid;

    await setDesiredState(sessionId, "stop");
    const stopped = await harness.waitForAgentSession(sessionId, (session) => phaseOf(session) === "Stopped");
    expect(harness.kube.get("pods", NAMESPACE, agentSessionName(sessionId))).toBeUndefined();
    expect(harness.kubelet.logs(NAMESPACE, agentSessionName(sessionId))).toContain("got SIGTERM");
    expect(stopped?.status?.endTime).toBeDefined();
    expect(stopped?.status?.startTime).toBe(running?.status?.startTime);

    await setDesiredState(sessionId, "run");
    const again = await harness.waitForAgentSession(sessionId, (session) => isRunning(session) && session?.status?.launchedGeneration === 3);
    expect(again?.status?.endTime).toBeUndefined();
    expect(harness.kube.get("pods", NAMESPACE, agentSessionName(sessionId))?.metadata.uid).not.toBe(firstPodUid);
  });

  it("deleting the AgentSession removes its pod and secret, then its finalizer", async () => {
    await harness.startOperator();
    const sessionId = randomUUID();
    await harness.createAgentSession(sessionId);
    await harness.waitForAgentSession(sessionId, isRunning);
    await waitForAgentOutput(sessionId);

    await harness.sessions.deleteNamespacedCustomObject({ ...coordinates, name: agentSessionName(sessionId) });
    const during = harness.agentSession(sessionId);
    expect(during?.metadata.deletionTimestamp).toBeDefined();
    await harness.waitForAgentSession(sessionId, (session) => session === undefined);
    expect(harness.kube.get("pods", NAMESPACE, agentSessionName(sessionId))).toBeUndefined();
    expect(harness.kube.get("secrets", NAMESPACE, `${agentSessionName(sessionId)}-agent-token`)).toBeUndefined();
    expect(harness.kubelet.logs(NAMESPACE, agentSessionName(sessionId))).toContain("got SIGTERM");
  });

  it("reports an image that cannot be pulled as Failed with the reason, and frees the pod", async () => {
    await harness.startOperator();
    harness.kubelet.makeImageUnpullable("registry.example/missing:1");
    const sessionId = randomUUID();
    await harness.createAgentSession(sessionId, { image: "registry.example/missing:1" });

    const failed = await harness.waitForAgentSession(sessionId, (session) => phaseOf(session) === "Failed");
    expect(failed?.status?.message).toMatch(/^(ErrImagePull|ImagePullBackOff): Back-off pulling image "registry.example\/missing:1"/);
    expect(failed?.status?.conditions?.find((condition) => condition.type === "Ready")?.reason).toMatch(/ErrImagePull|ImagePullBackOff/);
    await harness.waitForPod(sessionId, (pod) => pod === undefined);
    // The failure stays recorded after the pod is gone.
    expect(phaseOf(harness.agentSession(sessionId))).toBe("Failed");
  });

  it("reports a pod past its activeDeadlineSeconds as Failed with DeadlineExceeded", async () => {
    await harness.startOperator();
    const sessionId = randomUUID();
    await harness.createAgentSession(sessionId, { activeDeadlineSeconds: 1 });
    const failed = await harness.waitForAgentSession(sessionId, (session) => phaseOf(session) === "Failed");
    expect(failed?.status?.message).toMatch(/^DeadlineExceeded/);
  });

  it("a restarted operator adopts the running pod instead of creating another", async () => {
    const first = await harness.startOperator("operator-a");
    const sessionId = randomUUID();
    await harness.createAgentSession(sessionId);
    await harness.waitForAgentSession(sessionId, isRunning);
    const podUid = harness.kube.get("pods", NAMESPACE, agentSessionName(sessionId))?.metadata.uid;
    await first.stop();

    const second = await harness.startOperator("operator-b");
    await expect.poll(() => successfulReconciles(second), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(harness.kube.get("pods", NAMESPACE, agentSessionName(sessionId))?.metadata.uid).toBe(podUid);
    expect(harness.kube.requests.filter((request) => request.method === "POST" && request.path.endsWith("/pods"))).toHaveLength(1);
    expect(phaseOf(harness.agentSession(sessionId))).toBe("Running");

    await setDesiredState(sessionId, "stop");
    await harness.waitForAgentSession(sessionId, (session) => phaseOf(session) === "Stopped");
    expect(harness.kube.list("pods", NAMESPACE, `browser-agents.dev/session-id=${sessionId}`)).toHaveLength(0);
  });

  it.each([
    ["cuts", true],
    ["closes", false],
  ])("keeps reacting after the server %s its watches and forgets their history", async (_how, abrupt) => {
    await harness.startOperator();
    const first = randomUUID();
    await harness.createAgentSession(first);
    await harness.waitForAgentSession(first, isRunning);

    expect(harness.kube.dropWatches({ abrupt })).toBeGreaterThanOrEqual(3);
    harness.kube.expireHistory();
    const second = randomUUID();
    await harness.createAgentSession(second);
    await harness.waitForAgentSession(second, isRunning);
    await setDesiredState(first, "stop");
    await harness.waitForAgentSession(first, (session) => phaseOf(session) === "Stopped");
  });

  it("with two operators, only the lease holder acts; the other takes over when it leaves", async () => {
    const leader = await harness.startOperator("operator-a");
    await expect.poll(() => leader.isLeader()).toBe(true);
    const standby = await harness.startOperator("operator-b");
    const sessionId = randomUUID();
    await harness.createAgentSession(sessionId);
    await harness.waitForAgentSession(sessionId, isRunning);
    expect(standby.isLeader()).toBe(false);
    const lease = harness.kube.get("leases", NAMESPACE, "browser-agents-operator") as { spec?: { holderIdentity?: string } } | undefined;
    expect(lease?.spec?.holderIdentity).toBe("operator-a");

    await leader.stop();
    await expect.poll(() => standby.isLeader(), { timeout: 10_000 }).toBe(true);
    const next = randomUUID();
    await harness.createAgentSession(next);
    await harness.waitForAgentSession(next, isRunning);
    expect((harness.kube.get("leases", NAMESPACE, "browser-agents-operator") as { spec?: { holderIdentity?: string } } | undefined)?.spec?.holderIdentity).toBe("operator-b");
  });

  it("stops acting when it cannot renew its lease, and acts again once it can", async () => {
    const operator = await harness.startOperator("operator-a");
    await expect.poll(() => operator.isLeader()).toBe(true);
    const restore = harness.kube.failRequests({ resource: "leases", code: 503, times: Number.POSITIVE_INFINITY });
    await expect.poll(() => operator.isLeader(), { timeout: 10_000 }).toBe(false);
    const sessionId = randomUUID();
    await harness.createAgentSession(sessionId);
    // Give a (wrongly) acting operator ample time to create the pod; none may appear.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(harness.kube.get("pods", NAMESPACE, agentSessionName(sessionId))).toBeUndefined();
    restore();
    await harness.waitForAgentSession(sessionId, isRunning);
    expect(operator.isLeader()).toBe(true);
  });

  it("sweeps pods and secrets labelled as its own whose AgentSession is gone", async () => {
    const labels = { "app.kubernetes.io/managed-by": "browser-agents-operator", "browser-agents.dev/session-id": randomUUID() };
    harness.kube.create("pods", NAMESPACE, { metadata: { name: "orphan-pod", labels }, spec: { containers: [{ name: "agent", image: "x", command: ["node", "-e", "setInterval(() => {}, 1000)"] }], terminationGracePeriodSeconds: 0 } });
    harness.kube.create("secrets", NAMESPACE, { metadata: { name: "orphan-secret", labels }, data: {} });
    harness.kube.create("secrets", NAMESPACE, { metadata: { name: "someone-elses" }, data: {} });
    await harness.startOperator();
    await harness.kube.waitFor("pods", NAMESPACE, "orphan-pod", (pod) => pod === undefined);
    await harness.kube.waitFor("secrets", NAMESPACE, "orphan-secret", (secret) => secret === undefined);
    expect(harness.kube.get("secrets", NAMESPACE, "someone-elses")).toBeDefined();
  });

  it("serves metrics, liveness and readiness", async () => {
    const operator = await harness.startOperator();
    const sessionId = randomUUID();
    await harness.createAgentSession(sessionId);
    await harness.waitForAgentSession(sessionId, isRunning);
    const base = `http://127.0.0.1:${operator.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    await expect.poll(async () => (await fetch(`${base}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/browser_agents_operator_reconcile_duration_seconds_count\{result="success"\} [1-9]/);
    expect(metrics).toContain('browser_agents_operator_reconcile_errors_total{kind="unexpected"} 0');
    expect(metrics).toMatch(/browser_agents_operator_pod_start_duration_seconds_count 1/);
    await expect.poll(async () => (await (await fetch(`${base}/metrics`)).text())).toContain('browser_agents_operator_sessions_running{tenant="tenant-a"} 1');
    expect(metrics).toContain("browser_agents_operator_leader 1");
  });
});
