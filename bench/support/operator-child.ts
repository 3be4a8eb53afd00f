import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const OPERATOR_MAIN = fileURLToPath(new URL("../../operator/dist/main.js", import.meta.url));
const STARTED_LINE = z.object({ msg: z.literal("operator started"), port: z.number() }).loose();
const STOP_GRACE_MS = 10_000;

export interface OperatorChild {
  pid: number;
  port: number;
  /** A metric's value summed over its label sets; undefined when the operator does not export it. */
  metric(name: string): Promise<number | undefined>;
  /** Resident set size now and at its peak (VmRSS, VmHWM), in bytes, from /proc. */
  memory(): { rssBytes: number; peakRssBytes: number };
  /** Resolves once /readyz answers 200 (the leader has listed everything). */
  ready(timeoutMs: number): Promise<void>;
  /** The last lines it wrote to stderr, for error reports. */
  stderrTail(): string;
  stop(): Promise<void>;
}

/** `node operator/dist/main.js`, as the container runs it, with the given environment. */
export async function startOperatorChild(env: Record<string, string>, startTimeoutMs = 30_000): Promise<OperatorChild> {
  const child: ChildProcess = spawn(process.execPath, [OPERATOR_MAIN], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  const exited = once(child, "exit");
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (text: string) => {
    stderr = (stderr + text).slice(-4000);
  });
  const port = await new Promise<number>((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`the operator did not start within ${startTimeoutMs} ms: ${stderr}`)), startTimeoutMs);
    const onData = (chunk: string) => {
      text += chunk;
      for (const line of text.split("\n")) {
        const started = STARTED_LINE.safeParse(parseJson(line));
        if (!started.success) continue;
        clearTimeout(timer);
        // From here on its log is read and dropped, so a full pipe never blocks it.
        child.stdout?.off("data", onData);
        resolve(started.data.port);
        return;
      }
      text = text.slice(text.lastIndexOf("\n") + 1);
    };
    child.stdout?.setEncoding("utf8").on("data", onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the operator exited during start-up: ${stderr}`));
    });
  });
  child.stdout?.resume();
  const pid = child.pid ?? 0;

  return {
    pid,
    port,
    async metric(name) {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const series = text.split("\n").filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`));
      if (series.length === 0) return undefined;
      return series.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
    },
    memory() {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
      return { rssBytes: kib("VmRSS") * 1024, peakRssBytes: kib("VmHWM") * 1024 };
    },
    async ready(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while ((await fetch(`http://127.0.0.1:${port}/readyz`).then((response) => response.status, () => 0)) !== 200) {
        if (Date.now() > deadline) throw new Error(`the operator was not ready within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    stderrTail: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      await exited;
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
