import { EventEmitter } from "node:events";

/**
 * Wakes an agent's long-poll for work as soon as this process changes its session. Other API
 * replicas are covered by the long-poll re-reading the database every `recheckMs`.
 */
export class WorkNotifier {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  notify(sessionId: string): void {
    this.emitter.emit(sessionId);
  }

  /** Resolves when notified, after `timeoutMs`, or when the signal aborts. */
  wait(sessionId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.emitter.off(sessionId, done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.emitter.once(sessionId, done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}
