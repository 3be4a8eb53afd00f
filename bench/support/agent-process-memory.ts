// Memory of a process and all its descendants, read from /proc (Linux only).
import { readFileSync, readdirSync } from "node:fs";

export interface TreeMemory {
  processes: number;
  /** Sum of VmRSS: counts pages shared between processes (Chromium's) once per process. */
  rssKb: number;
  /** Sum of Pss (shared pages divided among their sharers): closer to what the tree really costs. */
  pssKb: number;
}

export function treeMemory(rootPid: number): TreeMemory {
  const pids = [rootPid, ...descendantsOf(rootPid)];
  let rssKb = 0;
  let pssKb = 0;
  let processes = 0;
  for (const pid of pids) {
    const status = readOrEmpty(`/proc/${pid}/status`);
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    if (rss === undefined) continue;
    processes += 1;
    rssKb += Number(rss);
    pssKb += Number(/^Pss:\s+(\d+) kB/m.exec(readOrEmpty(`/proc/${pid}/smaps_rollup`))?.[1] ?? 0);
  }
  return { processes, rssKb, pssKb };
}

export function descendantsOf(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = Number(/^PPid:\s+(\d+)/m.exec(readOrEmpty(`/proc/${entry}/status`))?.[1] ?? -1);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** The process of the set whose parent is outside it: the agent, when given its pids and Chromium's. */
export function rootOf(pids: readonly number[]): number | undefined {
  const set = new Set(pids);
  return pids.find((pid) => !set.has(Number(/^PPid:\s+(\d+)/m.exec(readOrEmpty(`/proc/${pid}/status`))?.[1] ?? -1)));
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    // The process ended while we looked.
    return "";
  }
}
