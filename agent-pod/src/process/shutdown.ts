export interface ShutdownOptions {
  exitWithStdin: boolean;
  onRequested: (reason: string) => void;
}

/**
 * One AbortSignal for "stop now": SIGTERM and SIGINT (stop or delete), and, when asked, the end
 * of standard input (the local runtime's guarantee that an agent never outlives the API).
 */
export function watchForShutdown(options: ShutdownOptions): AbortSignal {
  const controller = new AbortController();
  const request = (reason: string): void => {
    if (controller.signal.aborted) return;
    options.onRequested(reason);
    controller.abort(new ShutdownRequested(reason));
  };
  process.once("SIGTERM", () => request("SIGTERM"));
  process.once("SIGINT", () => request("SIGINT"));
  if (options.exitWithStdin) {
    process.stdin.on("end", () => request("stdin closed"));
    process.stdin.on("close", () => request("stdin closed"));
    process.stdin.on("error", () => request("stdin closed"));
    process.stdin.resume();
  }
  return controller.signal;
}

export class ShutdownRequested extends Error {
  override readonly name = "ShutdownRequested";

  constructor(readonly reason: string) {
    super(`Shutdown requested (${reason})`);
  }
}
