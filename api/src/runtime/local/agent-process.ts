import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type { Logger } from "pino";

export interface AgentProcessOptions {
  command: string[];
  env: Record<string, string>;
  logger: Logger;
  onExit(code: number | null, signal: NodeJS.Signals | null): void;
}

/**
 * One agent-pod child process. It runs in its own process group so that Chromium and anything else
 * it starts can be signalled together, and it holds a stdin pipe from us: when this process dies,
 * however it dies, the pipe closes and the agent exits (AGENT_EXIT_WITH_STDIN), leaving no orphan.
 */
export class AgentProcess {
  private readonly child: ChildProcess;
  private exited = false;
  readonly exitedPromise: Promise<void>;

  constructor(options: AgentProcessOptions) {
    const [executable, ...args] = options.command;
    if (!executable) throw new Error("empty agent command");
    this.child = spawn(executable, args, { env: options.env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    forwardLines(this.child.stdout, (line) => options.logger.info({ agent: parseJson(line) }, "agent"));
    forwardLines(this.child.stderr, (line) => options.logger.warn({ agentStderr: line }, "agent stderr"));
    // EPIPE on a dead child's stdin must not crash the API.
    this.child.stdin?.on("error", () => {});
    this.exitedPromise = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.exited = true;
        this.signalGroup("SIGKILL");
        options.onExit(code, signal);
        resolve();
      });
      this.child.once("error", (error) => {
        options.logger.error({ err: error }, "agent process failed to start");
        if (!this.exited) {
          this.exited = true;
          options.onExit(null, null);
          resolve();
        }
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return !this.exited;
  }

  /** SIGTERM (the agent saves state and closes its browser), then SIGKILL after the grace period. */
  async terminate(graceMs: number): Promise<void> {
    if (this.exited) return;
    this.signalGroup("SIGTERM");
    const timer = setTimeout(() => this.signalGroup("SIGKILL"), graceMs);
    await this.exitedPromise;
    clearTimeout(timer);
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // The group is already gone.
    }
  }
}

function forwardLines(stream: NodeJS.ReadableStream | null, handle: (line: string) => void): void {
  if (!stream) return;
  createInterface({ input: stream }).on("line", (line) => {
    if (line.trim()) handle(line);
  });
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return line;
  }
}
