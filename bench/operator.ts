// npm run bench:operator: the operator (node operator/dist/main.js, a child process) against the
// fake Kubernetes API server, with a kubelet that runs no processes. Measures how long 1,000 new
// AgentSessions take to get their pods, reconciles per second, and the operator's memory with
// 5,000 AgentSessions. Everything runs on 127.0.0.1; see docs/benchmarks.md.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readCrdFile } from "../test/fake-kube/index.js";
import { startOperatorProcess, type OperatorProcess } from "../test/support/operator-process.js";
import { startBenchApiServer, type BenchApiServer } from "./support/operator-fake-server.js";
import { BENCH_NAMESPACE, createAgentSessions, trackProgress, type Progress } from "./support/operator-load.js";
import { startNullKubelet, type NullKubelet } from "./support/operator-null-kubelet.js";
import { readOperatorBenchSettings } from "./support/operator-settings.js";

const settings = readOperatorBenchSettings(process.env);
const CRD = fileURLToPath(new URL("../crds/agentsession.yaml", import.meta.url));
const RECONCILES = "browser_agents_operator_reconcile_duration_seconds_count";
const RECONCILE_ERRORS = "browser_agents_operator_reconcile_errors_total";
const SIGNING_KEY = "bench-operator-signing-key-0123456789abcdef";
const waitMs = settings.BENCH_OPERATOR_WAIT_SECONDS * 1000;

let directory: string | undefined;
let kube: BenchApiServer | undefined;
let kubelet: NullKubelet | undefined;
let progress: Progress | undefined;
let operator: OperatorProcess | undefined;
/** The end of what the operators wrote to stderr, for error reports. */
let stderrTail = "";
const keepStderr = (stream: "stdout" | "stderr", line: string) => {
  if (stream === "stderr") stderrTail = `${stderrTail}${line}\n`.slice(-4000);
};
let cleaning: Promise<void> | undefined;
const cleanUp = () =>
  (cleaning ??= (async () => {
    await operator?.stop().catch((error: unknown) => console.error("stopping the operator failed:", error));
    progress?.close();
    kubelet?.close();
    await kube?.close().catch((error: unknown) => console.error("closing the fake API server failed:", error));
    if (directory) await rm(directory, { recursive: true, force: true });
  })());

const abandon = (reason: string) => {
  console.error(`\nbench:operator abandoned: ${reason}`);
  if (stderrTail) console.error(stderrTail);
  void cleanUp().finally(() => process.exit(1));
};
const deadline = setTimeout(() => abandon(`still running after ${settings.BENCH_DEADLINE_SECONDS} s`), settings.BENCH_DEADLINE_SECONDS * 1000);
deadline.unref();
process.once("SIGINT", () => abandon("interrupted"));
process.once("SIGTERM", () => abandon("terminated"));

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const rate = (count: number, ms: number) => `${Math.round(count / (ms / 1000))}/s`;

function operatorEnv(kubeconfig: string, identity: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: directory ?? os.tmpdir(),
    KUBECONFIG: kubeconfig,
    AGENT_TOKEN_SIGNING_KEY: SIGNING_KEY,
    WATCH_NAMESPACE: BENCH_NAMESPACE,
    POD_NAME: identity,
    METRICS_HOST: "127.0.0.1",
    METRICS_PORT: "0",
    RECONCILE_CONCURRENCY: String(settings.BENCH_OPERATOR_RECONCILE_CONCURRENCY),
    // Everything else at its production default (leader election on, log level info).
  };
}

async function reconcileCount(): Promise<number> {
  return (await operator?.metric(RECONCILES)) ?? 0;
}

