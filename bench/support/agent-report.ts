// Prints the agent benchmark's figures from the measured sessions.
import os from "node:os";
import { type AgentMilestone, firstTime } from "./agent-log-times.js";
import type { TreeMemory } from "./agent-process-memory.js";
import { type ModelCall, pageStateSize, stepGaps } from "./agent-requests.js";
import { percentile, summarize, table } from "./agent-stats.js";
import { tourSteps } from "./agent-tour-script.js";

export interface SessionRun {
  id: string;
  marker: string;
  postedAt: number;
  firstStepReportedAt: number;
  calls: ModelCall[];
  milestones: AgentMilestone[];
  memory: TreeMemory;
}

export interface ReportInput {
  runs: SessionRun[];
  siteUrl: string;
  loadAtStart: number[];
  warmupSessions: number;
  idleSettleMs: number;
}

export function printReport({ runs, siteUrl, loadAtStart, warmupSessions, idleSettleMs }: ReportInput): void {
  const steps = tourSteps(siteUrl);
  const mb = (kb: number) => Math.round(kb / 1024);
  console.log(`agent benchmark, ${new Date().toISOString()}`);
  console.log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), ${mb(os.totalmem() / 1024)} MB RAM, Node ${process.version}`);
  const load = (values: number[]) => values.map((v) => v.toFixed(2)).join(" ");
  console.log(`load average (1/5/15 min) at start: ${load(loadAtStart)}, at end: ${load(os.loadavg())} (the machine is shared: figures move with it)`);
  console.log(`${runs.length} measured sessions (after ${warmupSessions} warm-up), one at a time, each a ${steps.length}-step tour of the test site; model = scripted fake LLM (answers in ~1 ms)`);

  // 1. The agent's own time per step.
  const gaps = runs.flatMap((run) => stepGaps(run.calls).map((gap) => ({ ...gap, run })));
  const splits = gaps.flatMap(({ run, turn, ms }) => {
    const finished = run.milestones.find((m) => m.msg === "step finished" && m.stepNumber === turn + 1)?.time;
    const answered = run.calls.find((c) => c.turn === turn)?.answeredAt;
    if (finished === undefined || answered === undefined) return [];
    return [{ turn, ms, action: finished - answered, nextState: ms - (finished - answered) }];
  });
  console.log("\n1. Agent time per step outside the model call (model answer written -> next model request received), ms");
  const all = summarize(gaps.map((g) => g.ms));
  console.log(`   all steps: n=${all.count} p50=${all.p50} p95=${all.p95} min=${all.min} max=${all.max}`);
  const rows: Array<Array<string | number>> = [["   step executed in the gap", "n", "p50", "p95", "action p50", "next state p50"]];
  for (let turn = 0; turn < steps.length - 1; turn += 1) {
    const these = gaps.filter((g) => g.turn === turn).map((g) => g.ms);
    const split = splits.filter((s) => s.turn === turn);
    rows.push([`   ${turn}: ${steps[turn]?.label}`, these.length, percentile(these, 50), percentile(these, 95), percentile(split.map((s) => s.action), 50), percentile(split.map((s) => s.nextState), 50)]);
  }
  console.log(table(rows));
  const byAction = new Map<string, number[]>();
  for (const gap of gaps) {
    const action = steps[gap.turn]?.action ?? "?";
    byAction.set(action, [...(byAction.get(action) ?? []), gap.ms]);
  }
  console.log(table([["   by action", "n", "p50", "p95"], ...[...byAction].map(([action, values]) => [`   ${action}`, values.length, percentile(values, 50), percentile(values, 95)])]));
  const perTour = summarize(runs.map((run) => stepGaps(run.calls).reduce((sum, gap) => sum + gap.ms, 0)));
  console.log(`   sum over one tour (${steps.length - 1} gaps): p50=${perTour.p50} min=${perTour.min} max=${perTour.max}`);
  const actionPart = summarize(splits.map((s) => s.action));
  const statePart = summarize(splits.map((s) => s.nextState));
  console.log(`   split (agent's "step finished" log line): action+bookkeeping p50=${actionPart.p50} p95=${actionPart.p95}; next page state+prompt+request p50=${statePart.p50} p95=${statePart.p95}`);

  // 2. Page state per page.
  const sizes = new Map<string, Array<ReturnType<typeof pageStateSize>>>();
  for (const call of runs.flatMap((run) => run.calls)) {
    if (!call.pageStateText) continue;
    const size = pageStateSize(call.pageStateText, siteUrl);
    sizes.set(size.page, [...(sizes.get(size.page) ?? []), size]);
  }
  console.log("\n2. Page state sent to the model, per page (tokens = chars/4, an estimate; median over the sessions)");
  console.log(table([
    ["   page (path, title)", "chars", "~tokens", "elements", "seen"],
    ...[...sizes].map(([page, seen]) => [`   ${page}`, percentile(seen.map((s) => s.chars), 50), percentile(seen.map((s) => s.estimatedTokens), 50), percentile(seen.map((s) => s.elements), 50), seen.length]),
  ]));
  const bodies = runs.map((run) => run.calls);
  const firstBody = percentile(bodies.map((calls) => calls[0]?.bodyChars ?? Number.NaN), 50);
  const lastBody = percentile(bodies.map((calls) => calls.at(-1)?.bodyChars ?? Number.NaN), 50);
  console.log(`   whole request body (system prompt, tools, history, page state): step 1 ${firstBody} chars (~${Math.ceil(firstBody / 4)} tokens), step ${steps.length} ${lastBody} chars (~${Math.ceil(lastBody / 4)} tokens)`);

  // 3. Session start.
  const phase = (run: SessionRun, msg: string) => firstTime(run.milestones, msg);
  const starts = runs.map((run) => ({
    firstRequest: (run.calls[0]?.receivedAt ?? Number.NaN) - run.postedAt,
    firstStep: run.firstStepReportedAt - run.postedAt,
    spawned: (phase(run, "api: agent process started") ?? Number.NaN) - run.postedAt,
    nodeUp: (phase(run, "agent starting") ?? Number.NaN) - (phase(run, "api: agent process started") ?? Number.NaN),
    browser: (phase(run, "browser started") ?? Number.NaN) - (phase(run, "agent starting") ?? Number.NaN),
    ready: (phase(run, "agent ready") ?? Number.NaN) - (phase(run, "browser started") ?? Number.NaN),
    work: (phase(run, "task started") ?? Number.NaN) - (phase(run, "agent ready") ?? Number.NaN),
    firstState: (run.calls[0]?.receivedAt ?? Number.NaN) - (phase(run, "task started") ?? Number.NaN),
  }));
  const line = (label: string, values: number[]) => {
    const s = summarize(values.filter((v) => !Number.isNaN(v)));
    return [`   ${label}`, s.count, s.p50, s.p95, s.min, s.max];
  };
  console.log("\n3. Session start, ms after POST /v3/sessions was sent (GET polled every 50 ms for stepCount)");
  console.log(table([
    ["   milestone", "n", "p50", "p95", "min", "max"],
    line("first model request received", starts.map((s) => s.firstRequest)),
    line("first step reported (stepCount >= 1)", starts.map((s) => s.firstStep)),
    ["   phases (agent log times):", "", "", "", "", ""],
    line("POST -> agent process spawned", starts.map((s) => s.spawned)),
    line("spawned -> agent code running", starts.map((s) => s.nodeUp)),
    line("bootstrap + Chromium launch", starts.map((s) => s.browser)),
    line("ready reported", starts.map((s) => s.ready)),
    line("work received", starts.map((s) => s.work)),
    line("first page state + model request", starts.map((s) => s.firstState)),
  ]));

  // 4. Memory.
  const rss = runs.map((run) => run.memory.rssKb);
  const pss = runs.map((run) => run.memory.pssKb);
  const processes = runs.map((run) => run.memory.processes);
  console.log("\n4. Memory of one idle agent-pod process with its Chromium (agent + all descendants, /proc), MB");
  console.log(`   RSS sum: min=${mb(Math.min(...rss))} median=${mb(percentile(rss, 50))} max=${mb(Math.max(...rss))}  (counts shared pages once per process)`);
  console.log(`   PSS sum: min=${mb(Math.min(...pss))} median=${mb(percentile(pss, 50))} max=${mb(Math.max(...pss))}  (shared pages split among processes)`);
  console.log(`   processes: ${Math.min(...processes)}-${Math.max(...processes)}; idle on the last tour page (2 tabs open), ${idleSettleMs} ms after the task ended`);
}
