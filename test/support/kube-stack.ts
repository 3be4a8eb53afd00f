import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  LABEL_MANAGED_BY,
  LABEL_SESSION_ID,
  MANAGED_BY_VALUE,
  agentSessionName,
  agentTokenSecretName,
  type AgentSession,
} from "@browser-agents/protocol";
import { startFakeLlm, type FakeLlm, type FakeLlmScript } from "../fake-llm/index.js";
import { readCrdFile, startFakeKube, startFakeKubelet, type FakeKube, type FakeKubelet, type KubeObject } from "../fake-kube/index.js";
import { startTestSite, type TestSite } from "../site/index.js";
import { TEST_SIGNING_KEY, startApiHarness, type ApiHarness } from "./api-harness.js";
import { startOperatorProcess, type OperatorProcess } from "./operator-process.js";
import { TEST_LLM_KEY, scriptedModelEnv } from "./scripted-model.js";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CRD = join(REPO_ROOT, "crds/agentsession.yaml");

export const KUBE_NAMESPACE = "agents";
export const AGENT_IMAGE = "browser-agents/agent-pod:e2e";
const LEASE_NAME = "browser-agents-operator";

export interface KubeStack {
  api: ApiHarness;
  llm: FakeLlm;
  site: TestSite;
  kube: FakeKube;
  kubelet: FakeKubelet;
  key: string;
  namespace: string;
  /** API, operators (prefixed `[operator <identity>]`) and pods (`[pod <name>]`), in arrival order. */
  logLines: string[];
  startOperator(identity: string): Promise<OperatorProcess>;
  leaseHolder(): string | undefined;
  agentSession(sessionId: string): AgentSession | undefined;
  pod(sessionId: string): KubeObject | undefined;
  /** uids of every pod ever created for the session, oldest first. */
  podsCreated(sessionId: string): string[];
  secret(sessionId: string): KubeObject | undefined;
  /** Pods and secrets the operator made whose AgentSession is gone. */
  orphans(): string[];
  close(): Promise<void>;
}

export interface KubeStackOptions {
  scripts?: (site: TestSite) => FakeLlmScript[];
  env?: Record<string, string>;
}

/**
 * The platform as installed on a cluster, on one machine: a fake Kubernetes API server holding
 * the AgentSession CRD, operator replicas as child processes, a fake kubelet that runs each pod's
 * container (the real agent-pod with real Chromium) as a local process, the API with its
 * Kubernetes runtime, a scripted model and a local web site.
 */
