import { readFileSync, readdirSync } from "node:fs";

/**
 * Live agent processes of a session, found through /proc by the AGENT_SESSION_ID in their
 * environment. Zombies count as gone (this machine's PID 1 does not reap orphans).
 */
export function agentPids(sessionId: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8");
      if (!environ.split("\0").includes(`AGENT_SESSION_ID=${sessionId}`)) continue;
      const state = /^State:\s+(\w)/m.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1];
      if (state !== "Z") pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

export async function waitFor<T>(probe: () => T | Promise<T>, accept: (value: T) => boolean, timeoutMs = 20_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await probe();
  }
  return last;
}
