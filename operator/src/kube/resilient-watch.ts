import type { Watch } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { isGone } from "./api-errors.js";
import { InterruptibleSleep } from "../timing/interruptible-sleep.js";

export interface ListResult {
  items: unknown[];
  resourceVersion: string;
}

export interface ResilientWatchOptions<T> {
  /** For logs: "agentsessions", "pods"... */
  resource: string;
  /** The collection's URL path, e.g. /api/v1/namespaces/default/pods */
  path: string;
  labelSelector?: string;
  list: () => Promise<ListResult>;
  /** Turns a raw object into T, or null to ignore it (it is logged). */
  decode: (raw: unknown) => T | null;
  keyOf: (object: T) => string;
  onUpsert: (object: T) => void;
  onDelete: (object: T) => void;
  /** After every (re)list: the store now mirrors the server. */
  onSynced?: () => void;
  watch: Watch;
  timeoutSeconds: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  logger: Logger;
}

type StreamEnd = { kind: "ended" } | { kind: "gone" } | { kind: "failed"; error: unknown };

/**
 * List, then watch from the list's resourceVersion; re-watch from the last seen version when a
 * stream ends; re-list when the server says that version is gone (410, as an HTTP status or as an
 * ERROR event); ask for bookmarks so an idle watch still advances its version. Keeps a store of
 * the objects, and reports differences found by a re-list as upserts and deletes.
 */
export class ResilientWatch<T> {
  private readonly store = new Map<string, T>();
  private resourceVersion = "";
  private stopped = false;
  private synced = false;
  private current: AbortController | undefined;
  private readonly pause = new InterruptibleSleep();
  private loop: Promise<void> | undefined;

  constructor(private readonly options: ResilientWatchOptions<T>) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.abort();
    this.pause.interrupt();
    await this.loop;
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  get(key: string): T | undefined {
    return this.store.get(key);
  }

  values(): T[] {
    return [...this.store.values()];
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        if (!this.resourceVersion) await this.relist();
        const startedAt = Date.now();
        const end = await this.watchOnce();
        if (end.kind === "gone") {
          this.options.logger.info({ resource: this.options.resource }, "watch version expired; listing again");
          this.resourceVersion = "";
          failures = 0;
          continue;
        }
        if (end.kind === "failed") throw end.error;
        // A stream that the server closes at once, again and again, must not become a busy loop.
        failures = Date.now() - startedAt < 1000 ? failures + 1 : 0;
        if (failures > 0) await this.pause.sleep(this.backoff(failures));
      } catch (error) {
        if (this.stopped) break;
        failures += 1;
        const delay = this.backoff(failures);
        this.options.logger.warn({ resource: this.options.resource, err: error, retryInMs: delay }, "watch failed");
        if (isGone(error)) this.resourceVersion = "";
        await this.pause.sleep(delay);
      }
    }
  }

  private async relist(): Promise<void> {
    const { items, resourceVersion } = await this.options.list();
    const seen = new Set<string>();
    for (const raw of items) {
      const object = this.decodeOrLog(raw);
      if (!object) continue;
      const key = this.options.keyOf(object);
      seen.add(key);
      this.store.set(key, object);
      this.options.onUpsert(object);
    }
    for (const [key, object] of [...this.store]) {
      if (seen.has(key)) continue;
      this.store.delete(key);
      this.options.onDelete(object);
    }
    this.resourceVersion = resourceVersion;
    this.synced = true;
    this.options.onSynced?.();
  }

  private watchOnce(): Promise<StreamEnd> {
    return new Promise<StreamEnd>((resolve) => {
      let verdict: StreamEnd | undefined;
      const query: Record<string, string | number | boolean> = {
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: this.options.timeoutSeconds,
      };
      if (this.options.labelSelector) query.labelSelector = this.options.labelSelector;
      const onEvent = (type: string, object: unknown) => {
        if (this.stopped || verdict) return;
        if (type === "ERROR") {
          verdict = statusCodeOf(object) === 410 ? { kind: "gone" } : { kind: "failed", error: watchError(object) };
          this.current?.abort();
          return;
        }
        const version = resourceVersionOf(object);
        if (type === "BOOKMARK") {
          if (version) this.resourceVersion = version;
          return;
        }
        const decoded = this.decodeOrLog(object);
        if (decoded) {
          const key = this.options.keyOf(decoded);
          if (type === "DELETED") {
            this.store.delete(key);
            this.options.onDelete(decoded);
          } else {
            this.store.set(key, decoded);
            this.options.onUpsert(decoded);
          }
        }
        if (version) this.resourceVersion = version;
      };
      const onDone = (error: unknown) => {
        this.current = undefined;
        if (verdict) resolve(verdict);
        else if (this.stopped) resolve({ kind: "ended" });
        else if (error) resolve(isGone(error) ? { kind: "gone" } : { kind: "failed", error });
        else resolve({ kind: "ended" });
      };
      this.options.watch.watch(this.options.path, query, onEvent, onDone).then(
        (controller) => {
          if (this.stopped) controller.abort();
          else this.current = controller;
        },
        (error: unknown) => onDone(error ?? new Error("watch request failed")),
      );
    });
  }

  private decodeOrLog(raw: unknown): T | null {
    const object = this.options.decode(raw);
    if (!object) this.options.logger.warn({ resource: this.options.resource }, "ignoring an object that does not parse");
    return object;
  }

  private backoff(failures: number): number {
    const exponential = this.options.retryBaseDelayMs * 2 ** Math.min(failures - 1, 20);
    return Math.min(this.options.retryMaxDelayMs, exponential);
  }

}

function resourceVersionOf(object: unknown): string | undefined {
  const version = (object as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion;
  return typeof version === "string" && version !== "" ? version : undefined;
}

function statusCodeOf(object: unknown): number | undefined {
  const code = (object as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
}

function watchError(status: unknown): Error & { statusCode?: number } {
  const message = (status as { message?: unknown } | null)?.message;
  const error: Error & { statusCode?: number } = new Error(typeof message === "string" ? message : "watch reported an error");
  const code = statusCodeOf(status);
  if (code !== undefined) error.statusCode = code;
  return error;
}
