import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const OPERATOR_MAIN = fileURLToPath(new URL("../../operator/dist/main.js", import.meta.url));
const STOP_GRACE_MS = 10_000;
const StartedLine = z.object({ msg: z.literal("operator started"), port: z.number() }).loose();

export interface OperatorProcess {
  identity: string;
  pid: number;
  /** Port of its /metrics, /healthz, /readyz server, known once it logs that it started. */
  port(): Promise<number>;
  /** A metric's value summed over its label sets (e.g. a histogram's `_count`); undefined when absent. */
  metric(name: string): Promise<number | undefined>;
  /** Resolves when /readyz answers 200 (a leader has listed everything, a standby is waiting); the deadline covers start-up. */
  ready(timeoutMs?: number): Promise<void>;
  /** Resident set size now and at its peak (VmRSS, VmHWM), in bytes, from /proc. */
  memory(): { rssBytes: number; peakRssBytes: number };
  /** Sends the signal and waits for the process to end; SIGKILL after a grace period. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  readonly exited: boolean;
}

/**
 * `node operator/dist/main.js`, as its container runs it, with the given environment. Every line it
 * writes goes to `onLine`; the caller keeps what it needs.
 */
export function startOperatorProcess(
  identity: string,
  env: Record<string, string>,
  onLine: (stream: "stdout" | "stderr", line: string) => void = () => undefined,
): OperatorProcess {
  const child: ChildProcess = spawn(process.execPath, [OPERATOR_MAIN], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  const pid = child.pid ?? 0;
  let done = false;
  const exit = once(child, "exit").then(() => {
    done = true;
  });
  const portFound = new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      onLine("stdout", line);
      const started = StartedLine.safeParse(parseJson(line));
      if (started.success) resolve(started.data.port);
    });
    createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", (line) => onLine("stderr", line));
    void exit.then(() => reject(new Error(`operator ${identity} exited before it started`)));
  });
  // A caller that never asks for the port must not see an unhandled rejection.
  portFound.catch(() => undefined);

  return {
    identity,
    pid,
    get exited() {
      return done;
    },
    port: () => portFound,
    async metric(name) {
      const text = await (await fetch(`http://127.0.0.1:${await portFound}/metrics`)).text();
      const series = text.split("\n").filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`));
      if (series.length === 0) return undefined;
      return series.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
    },
    async ready(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      const late = () => new Error(`operator ${identity} not ready within ${timeoutMs} ms`);
      let timer: NodeJS.Timeout | undefined;
      const port = await Promise.race([
        portFound,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(late()), timeoutMs);
        }),
      ]).finally(() => clearTimeout(timer));
      while ((await fetch(`http://127.0.0.1:${port}/readyz`).then((response) => response.status, () => 0)) !== 200) {
        if (Date.now() > deadline) throw late();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    memory() {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
      return { rssBytes: kib("VmRSS") * 1024, peakRssBytes: kib("VmHWM") * 1024 };
    },
    async stop(signal = "SIGTERM") {
      if (done) return;
      child.kill(signal);
      const killer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      await exit;
      clearTimeout(killer);
    },
  };
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}
