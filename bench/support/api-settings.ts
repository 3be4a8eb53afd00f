// bench:api's knobs, read once from the environment.
import { z } from "zod";
import { count, readBenchEnv } from "./bench-env.js";

export const BenchSettings = z.object({
  /** A Postgres server connection that may create databases; unset = a temporary embedded server. */
  BENCH_DATABASE_URL: z.url().optional(),
  BENCH_CONNECTIONS: count(32),
  BENCH_WARMUP_SECONDS: count(3),
  BENCH_DURATION_SECONDS: count(10),
  BENCH_ROUNDS: count(3),
  BENCH_MESSAGES: count(1_000_000),
  BENCH_PAGE_REQUESTS: count(200),
  /** Newer messages of other sessions, written after the big session's for part 2b. */
  BENCH_OTHER_MESSAGES: count(100_000),
  /** The whole run is abandoned (and cleaned up) after this long. */
  BENCH_DEADLINE_SECONDS: count(900),
});
export type BenchSettings = z.infer<typeof BenchSettings>;

export function readBenchSettings(env: NodeJS.ProcessEnv): BenchSettings {
  return readBenchEnv(BenchSettings, env);
}
