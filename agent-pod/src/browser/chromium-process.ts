import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { chromiumFlags } from "./chromium-flags.js";

const STARTUP_TIMEOUT_MS = 20_000;
const STDERR_TAIL_CHARS = 2_000;

export interface ChromiumLaunchOptions {
  chromiumPath: string;
  /** Added after the built-in flags (see chromium-flags.ts). */
  extraFlags: string[];
  /** 0 lets Chromium pick a free port. */
  devtoolsPort: number;
  devtoolsAddress: string;
}

/** A Chromium process we own: its process group, its profile directory and its DevTools endpoint. */
export class ChromiumProcess {
  private exitedFlag = false;

  private constructor(
    readonly pid: number,
    readonly userDataDir: string,
    readonly devtoolsPort: number,
    /** `ws://host:port/devtools/browser/<id>`, reachable from this process. */
    readonly browserWebSocketUrl: string,
    readonly exited: Promise<void>,
  ) {
    void exited.then(() => {
      this.exitedFlag = true;
    });
  }

  get hasExited(): boolean {
    return this.exitedFlag;
  }

  static async start(options: ChromiumLaunchOptions): Promise<ChromiumProcess> {
    const userDataDir = await mkdtemp(join(tmpdir(), "agent-pod-chromium-"));
    const args = [
      ...chromiumFlags(options.extraFlags),
      `--user-data-dir=${userDataDir}`,
      `--remote-debugging-port=${options.devtoolsPort}`,
      `--remote-debugging-address=${options.devtoolsAddress}`,
      // Without it Chromium opens a blank tab in its default context, which is not the agent's.
      "--no-startup-window",
    ];
    // A process group of its own lets close() kill the renderers and helpers with the browser.
    const child = spawn(options.chromiumPath, args, { detached: true, stdio: ["ignore", "ignore", "pipe"] });
    let stderrTail = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    const exited = new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.once("error", () => resolve());
    });
    let spawnError: Error | null = null;
    child.once("error", (error) => {
      spawnError = error;
    });

    try {
      const endpoint = await waitForDevToolsEndpoint(userDataDir, exited);
      if (child.pid === undefined) throw new Error("Chromium did not start");
      const host = connectableHost(options.devtoolsAddress);
      return new ChromiumProcess(
        child.pid,
        userDataDir,
        endpoint.port,
        `ws://${host}:${endpoint.port}${endpoint.path}`,
        exited,
      );
    } catch (error) {
      if (child.pid !== undefined) killProcessGroup(child.pid);
      await exited;
      await removeDirectory(userDataDir);
      const reason = spawnError ?? error;
      const message = reason instanceof Error ? reason.message : String(reason);
      throw new Error(`Chromium failed to start: ${message}\n${stderrTail.trim()}`);
    }
  }

  /** SIGKILL to the whole process group; harmless when it is already gone. */
  kill(): void {
    killProcessGroup(this.pid);
  }

  /**
   * Kills the process group and waits (at most `ms`) until no member is still running: a killed
   * renderer keeps running for a moment while the kernel tears it down.
   */
  async killAndWait(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      killProcessGroup(this.pid);
      if (!(await hasRunningMembers(this.pid))) return true;
      if (Date.now() >= deadline) return false;
      await sleep(25);
    }
  }

  async removeProfile(): Promise<void> {
    await removeDirectory(this.userDataDir);
  }
}

async function waitForDevToolsEndpoint(
  userDataDir: string,
  exited: Promise<void>,
): Promise<{ port: number; path: string }> {
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (hasExited) throw new Error("the process exited before DevTools was ready");
    const endpoint = await readDevToolsActivePort(userDataDir);
    if (endpoint !== null) return endpoint;
    await sleep(50);
  }
  throw new Error(`DevTools was not ready after ${STARTUP_TIMEOUT_MS} ms`);
}

/** Chromium writes the port it bound and the browser target path here once DevTools listens. */
async function readDevToolsActivePort(userDataDir: string): Promise<{ port: number; path: string } | null> {
  try {
    const [portLine, pathLine] = (await readFile(join(userDataDir, "DevToolsActivePort"), "utf8")).split("\n");
    const port = Number(portLine);
    if (!Number.isInteger(port) || port <= 0 || !pathLine?.startsWith("/devtools/browser/")) return null;
    return { port, path: pathLine.trim() };
  } catch {
    return null;
  }
}

function connectableHost(devtoolsAddress: string): string {
  if (devtoolsAddress === "" || devtoolsAddress === "0.0.0.0") return "127.0.0.1";
  if (devtoolsAddress === "::") return "[::1]";
  return devtoolsAddress.includes(":") ? `[${devtoolsAddress}]` : devtoolsAddress;
}

function killProcessGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Whether a process of the group is still alive. Zombies do not count: orphaned helpers are reaped
 * by PID 1, sometimes seconds later, and hold nothing but a process-table entry meanwhile.
 */
async function hasRunningMembers(groupId: number): Promise<boolean> {
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return groupSignalable(groupId);
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // After the parenthesised command name: state, ppid, pgrp, ...
    const [state, , processGroup] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(processGroup) === groupId && state !== "Z" && state !== "X") return true;
  }
  return false;
}

function groupSignalable(groupId: number): boolean {
  try {
    process.kill(-groupId, 0);
    return true;
  } catch {
    return false;
  }
}

async function removeDirectory(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
}
