// bench:operator's knobs, read once from the environment.
import { z } from "zod";
import { count, readBenchEnv } from "./bench-env.js";

export const OperatorBenchSettings = z.object({
  /** AgentSessions created at once for the start-up figure. */
  BENCH_OPERATOR_SESSIONS: count(1_000),
  /** AgentSessions held (in all) when the operator's memory is read. */
  BENCH_OPERATOR_MEMORY_SESSIONS: count(5_000),
  /** Create requests in flight at once, as a busy API would send them. */
  BENCH_OPERATOR_CREATE_CONCURRENCY: count(32),
  /** The operator's RECONCILE_CONCURRENCY; its default is 4. */
  BENCH_OPERATOR_RECONCILE_CONCURRENCY: count(4),
  /** Each wait (all pods exist, all statuses settled) gives up after this long. */
  BENCH_OPERATOR_WAIT_SECONDS: count(300),
  /** The whole run is abandoned (and cleaned up) after this long. */
  BENCH_DEADLINE_SECONDS: count(900),
});
export type OperatorBenchSettings = z.infer<typeof OperatorBenchSettings>;

export function readOperatorBenchSettings(env: NodeJS.ProcessEnv): OperatorBenchSettings {
  return readBenchEnv(OperatorBenchSettings, env);
}
