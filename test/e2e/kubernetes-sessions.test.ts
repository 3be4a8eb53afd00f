import { randomUUID } from "node:crypto";
import { agentSessionName } from "@browser-agents/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hangingScript, loginScript, type FakeLlmScript } from "../fake-llm/index.js";
import { waitFor } from "../support/agent-processes.js";
import { AGENT_IMAGE, startKubeStack, type KubeStack } from "../support/kube-stack.js";
import type { OperatorProcess } from "../support/operator-process.js";
import { sessionClient } from "../support/session-client.js";

let stack: KubeStack;
let leader: OperatorProcess;

/** Model calls that answer only when the test opens their gate: an agent held mid-task. */
const gates = new Map<string, { opened: Promise<void>; open: () => void }>();
const gateFor = (marker: string) => {
  let gate = gates.get(marker);
  if (!gate) {
    let open = () => {};
    const opened = new Promise<void>((resolve) => (open = resolve));
    gate = { opened, open };
    gates.set(marker, gate);
  }
  return gate;
};
const gatedScript = (): FakeLlmScript => ({
  name: "gated",
  match: /GATED ([0-9a-f-]{36})/,
  respond: async (ctx) => {
    const marker = /GATED ([0-9a-f-]{36})/.exec(ctx.task)?.[1] ?? "";
    await gateFor(marker).opened;
    return ctx.done({ success: true, output: { marker } });
  },
});

const accountSchema = {
  type: "object",
  properties: { plan: { type: "string" }, credits: { type: "integer" } },
  required: ["plan", "credits"],
  additionalProperties: false,
};

beforeAll(async () => {
  stack = await startKubeStack({
    env: { MAX_STEPS: "8" },
    scripts: (site) => [loginScript({ siteUrl: site.url, match: /LOGIN-A/ }), hangingScript({ match: /HANG/ }), gatedScript()],
  });
  leader = await stack.startOperator("operator-a");
  await leader.ready();
}, 120_000);

afterAll(async () => {
  for (const gate of gates.values()) gate.open();
  await stack?.close();
});

afterEach((context) => {
  if (context.task.result?.state === "fail") process.stderr.write(`${stack.logLines.slice(-80).join("\n")}\n`);
});

const client = () => sessionClient(stack.api, stack.key);
const call = (method: string, path: string, body?: unknown) => client().call(method, path, body);
const createSession = (body: Record<string, unknown>) => client().createSession(body);
const getSession = (id: string) => client().getSession(id);
const untilEnded = (id: string, timeoutMs?: number) => client().untilEnded(id, timeoutMs);
const messagesOf = (id: string) => client().messagesOf(id);

const podPhase = (id: string) => (stack.pod(id)?.status as { phase?: string } | undefined)?.phase;
const untilPodRunning = (id: string) => waitFor(() => podPhase(id), (phase) => phase === "Running", 30_000, `the pod of ${id} to run`);
const untilPodGone = (id: string) => waitFor(() => stack.pod(id), (pod) => pod === undefined, 30_000, `the pod of ${id} to go`);
const untilPhase = (id: string, phase: string) =>
  waitFor(() => stack.agentSession(id)?.status?.phase, (seen) => seen === phase, 30_000, `AgentSession of ${id} to be ${phase}`);
/** An ended session holds nothing in the cluster: its AgentSession, pod and secret are gone. */
const untilReleased = async (id: string) => {
  await waitFor(() => [stack.agentSession(id), stack.pod(id), stack.secret(id)], (left) => left.every((item) => item === undefined), 30_000, `the cluster resources of ${id} to go`);
};
/** The agent in the pod is inside a model call that will not answer by itself. */
const untilModelCallPending = (scriptName: string, marker: string) =>
  waitFor(
    () => stack.llm.requests.some((r) => r.scriptName === scriptName && r.outcome === "pending" && JSON.stringify(r.body).includes(marker)),
    Boolean,
    60_000,
    `a pending ${scriptName} model call for ${marker}`,
  );
