import { Watch, type KubeConfig } from "@kubernetes/client-node";

export interface RecordedEvent {
  type: string;
  object: { kind?: string; code?: number; reason?: string; metadata?: { name?: string; resourceVersion?: string; deletionTimestamp?: string } };
}

/** A real client-node Watch whose events and end are kept for assertions. */
export class WatchRecorder {
  readonly events: RecordedEvent[] = [];
  private controller: AbortController | undefined;
  private waiters: Array<() => void> = [];
  private endedWith: { error: unknown } | undefined;

  static async start(kubeConfig: KubeConfig, path: string, query: Record<string, string | boolean | number>): Promise<WatchRecorder> {
    const recorder = new WatchRecorder();
    recorder.controller = await new Watch(kubeConfig).watch(
      path,
      query,
      (type, object: RecordedEvent["object"]) => {
        recorder.events.push({ type, object });
        recorder.notify();
      },
      (error: unknown) => {
        recorder.endedWith = { error };
        recorder.notify();
      },
    );
    return recorder;
  }

  /** The first recorded event (from index `from`) that matches, waiting for it if needed. */
  async waitForEvent(predicate: (event: RecordedEvent) => boolean, from = 0, timeoutMs = 5000): Promise<RecordedEvent> {
    await this.waitUntil(() => this.events.slice(from).some(predicate), timeoutMs, "watch event");
    const found = this.events.slice(from).find(predicate);
    if (!found) throw new Error("unreachable");
    return found;
  }

  async ended(timeoutMs = 5000): Promise<{ error: unknown }> {
    await this.waitUntil(() => this.endedWith !== undefined, timeoutMs, "end of watch");
    return this.endedWith ?? { error: undefined };
  }

  get hasEnded(): boolean {
    return this.endedWith !== undefined;
  }

  stop(): void {
    this.controller?.abort();
  }

  private notify(): void {
    for (const waiter of this.waiters) waiter();
  }

  private waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = (): void => {
        if (!condition()) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((candidate) => candidate !== waiter);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((candidate) => candidate !== waiter);
        reject(new Error(`timed out waiting for ${what}; events so far: ${JSON.stringify(this.events.map((event) => event.type))}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}

/** The Status body of a failed client-node call. */
export async function failureStatus(call: Promise<unknown>): Promise<{ code: number; kind?: string; reason?: string; message?: string; details?: Record<string, unknown> }> {
  try {
    await call;
  } catch (error) {
    const { code, body } = error as { code?: number; body?: unknown };
    const parsed: Record<string, unknown> = typeof body === "string" && body !== "" ? (JSON.parse(body) as Record<string, unknown>) : {};
    return { ...parsed, code: code ?? 0 };
  }
  throw new Error("expected the call to fail");
}
