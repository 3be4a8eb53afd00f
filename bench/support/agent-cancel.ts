import { randomUUID } from "node:crypto";
import { agentPids, waitFor } from "../../test/support/agent-processes.js";
import type { AgentBenchStack } from "./agent-bench-stack.js";
import { summarize, table } from "./agent-stats.js";

export const CANCEL_MARKER = "AGENT-BENCH-HANG";

interface Cancellation {
  answeredMs: number;
  goneMs: number;
}

/**
 * Stop (strategy session) and delete of a session whose agent is inside a model call that never
 * answers: the time until the API answers, and until the agent and all of its Chromium processes
 * are gone (the issue asks for within 2 s locally).
 */
async function cancelOne(stack: AgentBenchStack, how: "stop" | "delete"): Promise<Cancellation> {
  const marker = `${CANCEL_MARKER} ${randomUUID()}`;
  const created = await stack.call("POST", "/v3/sessions", { task: `${marker}: wait for the model` });
  const id = (created.body as { id: string }).id;
  await waitFor(
    () => stack.llm.requests.some((r) => r.outcome === "pending" && JSON.stringify(r.body).includes(marker)),
    Boolean,
    60_000,
    "the agent's model call",
  );
  const pidsBefore = agentPids(id).length;
  if (pidsBefore < 2) throw new Error(`expected the agent and its Chromium for ${id}, found ${pidsBefore} processes`);
  const startedAt = Date.now();
  const response = how === "stop" ? await stack.call("POST", `/v3/sessions/${id}/stop`) : await stack.call("DELETE", `/v3/sessions/${id}`);
  const answeredMs = Date.now() - startedAt;
  if (response.status !== (how === "stop" ? 200 : 204)) throw new Error(`${how} ${id}: HTTP ${response.status}`);
  await waitFor(() => agentPids(id).length, (count) => count === 0, 15_000, `the agent of ${id} to exit`);
  return { answeredMs, goneMs: Date.now() - startedAt };
}

export async function measureCancellation(stack: AgentBenchStack, runs: number): Promise<string> {
  const results: Record<"stop" | "delete", Cancellation[]> = { stop: [], delete: [] };
  for (let run = 0; run < runs; run += 1) {
    for (const how of ["stop", "delete"] as const) results[how].push(await cancelOne(stack, how));
  }
  const rows: (string | number)[][] = [["", "n", "p50", "p95", "max"]];
  for (const how of ["stop", "delete"] as const) {
    for (const [label, values] of [
      [`${how}: API answered`, results[how].map((r) => r.answeredMs)],
      [`${how}: agent + Chromium gone`, results[how].map((r) => r.goneMs)],
    ] as const) {
      const summary = summarize(values);
      rows.push([label, summary.count, summary.p50, summary.p95, summary.max]);
    }
  }
  return `5. Stop and delete while the agent is inside a model call, ms after the request was sent\n${table(rows)
    .split("\n")
    .map((line) => `   ${line}`)
    .join("\n")}`;
}
