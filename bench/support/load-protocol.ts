// What the bench process and its load-generator child say to each other over IPC.
import { z } from "zod";

export const LoadJob = z.object({
  /** Origin, e.g. http://127.0.0.1:41234 */
  origin: z.url(),
  /** Request paths, sent in this order by each connection, cycling. */
  paths: z.array(z.string().startsWith("/")).min(1),
  headers: z.record(z.string(), z.string()),
  connections: z.number().int().positive(),
  /** Either a fixed duration or a fixed number of requests. */
  durationSeconds: z.number().positive().optional(),
  amount: z.number().int().positive().optional(),
});
export type LoadJob = z.infer<typeof LoadJob>;

export const LoadResult = z.object({
  /** Responses with a 2xx status. */
  ok: z.number().int(),
  non2xx: z.number().int(),
  errors: z.number().int(),
  timeouts: z.number().int(),
  /** Wall time of the run as autocannon measured it. */
  durationSeconds: z.number(),
  requestsPerSecond: z.number(),
  /** Per-request latency (ms, sub-millisecond precision) of the 2xx responses. */
  latencyMs: z.object({ count: z.number(), p50: z.number(), p90: z.number(), p99: z.number(), max: z.number() }),
});
export type LoadResult = z.infer<typeof LoadResult>;
