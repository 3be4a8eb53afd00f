import { fileURLToPath } from "node:url";
import { agentSessionName, type AgentSession, type AgentSessionSpec } from "@browser-agents/protocol";
import { CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import { parseOperatorConfig } from "../../operator/src/config.js";
import { startOperator, type RunningOperator } from "../../operator/src/operator.js";
import { readCrdFile, startFakeKube, startFakeKubelet, type FakeKube, type FakeKubelet, type KubeObject } from "../fake-kube/index.js";

export const NAMESPACE = "default";
export const SIGNING_KEY = "operator-test-signing-key-0123456789abcdef";
export const AGENT_IMAGE = "browser-agents/agent-pod:test";
const CRD = fileURLToPath(new URL("../../crds/agentsession.yaml", import.meta.url));

/**
 * A stand-in agent: prints what it was given, runs until SIGTERM, then exits 0 like the real one
 * after saving the profile.
 */
const STAND_IN_AGENT = [
  "console.log(JSON.stringify({ sessionId: process.env.AGENT_SESSION_ID, token: process.env.AGENT_TOKEN, apiUrl: process.env.AGENT_API_URL }));",
  "process.on('SIGTERM', () => { console.log('got SIGTERM'); process.exit(0); });",
  "setInterval(() => {}, 1000);",
].join(" ");

export interface Harness {
  kube: FakeKube;
  kubelet: FakeKubelet;
  sessions: CustomObjectsApi;
  startOperator(identity?: string, env?: Record<string, string>): Promise<RunningOperator>;
  createAgentSession(sessionId: string, spec?: Partial<AgentSessionSpec>): Promise<void>;
  agentSession(sessionId: string): AgentSession | undefined;
  waitForAgentSession(sessionId: string, predicate: (session: AgentSession | undefined) => boolean, timeoutMs?: number): Promise<AgentSession | undefined>;
  waitForPod(sessionId: string, predicate: (pod: KubeObject | undefined) => boolean, timeoutMs?: number): Promise<KubeObject | undefined>;
  close(): Promise<void>;
}

const coordinates = { group: "browser-agents.dev", version: "v1alpha1", plural: "agentsessions", namespace: NAMESPACE } as const;

export async function startHarness(): Promise<Harness> {
  const kube = await startFakeKube({ crds: await readCrdFile(CRD), bookmarkIntervalMs: 60_000 });
  const kubelet = startFakeKubelet({ kube, retryIntervalMs: 100 });
  // Each operator gets a client of its own, as separate processes would.
  const clientConfig = () => {
    const config = new KubeConfig();
    config.loadFromString(kube.kubeconfigYaml);
    return config;
  };
  const sessions = clientConfig().makeApiClient(CustomObjectsApi);
  const operators: RunningOperator[] = [];

  const agentSession = (sessionId: string) => kube.get("agentsessions", NAMESPACE, agentSessionName(sessionId)) as AgentSession | undefined;

  return {
    kube,
    kubelet,
    sessions,
    async startOperator(identity = "operator-a", env = {}) {
      const config = parseOperatorConfig({
        AGENT_TOKEN_SIGNING_KEY: SIGNING_KEY,
        WATCH_NAMESPACE: NAMESPACE,
        POD_NAME: identity,
        METRICS_HOST: "127.0.0.1",
        METRICS_PORT: "0",
        LEADER_ELECTION: "true",
        LEASE_DURATION_SECONDS: "3",
        LEASE_RENEW_DEADLINE_SECONDS: "2",
        LEASE_RETRY_PERIOD_SECONDS: "1",
        RETRY_BASE_DELAY_MS: "50",
        RETRY_MAX_DELAY_MS: "1000",
        AGENT_COMMAND: JSON.stringify(["node", "-e", STAND_IN_AGENT]),
        AGENT_TERMINATION_GRACE_PERIOD_SECONDS: "5",
        ...env,
      });
      const operator = await startOperator({ config, kubeConfig: clientConfig(), logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }) });
      operators.push(operator);
      return operator;
    },
    async createAgentSession(sessionId, spec = {}) {
      const body: AgentSession = {
        apiVersion: "browser-agents.dev/v1alpha1",
        kind: "AgentSession",
        metadata: { name: agentSessionName(sessionId) },
        spec: {
          sessionId,
          tenant: "tenant-a",
          desiredState: "run",
          apiUrl: "http://127.0.0.1:9",
          image: AGENT_IMAGE,
          ...spec,
        },
      };
      await sessions.createNamespacedCustomObject({ ...coordinates, body });
    },
    agentSession,
    async waitForAgentSession(sessionId, predicate, timeoutMs = 10_000) {
      const found = await kube.waitFor("agentsessions", NAMESPACE, agentSessionName(sessionId), (object) => predicate(object as AgentSession | undefined), { timeoutMs });
      return found as AgentSession | undefined;
    },
    waitForPod(sessionId, predicate, timeoutMs = 10_000) {
      return kube.waitFor("pods", NAMESPACE, agentSessionName(sessionId), predicate, { timeoutMs });
    },
    async close() {
      await Promise.allSettled(operators.map((operator) => operator.stop()));
      await kubelet.close();
      await kube.close();
    },
  };
}

export const phaseOf = (session: AgentSession | undefined) => session?.status?.phase;
