import { PermanentError, TemporaryError } from "./reconcile-errors.js";

export interface HandlerResult {
  /** Look at the key again after this long, even if nothing changes. */
  requeueAfterMs?: number;
}

export type FailureKind = "temporary" | "permanent" | "unexpected";

export interface WorkQueueOptions {
  concurrency: number;
  handler: (key: string) => Promise<HandlerResult | void>;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  onFailure?: (key: string, error: unknown, kind: FailureKind, retryInMs: number | null) => void;
}

/**
 * A keyed work queue in the manner of client-go's workqueue: a key is handled by one worker at a
 * time (adding it while it is being handled queues one more pass), different keys run in
 * parallel up to `concurrency`, a key waiting to run is never queued twice, and failures are
 * retried with per-key exponential backoff.
 */
export class WorkQueue {
  private readonly ready: string[] = [];
  private readonly waiting = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly failureStreaks = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly options: WorkQueueOptions) {}

  add(key: string): void {
    if (this.closed) return;
    this.clearTimer(key);
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.waiting.has(key)) return;
    this.waiting.add(key);
    this.ready.push(key);
    this.pump();
  }

  /** Adds the key after a delay; an earlier pending delay for the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.closed) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = Date.now() + delayMs;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, { at, timer });
  }

  /** Keys waiting, running or scheduled: for metrics and tests. */
  get size(): number {
    return new Set([...this.waiting, ...this.active, ...this.timers.keys()]).size;
  }

  /** Stops taking work, drops what waits, and waits for running handlers to finish. */
  async shutdown(): Promise<void> {
    this.closed = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.ready.length = 0;
    this.waiting.clear();
    this.dirty.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private pump(): void {
    while (!this.closed && this.active.size < this.options.concurrency && this.ready.length > 0) {
      const key = this.ready.shift() as string;
      this.waiting.delete(key);
      this.active.add(key);
      const run = this.process(key);
      this.inFlight.add(run);
      void run.finally(() => this.inFlight.delete(run));
    }
  }

  private async process(key: string): Promise<void> {
    try {
      const result = await this.options.handler(key);
      this.failureStreaks.delete(key);
      if (result?.requeueAfterMs !== undefined) this.addAfter(key, result.requeueAfterMs);
    } catch (error) {
      this.handleFailure(key, error);
    } finally {
      this.active.delete(key);
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }

  private handleFailure(key: string, error: unknown): void {
    if (error instanceof PermanentError) {
      this.failureStreaks.delete(key);
      this.options.onFailure?.(key, error, "permanent", null);
      return;
    }
    if (error instanceof TemporaryError) {
      this.options.onFailure?.(key, error, "temporary", error.retryAfterMs);
      this.addAfter(key, error.retryAfterMs);
      return;
    }
    const streak = (this.failureStreaks.get(key) ?? 0) + 1;
    this.failureStreaks.set(key, streak);
    const delay = Math.min(this.options.retryMaxDelayMs, this.options.retryBaseDelayMs * 2 ** (streak - 1));
    this.options.onFailure?.(key, error, "unexpected", delay);
    this.addAfter(key, delay);
  }

  private clearTimer(key: string): void {
    const existing = this.timers.get(key);
    if (!existing) return;
    clearTimeout(existing.timer);
    this.timers.delete(key);
  }
}