try {
  const total = settings.BENCH_OPERATOR_MEMORY_SESSIONS;
  const burst = Math.min(settings.BENCH_OPERATOR_SESSIONS, total);
  const cpus = os.cpus();
  console.log("# bench:operator\n");
  console.log(`date         ${new Date().toISOString()}`);
  console.log(`cpu          ${cpus.length} x ${cpus[0]?.model.trim() ?? "unknown"}`);
  console.log(`memory       ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`);
  console.log(`node         ${process.version}`);
  console.log(`load average ${os.loadavg().map((value) => value.toFixed(2)).join(" ")} (1/5/15 min, at start; the machine may be shared)`);
  console.log(`setup        test/fake-kube's API server (no garbage collector) in this process, the operator as a child process,`);
  console.log(`             a kubelet that reports every pod Running without running anything`);
  console.log(`operator     RECONCILE_CONCURRENCY=${settings.BENCH_OPERATOR_RECONCILE_CONCURRENCY}, other settings at their defaults`);
  console.log(`creates      ${settings.BENCH_OPERATOR_CREATE_CONCURRENCY} in flight\n`);

  directory = await mkdtemp(join(os.tmpdir(), "bench-operator-"));
  // A watch cache deep enough that no watch falls off it: the figures are the operator's, not re-lists.
  kube = await startBenchApiServer({ crds: await readCrdFile(CRD), namespace: BENCH_NAMESPACE, historyLimit: 20 * total });
  const kubeconfig = join(directory, "kubeconfig");
  await writeFile(kubeconfig, kube.kubeconfigYaml);
  kubelet = startNullKubelet(kube);
  progress = trackProgress(kube);

  operator = startOperatorProcess("bench-operator-1", operatorEnv(kubeconfig, "bench-operator-1"), keepStderr);
  await operator.ready(60_000);
  const idle = operator.memory();
  console.log(`operator idle, no AgentSessions: RSS ${mib(idle.rssBytes)}`);

  // 1. A burst of new AgentSessions: how long until every one has its pod.
  const before = await reconcileCount();
  const start = performance.now();
  await createAgentSessions(kube, burst, settings.BENCH_OPERATOR_CREATE_CONCURRENCY);
  const created = performance.now();
  const podsAt = await progress.until(progress.pods, burst, waitMs, "pods");
  const runningAt = await progress.until(progress.running, burst, waitMs, "AgentSessions Running");
  const burstReconciles = (await reconcileCount()) - before;
  console.log(`\n## ${burst} AgentSessions created at once`);
  console.log(`all created (API calls)            ${seconds(created - start)}`);
  console.log(`all ${burst} pods exist               ${seconds(podsAt - start)} after the first create`);
  console.log(`all ${burst} AgentSessions Running    ${seconds(runningAt - start)} after the first create`);
  console.log(`reconciles                         ${burstReconciles} (${(burstReconciles / burst).toFixed(1)} per AgentSession), ${rate(burstReconciles, runningAt - start)}`);
  console.log(`operator RSS                       ${mib(operator.memory().rssBytes)}`);

  // 2. Up to the memory figure's number of AgentSessions, then let it settle.
  const rest = total - burst;
  if (rest > 0) await createAgentSessions(kube, rest, settings.BENCH_OPERATOR_CREATE_CONCURRENCY, burst);
  await progress.until(progress.pods, total, waitMs, "pods");
  await progress.until(progress.running, total, waitMs, "AgentSessions Running");
  // Longer than the 10 s re-check of AgentSessions that were still starting, so what follows is the resting state.
  await new Promise((resolve) => setTimeout(resolve, 12_000));
  const settledReconciles = await reconcileCount();
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const idleReconciles = (await reconcileCount()) - settledReconciles;
  const held = operator.memory();
  const errors = (await operator.metric(RECONCILE_ERRORS)) ?? 0;
  console.log(`\n## ${total} AgentSessions, all Running`);
  console.log(`operator RSS                       ${mib(held.rssBytes)} (peak ${mib(held.peakRssBytes)})`);
  console.log(`reconciles in 10 s with no changes ${idleReconciles}`);
  console.log(`reconcile errors (all kinds)       ${errors} (conflicts and retries included)`);

  // 3. A restart with every AgentSession in place: list, then one reconcile each, no writes.
  await operator.stop();
  operator = undefined;
  const restartedAt = performance.now();
  operator = startOperatorProcess("bench-operator-2", operatorEnv(kubeconfig, "bench-operator-2"), keepStderr);
  await operator.ready(waitMs);
  const readyAt = performance.now();
  const deadlineAt = Date.now() + waitMs;
  while ((await reconcileCount()) < total) {
    if (Date.now() > deadlineAt) throw new Error(`the restarted operator reconciled ${await reconcileCount()} of ${total}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const resyncedAt = performance.now();
  const restartedMemory = operator.memory();
  await new Promise((resolve) => setTimeout(resolve, 15_000));
  const restartedLater = operator.memory();
  console.log(`\n## Restart with ${total} AgentSessions in place`);
  console.log(`ready (lease taken, all listed)    ${seconds(readyAt - restartedAt)} after start`);
  console.log(`each reconciled once               ${seconds(resyncedAt - restartedAt)} after start, ${rate(total, resyncedAt - readyAt)} after ready`);
  console.log(`pods created by the restart        ${progress.pods() - total}`);
  console.log(`operator RSS                       ${mib(restartedMemory.rssBytes)} right after, ${mib(restartedLater.rssBytes)} 15 s later (peak ${mib(restartedLater.peakRssBytes)})`);
} catch (error) {
  console.error("\nbench:operator failed:", error instanceof Error ? error.message : error);
  if (stderrTail) console.error(stderrTail);
  process.exitCode = 1;
} finally {
  await cleanUp();
  clearTimeout(deadline);
}
