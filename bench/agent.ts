// npm run bench:agent: figures of one agent on the local test site, with real agent-pod processes
// and Chromium driven by the scripted fake LLM (so no model time is in any figure). Sessions run
// one at a time. BENCH_AGENT_SESSIONS (default 10, at most 30) sets how many are measured.
import { randomUUID } from "node:crypto";
import os from "node:os";
import { agentPids, waitFor } from "../test/support/agent-processes.js";
import { startAgentBenchStack, type AgentBenchStack } from "./support/agent-bench-stack.js";
import { agentMilestones } from "./support/agent-log-times.js";
import { rootOf, treeMemory, type TreeMemory } from "./support/agent-process-memory.js";
import { type SessionRun, printReport } from "./support/agent-report.js";
import { modelCallsOf } from "./support/agent-requests.js";
import { tourScript } from "./support/agent-tour-script.js";
import { CANCEL_MARKER, measureCancellation } from "./support/agent-cancel.js";
import { hangingScript } from "../test/fake-llm/index.js";

const SESSIONS = Math.min(Math.max(Number(process.env["BENCH_AGENT_SESSIONS"] ?? 10) || 10, 1), 30);
const WARMUP_SESSIONS = 1;
const TASK_MARKER = "AGENT-BENCH-TOUR";
const SESSION_TIMEOUT_MS = 90_000;
const FIRST_STEP_POLL_MS = 50;
const END_POLL_MS = 250;
const IDLE_SETTLE_MS = 1_000;
const MEMORY_SAMPLES = 5;
const MEMORY_SAMPLE_EVERY_MS = 200;
const WHOLE_RUN_LIMIT_MS = 8 * 60_000;
const CANCEL_RUNS = 5;

interface SessionView {
  status: string;
  stepCount: number;
  isTaskSuccessful: boolean | null;
  failureKind: string | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function getSession(stack: AgentBenchStack, id: string): Promise<SessionView> {
  const response = await stack.call("GET", `/v3/sessions/${id}`);
  if (response.status !== 200) throw new Error(`GET session ${id}: HTTP ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as SessionView;
}

async function runOneSession(stack: AgentBenchStack, run: number): Promise<SessionRun> {
  const marker = `${TASK_MARKER} run ${run} ${randomUUID()}`;
  const postedAt = Date.now();
  const created = await stack.call("POST", "/v3/sessions", { task: `${marker}: tour the test site`, keepAlive: true });
  if (created.status !== 200) throw new Error(`POST /v3/sessions: HTTP ${created.status} ${JSON.stringify(created.body)}`);
  const id = (created.body as { id: string }).id;

  const deadline = postedAt + SESSION_TIMEOUT_MS;
  let view = await getSession(stack, id);
  while (view.status === "running" && view.stepCount < 1 && Date.now() < deadline) {
    await sleep(FIRST_STEP_POLL_MS);
    view = await getSession(stack, id);
  }
  const firstStepReportedAt = Date.now();
  while (view.status === "running" && Date.now() < deadline) {
    await sleep(END_POLL_MS);
    view = await getSession(stack, id);
  }
  if (view.status !== "idle" || view.isTaskSuccessful !== true) {
    throw new Error(`session ${id} ended ${view.status} (success ${String(view.isTaskSuccessful)}, ${view.failureKind}); the tour must succeed to be measured`);
  }

  // Idle, browser open on the last page (two tabs): measure, then end the session.
  await sleep(IDLE_SETTLE_MS);
  const root = rootOf(agentPids(id));
  if (root === undefined) throw new Error(`no agent process found for the idle session ${id}`);
  const samples: TreeMemory[] = [];
  for (let i = 0; i < MEMORY_SAMPLES; i += 1) {
    samples.push(treeMemory(root));
    await sleep(MEMORY_SAMPLE_EVERY_MS);
  }
  samples.sort((a, b) => a.rssKb - b.rssKb);
  const memory = samples[Math.floor(samples.length / 2)] as TreeMemory;

  await stack.call("POST", `/v3/sessions/${id}/stop`);
  await waitFor(() => agentPids(id).length, (count) => count === 0, 15_000, `agent of ${id} to exit`);
  return { id, marker, postedAt, firstStepReportedAt, calls: modelCallsOf(stack.llm.requests, marker), milestones: agentMilestones(stack.logLines, id), memory };
}

async function main(): Promise<void> {
  let stack: AgentBenchStack | undefined;
  let closing: Promise<void> | undefined;
  const shutDown = () => (closing ??= stack?.close() ?? Promise.resolve());
  const abort = (why: string) => {
    console.error(why);
    void shutDown().finally(() => process.exit(1));
  };
  process.once("SIGINT", () => abort("interrupted; cleaning up"));
  process.once("SIGTERM", () => abort("terminated; cleaning up"));
  const limit = setTimeout(() => abort(`the benchmark took longer than ${WHOLE_RUN_LIMIT_MS / 60_000} minutes; cleaning up`), WHOLE_RUN_LIMIT_MS);
  try {
    stack = await startAgentBenchStack({
      scripts: (site) => [tourScript({ siteUrl: site.url, match: new RegExp(TASK_MARKER) }), hangingScript({ match: new RegExp(CANCEL_MARKER) })],
      // debug: the agent's "step finished" line splits each step into action and page state.
      env: { MAX_STEPS: "40", MAX_CONCURRENT_SESSIONS: "1", LOG_LEVEL: "debug" },
    });
    const loadAtStart = os.loadavg();
    const runs: SessionRun[] = [];
    for (let run = 0; run < WARMUP_SESSIONS + SESSIONS; run += 1) {
      const result = await runOneSession(stack, run);
      process.stderr.write(`session ${run + 1}/${WARMUP_SESSIONS + SESSIONS} done${run < WARMUP_SESSIONS ? " (warm-up)" : ""}\n`);
      if (run >= WARMUP_SESSIONS) runs.push(result);
    }
    printReport({ runs, siteUrl: stack.site.url, loadAtStart, warmupSessions: WARMUP_SESSIONS, idleSettleMs: IDLE_SETTLE_MS });
    console.log(`\n${await measureCancellation(stack, CANCEL_RUNS)}`);
  } finally {
    clearTimeout(limit);
    await shutDown();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
