import { spawn } from "node:child_process";
import { constants } from "node:os";

export interface ProcessExit {
  /** Container-style exit code: the process's own, or 128 + signal number when a signal ended it. */
  exitCode: number;
  signal: NodeJS.Signals | null;
}

export interface ContainerProcess {
  pid: number;
  exited: Promise<ProcessExit>;
  /** SIGTERM to the main process only, as a runtime stops a container (its PID 1). */
  terminate(): void;
  /** SIGKILL to the whole process group, as a runtime kills a container's cgroup. */
  kill(): void;
}

export interface ContainerLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  onOutput(stream: "stdout" | "stderr", text: string): void;
}

/** Starts the container's command in its own process group; rejects when it cannot start at all. */
export function startContainerProcess(launch: ContainerLaunch): Promise<ContainerProcess> {
  const child = spawn(launch.command, launch.args, {
    cwd: launch.cwd,
    env: launch.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.setEncoding("utf8").on("data", (text: string) => launch.onOutput("stdout", text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => launch.onOutput("stderr", text));

  const send = (target: number | undefined, signal: NodeJS.Signals): void => {
    if (target === undefined) return;
    try {
      process.kill(target, signal);
    } catch {
      // already gone
    }
  };
  const killGroup = (): void => send(child.pid === undefined ? undefined : -child.pid, "SIGKILL");
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once("exit", (code, signal) => {
      // When a container's main process ends, the runtime kills whatever it left behind.
      killGroup();
      resolve({ exitCode: code ?? 128 + (signal ? constants.signals[signal] : 0), signal });
    });
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("spawn", () => {
      child.off("error", reject);
      // Later errors (a failed kill) change nothing: the exit event reports the outcome.
      child.on("error", () => undefined);
      resolve({ pid: child.pid ?? 0, exited, terminate: () => send(child.pid, "SIGTERM"), kill: killGroup });
    });
  });
}
