import { randomUUID } from "node:crypto";
import { agentSessionName, type AgentSession } from "@browser-agents/protocol";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKubernetesRuntime, type KubernetesRuntime } from "../../api/src/runtime/kubernetes/kubernetes-runtime.js";
import type { RuntimeEvents, SessionRef } from "../../api/src/runtime/session-runtime.js";
import { NAMESPACE, phaseOf, startHarness, type Harness } from "./operator-harness.js";

type Exit = { sessionId: string; detail: Parameters<RuntimeEvents["agentExited"]>[1] };

let harness: Harness;
let runtime: KubernetesRuntime;
let exits: Exit[];

beforeEach(async () => {
  harness = await startHarness();
  await harness.startOperator();
  exits = [];
  runtime = await createKubernetesRuntime({
    kubeConfig: harness.kube.kubeConfig,
    namespace: NAMESPACE,
    apiUrlForAgents: "http://127.0.0.1:9",
    agentImage: "browser-agents/agent-pod:test",
    podResources: { requests: { cpu: "100m", memory: "256Mi" } },
    events: {
      agentExited: async (sessionId, detail) => {
        exits.push({ sessionId, detail });
      },
    },
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
  });
});

afterEach(async () => {
  await runtime.close();
  await harness.close();
});

const ref = (id = randomUUID()): SessionRef => ({ id, tenantId: randomUUID(), tenantName: "Acme" });
const isRunning = (session: AgentSession | undefined) => phaseOf(session) === "Running";

describe("the API's Kubernetes runtime with the operator", () => {
  it("start creates an AgentSession the operator runs; the live view points at the pod", async () => {
    const session = ref();
    await runtime.start(session);
    await runtime.start(session);
    const running = await harness.waitForAgentSession(session.id, isRunning);
    expect(running?.spec).toMatchObject({ sessionId: session.id, tenant: session.tenantId, desiredState: "run", apiUrl: "http://127.0.0.1:9" });
    expect(harness.kube.list("agentsessions", NAMESPACE)).toHaveLength(1);
    expect(await runtime.devtoolsEndpoint({ id: session.id, devtoolsPort: null })).toEqual({ host: "127.0.0.1", port: 9222 });
    expect(await runtime.devtoolsEndpoint({ id: randomUUID(), devtoolsPort: null })).toBeNull();
  });

  it("stop ends the pod and start runs a new one", async () => {
    const session = ref();
    await runtime.start(session);
    await harness.waitForAgentSession(session.id, isRunning);
    await runtime.stop(session, "task");
    await harness.waitForAgentSession(session.id, (found) => phaseOf(found) === "Stopped");
    expect(await runtime.devtoolsEndpoint({ id: session.id, devtoolsPort: null })).toBeNull();
    await runtime.start(session);
    await harness.waitForAgentSession(session.id, (found) => isRunning(found) && found?.spec.desiredState === "run");
    expect(exits).toEqual([]);
  });

  it("delete removes the AgentSession, and with it the pod and the secret", async () => {
    const session = ref();
    await runtime.start(session);
    await harness.waitForAgentSession(session.id, isRunning);
    await runtime.delete(session);
    await harness.waitForAgentSession(session.id, (found) => found === undefined);
    expect(harness.kube.get("pods", NAMESPACE, agentSessionName(session.id))).toBeUndefined();
    expect(harness.kube.get("secrets", NAMESPACE, `${agentSessionName(session.id)}-agent-token`)).toBeUndefined();
    await runtime.delete(session);
    await runtime.stop(session, "session");
  });

  it("reports a failed pod once, as pod_failed with the reason", async () => {
    harness.kubelet.makeImageUnpullable("browser-agents/agent-pod:test");
    const session = ref();
    await runtime.start(session);
    await expect.poll(() => exits, { timeout: 10_000 }).toHaveLength(1);
    expect(exits[0]?.sessionId).toBe(session.id);
    expect(exits[0]?.detail.failureKind).toBe("pod_failed");
    expect(exits[0]?.detail.message).toMatch(/ErrImagePull|ImagePullBackOff/);
    // Later status writes (the broken pod is deleted) are not reported again.
    await harness.waitForPod(session.id, (pod) => pod === undefined);
    expect(exits).toHaveLength(1);
  });

  it("still reports failures after the server cuts its watch and forgets the history", async () => {
    const first = ref();
    await runtime.start(first);
    await harness.waitForAgentSession(first.id, isRunning);
    harness.kube.dropWatches({ abrupt: true });
    harness.kube.expireHistory();
    harness.kubelet.makeImageUnpullable("browser-agents/agent-pod:test");
    const second = ref();
    await runtime.start(second);
    await expect.poll(() => exits.map((exit) => exit.sessionId), { timeout: 10_000 }).toEqual([second.id]);
  });

  it("reports a pod stopped by its deadline as timed_out", async () => {
    await runtime.close();
    runtime = await createKubernetesRuntime({
      kubeConfig: harness.kube.kubeConfig,
      namespace: NAMESPACE,
      apiUrlForAgents: "http://127.0.0.1:9",
      agentImage: "browser-agents/agent-pod:test",
      activeDeadlineSeconds: 1,
      events: { agentExited: async (sessionId, detail) => void exits.push({ sessionId, detail }) },
      logger: pino({ level: "silent" }),
    });
    const session = ref();
    await runtime.start(session);
    await expect.poll(() => exits, { timeout: 10_000 }).toHaveLength(1);
    expect(exits[0]).toMatchObject({ sessionId: session.id, detail: { failureKind: "timed_out" } });
  });

  it("recover deletes AgentSessions of sessions that are not live and reports live ones that lost theirs", async () => {
    const live = ref();
    const ended = ref();
    const lost = ref();
    await runtime.start(live);
    await runtime.start(ended);
    await harness.waitForAgentSession(live.id, isRunning);
    await harness.waitForAgentSession(ended.id, isRunning);

    await runtime.recover([live, lost]);
    await harness.waitForAgentSession(ended.id, (found) => found === undefined);
    expect(phaseOf(harness.agentSession(live.id))).toBe("Running");
    expect(exits).toEqual([{ sessionId: lost.id, detail: { failureKind: "pod_failed", message: expect.stringContaining("no longer exists") } }]);
  });
});
