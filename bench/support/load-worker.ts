// Child process: runs one autocannon job from its parent and answers with the result. The load
// generator gets its own process (its own core) so it does not share an event loop with the servers.
import autocannon from "autocannon";
import { LoadJob, type LoadResult } from "./load-protocol.js";
import { summarise } from "./latency-stats.js";

const REQUEST_TIMEOUT_SECONDS = 10;

async function run(job: LoadJob): Promise<LoadResult> {
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.origin,
        connections: job.connections,
        headers: job.headers,
        requests: job.paths.map((path) => ({ method: "GET" as const, path })),
        timeout: REQUEST_TIMEOUT_SECONDS,
        ...(job.amount !== undefined ? { amount: job.amount } : { duration: job.durationSeconds ?? 1 }),
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    // autocannon's own histogram keeps whole milliseconds; page reads take less than one.
    instance.on("response", (_client, statusCode, _bytes, responseTimeMs) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
    });
  });
  const ok = result["2xx"];
  return {
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSeconds: result.duration,
    requestsPerSecond: ok / result.duration,
    latencyMs: summarise(latencies),
  };
}

process.once("message", (message: unknown) => {
  run(LoadJob.parse(message))
    .then((result) => process.send?.({ result }))
    .catch((error: unknown) => process.send?.({ error: error instanceof Error ? error.stack ?? error.message : String(error) }))
    .finally(() => process.disconnect());
});