const startHanging = async () => {
  const marker = randomUUID();
  const session = await createSession({ task: `HANG: until told otherwise ${marker}` });
  await untilPodRunning(session.id);
  await untilModelCallPending("hang", marker);
  return session;
};
const startGated = async () => {
  const marker = randomUUID();
  const session = await createSession({ task: `GATED ${marker}` });
  await untilPodRunning(session.id);
  await untilModelCallPending("gated", marker);
  return { session, marker };
};

// Real Chromium in every pod, and lease expiries to sit out: more than the default 30 s on a busy machine.
describe("sessions on the Kubernetes runtime, end to end", { timeout: 120_000 }, () => {
  it("runs a task in an agent pod and finishes with its output", async () => {
    const session = await createSession({ task: "LOGIN-A: log in to the site and report plan and credits", outputSchema: accountSchema });
    expect(session.status).toBe("running");
    const done = await untilEnded(session.id);
    expect(done).toMatchObject({ status: "stopped", isTaskSuccessful: true, failureKind: null, output: { plan: "Pro", credits: 42 } });
    // The agent ran in the pod the operator made, and left it once the session ended.
    expect(stack.kubelet.logs(stack.namespace, agentSessionName(session.id))).toContain("agent starting");
    await untilReleased(session.id);
    expect(stack.podsCreated(session.id)).toHaveLength(1);
  });

  it("stop with strategy session ends the pod", async () => {
    const session = await startHanging();
    const stopped = await call("POST", `/v3/sessions/${session.id}/stop`, { strategy: "session" });
    expect(stopped.body).toMatchObject({ status: "stopped", isTaskSuccessful: false, failureKind: "cancelled" });
    await untilReleased(session.id);
    expect((await getSession(session.id)).status).toBe("stopped");
  });

  it("stop with strategy task leaves the session idle, and new work runs in a new pod", async () => {
    const session = await startHanging();
    const [firstPod] = stack.podsCreated(session.id);
    const idle = await call("POST", `/v3/sessions/${session.id}/stop`, { strategy: "task" });
    expect(idle.body).toMatchObject({ status: "idle", failureKind: "cancelled" });
    await untilPodGone(session.id);
    await untilPhase(session.id, "Stopped");
    expect((await getSession(session.id)).status).toBe("idle");

    const more = await call("POST", "/v3/sessions", { sessionId: session.id, task: "LOGIN-A: log in again" });
    expect(more.body).toMatchObject({ id: session.id, status: "running", failureKind: null });
    expect(await untilEnded(session.id)).toMatchObject({ status: "stopped", isTaskSuccessful: true, output: { plan: "Pro", credits: 42 } });
    const pods = stack.podsCreated(session.id);
    expect(pods).toHaveLength(2);
    expect(pods[1]).not.toBe(firstPod);
  });

  it("delete while running removes the pod, its secret and the AgentSession", async () => {
    const session = await startHanging();
    expect(stack.secret(session.id)).toBeDefined();
    expect((await call("DELETE", `/v3/sessions/${session.id}`)).status).toBe(204);
    expect((await call("GET", `/v3/sessions/${session.id}`)).status).toBe(404);
    await waitFor(() => stack.agentSession(session.id), (found) => found === undefined, 30_000, "the AgentSession to go");
    expect(stack.pod(session.id)).toBeUndefined();
    expect(stack.secret(session.id)).toBeUndefined();
  });

  it("a pod that cannot start ends the session in error with pod_failed and the pod's reason", async () => {
    stack.kubelet.makeImageUnpullable(AGENT_IMAGE);
    try {
      const session = await createSession({ task: "LOGIN-A: never gets a browser" });
      const ended = await untilEnded(session.id, 10_000);
      expect(ended).toMatchObject({ status: "error", failureKind: "pod_failed", isTaskSuccessful: false });
      const last = (await messagesOf(session.id)).at(-1);
      expect(last?.type).toBe("error");
      expect(last?.data).toMatch(/ErrImagePull|ImagePullBackOff/);
      // The session ended: the stuck pod, its secret and the AgentSession are removed.
      await untilReleased(session.id);
    } finally {
      stack.kubelet.makeImagePullable(AGENT_IMAGE);
    }
  });

  it("an operator killed mid-session is replaced without a duplicate pod or an orphan, and the session finishes", async () => {
    const { session, marker } = await startGated();
    const { session: doomed } = await startGated();
    const [podUid] = stack.podsCreated(session.id);

    await leader.stop("SIGKILL");
    // With no operator, the deletion waits on the finalizer and the doomed agent keeps running.
    expect((await call("DELETE", `/v3/sessions/${doomed.id}`)).status).toBe(204);
    expect(stack.agentSession(doomed.id)?.metadata.deletionTimestamp).toBeDefined();
    expect(stack.pod(doomed.id)).toBeDefined();

    leader = await stack.startOperator("operator-b");
    // The killed replica's lease must expire before the new one may act.
    await waitFor(() => stack.leaseHolder(), (holder) => holder === "operator-b", 30_000, "operator-b to lead");
    await leader.ready();
    await waitFor(() => stack.agentSession(doomed.id), (found) => found === undefined, 30_000, "the deleted session's AgentSession to go");
    expect(stack.pod(doomed.id)).toBeUndefined();
    expect(stack.secret(doomed.id)).toBeUndefined();

    gateFor(marker).open();
    expect(await untilEnded(session.id)).toMatchObject({ status: "stopped", isTaskSuccessful: true, output: { marker } });
    await untilReleased(session.id);
    expect(stack.podsCreated(session.id)).toEqual([podUid]);
    expect(stack.orphans()).toEqual([]);
  });

  it("recovers when the server drops every watch, and a later session still runs", async () => {
    const before = await leader.metric("browser_agents_operator_reconcile_duration_seconds_count");
    expect(stack.kube.dropWatches({ abrupt: true })).toBeGreaterThan(0);
    stack.kube.expireHistory();
    const session = await createSession({ task: "LOGIN-A: after the watches dropped" });
    expect(await untilEnded(session.id)).toMatchObject({ status: "stopped", isTaskSuccessful: true, output: { plan: "Pro", credits: 42 } });
    await untilReleased(session.id);
    expect(stack.podsCreated(session.id)).toHaveLength(1);
    expect(await leader.metric("browser_agents_operator_reconcile_duration_seconds_count")).toBeGreaterThan(before ?? 0);
  });

  it("of two replicas only the lease holder acts: one pod per session", async () => {
    const standby = await stack.startOperator("operator-c");
    await standby.ready();
    const session = await createSession({ task: "LOGIN-A: with two replicas" });
    expect(await untilEnded(session.id)).toMatchObject({ status: "stopped", isTaskSuccessful: true });
    await untilReleased(session.id);
    expect(stack.podsCreated(session.id)).toHaveLength(1);
    expect(stack.leaseHolder()).toBe("operator-b");
    expect(await leader.metric("browser_agents_operator_leader")).toBe(1);
    expect(await standby.metric("browser_agents_operator_leader")).toBe(0);
    expect(await standby.metric("browser_agents_operator_reconcile_duration_seconds_count")).toBe(0);

    // The leader leaves gracefully: the standby takes over at once and runs the next session.
    await leader.stop("SIGTERM");
    leader = standby;
    await waitFor(() => stack.leaseHolder(), (holder) => holder === "operator-c", 15_000, "operator-c to lead");
    const next = await createSession({ task: "LOGIN-A: after the hand-over" });
    expect(await untilEnded(next.id)).toMatchObject({ status: "stopped", isTaskSuccessful: true });
    expect(stack.podsCreated(next.id)).toHaveLength(1);
    expect(stack.orphans()).toEqual([]);
  });
});
