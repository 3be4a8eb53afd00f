// Runs each load job in a fresh child process (load-worker.ts) and returns its validated result.
import { fork } from "node:child_process";
import { z } from "zod";
import { LoadResult, type LoadJob } from "./load-protocol.js";

const WORKER = new URL("./load-worker.ts", import.meta.url);
/** The child is killed when a job overruns its own bound by this much. */
const GRACE_MS = 30_000;

const WorkerAnswer = z.union([z.object({ result: LoadResult }), z.object({ error: z.string() })]);

export async function generateLoad(job: LoadJob): Promise<LoadResult> {
  const bound = (job.durationSeconds ?? 0) * 1000 + (job.amount ?? 0) * 100 + GRACE_MS;
  const child = fork(WORKER, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  try {
    const answer = await new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`load generator did not finish within ${bound} ms`)), bound);
      child.once("message", (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      child.once("error", reject);
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`load generator exited (${code}) without an answer`));
      });
      child.send(job);
    });
    const parsed = WorkerAnswer.parse(answer);
    if ("error" in parsed) throw new Error(`load generator failed: ${parsed.error}`);
    return parsed.result;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill();
  }
}