export async function startKubeStack(options: KubeStackOptions = {}): Promise<KubeStack> {
  const logLines: string[] = [];
  const directory = await mkdtemp(join(tmpdir(), "kube-stack-"));
  const agentHome = join(directory, "agent-home");
  const kubeconfigPath = join(directory, "kubeconfig");
  const cleanups: Array<() => Promise<unknown>> = [async () => rm(directory, { recursive: true, force: true })];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  };

  try {
    const site = await startTestSite();
    cleanups.push(() => site.close());
    const llm = await startFakeLlm({ scripts: options.scripts?.(site) ?? [], apiKey: TEST_LLM_KEY });
    cleanups.push(() => llm.close());
    const kube = await startFakeKube({ crds: await readCrdFile(CRD), namespace: KUBE_NAMESPACE });
    cleanups.push(() => kube.close());
    await writeFile(kubeconfigPath, kube.kubeconfigYaml);
    await mkdir(agentHome);
    const createdPods: { name: string; uid: string }[] = [];
    const stopRecording = kube.store.subscribe((event) => {
      if (event.storageKey === "pods" && event.type === "ADDED") {
        createdPods.push({ name: event.object.metadata.name ?? "", uid: event.object.metadata.uid ?? "" });
      }
    });
    cleanups.push(async () => stopRecording());

    const kubelet = startFakeKubelet({
      kube,
      cwd: REPO_ROOT,
      retryIntervalMs: 100,
      // Several "pods" share this machine: DevTools on loopback with a free port, a writable HOME.
      envOverrides: { DEVTOOLS_ADDRESS: "127.0.0.1", DEVTOOLS_PORT: "0", HOME: agentHome, TMPDIR: agentHome },
      onOutput: (pod, _stream, text) => {
        for (const line of text.split("\n")) if (line.trim()) logLines.push(`[pod ${pod.name}] ${line}`);
      },
    });
    cleanups.push(() => kubelet.close());

    const api = await startApiHarness(
      {
        SESSION_RUNTIME: "kubernetes",
        KUBECONFIG: kubeconfigPath,
        KUBE_NAMESPACE,
        AGENT_IMAGE,
        AGENT_CPU_REQUEST: "100m",
        AGENT_MEMORY_REQUEST: "256Mi",
        AGENT_TOKEN_SIGNING_KEY: TEST_SIGNING_KEY,
        LOG_LEVEL: "info",
        ...scriptedModelEnv(llm.baseUrl),
        ...options.env,
      },
      { logLines },
    );
    cleanups.push(() => api.close());
    const key = await api.newTenantKey();

    const operators: OperatorProcess[] = [];
    // Operators stop before the kubelet and the server they talk to.
    cleanups.push(() => Promise.all(operators.map((operator) => operator.stop("SIGTERM"))));

    const operatorEnv = (identity: string): Record<string, string> => ({
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: directory,
      KUBECONFIG: kubeconfigPath,
      AGENT_TOKEN_SIGNING_KEY: TEST_SIGNING_KEY,
      WATCH_NAMESPACE: KUBE_NAMESPACE,
      POD_NAME: identity,
      LOG_LEVEL: "info",
      METRICS_HOST: "127.0.0.1",
      METRICS_PORT: "0",
      // Short enough for a takeover within a test, long enough that a busy machine keeps its leader.
      LEASE_DURATION_SECONDS: "5",
      LEASE_RENEW_DEADLINE_SECONDS: "4",
      LEASE_RETRY_PERIOD_SECONDS: "1",
      RETRY_BASE_DELAY_MS: "100",
      RETRY_MAX_DELAY_MS: "2000",
      SWEEP_INTERVAL_SECONDS: "5",
      // The image's entrypoint, as this machine has it: the local build, from the repository root.
      AGENT_COMMAND: JSON.stringify([process.execPath, "agent-pod/dist/main.js"]),
      AGENT_TERMINATION_GRACE_PERIOD_SECONDS: "10",
    });

    const byLabel = (resource: string, sessionId: string) =>
      kube.list(resource, KUBE_NAMESPACE, `${LABEL_SESSION_ID}=${sessionId},${LABEL_MANAGED_BY}=${MANAGED_BY_VALUE}`);

    return {
      api,
      llm,
      site,
      kube,
      kubelet,
      key,
      namespace: KUBE_NAMESPACE,
      logLines,
      async startOperator(identity) {
        const operator = startOperatorProcess(identity, operatorEnv(identity), (_stream, line) => logLines.push(`[operator ${identity}] ${line}`));
        operators.push(operator);
        await operator.port();
        return operator;
      },
      leaseHolder: () => {
        const lease = kube.get("leases", KUBE_NAMESPACE, LEASE_NAME) as { spec?: { holderIdentity?: string } } | undefined;
        return lease?.spec?.holderIdentity || undefined;
      },
      agentSession: (sessionId) => kube.get("agentsessions", KUBE_NAMESPACE, agentSessionName(sessionId)) as AgentSession | undefined,
      pod: (sessionId) => byLabel("pods", sessionId)[0],
      podsCreated: (sessionId) => createdPods.filter((pod) => pod.name === agentSessionName(sessionId)).map((pod) => pod.uid),
      secret: (sessionId) => kube.get("secrets", KUBE_NAMESPACE, agentTokenSecretName(agentSessionName(sessionId))),
      orphans: () => {
        const owners = new Set(kube.list("agentsessions", KUBE_NAMESPACE).map((session) => session.metadata.uid));
        const managed = [...kube.list("pods", KUBE_NAMESPACE, `${LABEL_MANAGED_BY}=${MANAGED_BY_VALUE}`), ...kube.list("secrets", KUBE_NAMESPACE, `${LABEL_MANAGED_BY}=${MANAGED_BY_VALUE}`)];
        return managed
          .filter((object) => !(object.metadata.ownerReferences ?? []).some((owner) => owners.has(owner.uid)))
          .map((object) => `${object.kind}/${object.metadata.name}`);
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
