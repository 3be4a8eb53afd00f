import type { ServerResponse } from "node:http";
import { badRequest, resourceExpired } from "../store/api-error.js";
import type { StoreEvent } from "../store/event-history.js";
import type { KubeObject } from "../store/kube-object.js";
import type { ObjectStore } from "../store/object-store.js";
import type { ResourceType } from "../store/resource-type.js";
import type { ObjectFilter } from "../store/selectors.js";

export interface WatchRequest {
  type: ResourceType;
  namespace: string | undefined;
  /** undefined, "" and "0" start with the current objects as ADDED events, like the real server. */
  resourceVersion: string | undefined;
  filter: ObjectFilter;
  allowBookmarks: boolean;
  timeoutSeconds: number | undefined;
}

type OutgoingEvent = { type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR"; object: unknown };

interface OpenWatch {
  request: WatchRequest;
  response: ServerResponse;
  close(abrupt: boolean): void;
}

/** Newline-delimited JSON watch streams over the store's changes, with bookmarks and 410 on expired history. */
export class WatchHub {
  private readonly watches = new Set<OpenWatch>();
  private readonly bookmarkTimer: NodeJS.Timeout;

  constructor(
    private readonly store: ObjectStore,
    bookmarkIntervalMs: number,
  ) {
    this.bookmarkTimer = setInterval(() => this.sendBookmarks(), bookmarkIntervalMs);
    this.bookmarkTimer.unref();
  }

  get openCount(): number {
    return this.watches.size;
  }

  open(request: WatchRequest, response: ServerResponse): void {
    const since = parseResourceVersion(request.resourceVersion);
    const backlog = since === undefined ? undefined : this.store.history.since(since);
    response.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-cache, private" });
    response.flushHeaders();
    if (since !== undefined && backlog === undefined) {
      const oldest = this.store.history.oldestResumableVersion();
      write(response, { type: "ERROR", object: resourceExpired(`too old resource version: ${since} (${oldest + 1})`).toStatus() });
      response.end();
      return;
    }

    let timeout: NodeJS.Timeout | undefined;
    const watch: OpenWatch = {
      request,
      response,
      close: (abrupt) => {
        unsubscribe();
        if (timeout) clearTimeout(timeout);
        this.watches.delete(watch);
        if (abrupt) response.socket?.destroy();
        else response.end();
      },
    };
    const unsubscribe = this.store.subscribe((event) => this.deliver(watch, event));
    this.watches.add(watch);
    response.on("close", () => watch.close(false));
    if (request.timeoutSeconds !== undefined) timeout = setTimeout(() => watch.close(false), request.timeoutSeconds * 1000);

    if (backlog === undefined) {
      for (const object of this.store.list(request.type, request.namespace, request.filter)) write(response, { type: "ADDED", object });
    } else {
      for (const event of backlog) this.deliver(watch, event);
    }
  }

  sendBookmarks(): void {
    for (const watch of this.watches) {
      if (!watch.request.allowBookmarks) continue;
      const { type } = watch.request;
      write(watch.response, {
        type: "BOOKMARK",
        object: { kind: type.kind, apiVersion: type.apiVersion, metadata: { resourceVersion: String(this.store.resourceVersion) } },
      });
    }
  }

  /** Ends every open watch stream; abrupt ones are cut at the socket instead of ending cleanly. */
  dropAll(abrupt = false): number {
    const count = this.watches.size;
    for (const watch of [...this.watches]) watch.close(abrupt);
    return count;
  }

  stop(): void {
    clearInterval(this.bookmarkTimer);
    this.dropAll(true);
  }

  private deliver(watch: OpenWatch, event: StoreEvent): void {
    const { type, namespace, filter } = watch.request;
    if (event.storageKey !== type.storageKey) return;
    if (namespace !== undefined && event.namespace !== namespace) return;
    const current = this.store.present(type, event.object);
    const previous = event.previous ? this.store.present(type, event.previous) : undefined;
    const matchesNow = filter(current);
    const matchedBefore = previous !== undefined && filter(previous);
    const outgoing = translate(event.type, current, previous, matchesNow, matchedBefore);
    if (outgoing) write(watch.response, outgoing);
  }
}

/** Selector-aware translation, as the watch cache does: leaving the selection reads as DELETED. */
function translate(
  type: StoreEvent["type"],
  current: KubeObject,
  previous: KubeObject | undefined,
  matchesNow: boolean,
  matchedBefore: boolean,
): OutgoingEvent | undefined {
  if (type === "ADDED") return matchesNow ? { type, object: current } : undefined;
  if (type === "DELETED") return matchesNow || matchedBefore ? { type, object: current } : undefined;
  if (matchesNow && matchedBefore) return { type: "MODIFIED", object: current };
  if (matchesNow) return { type: "ADDED", object: current };
  if (matchedBefore && previous) {
    return { type: "DELETED", object: { ...previous, metadata: { ...previous.metadata, resourceVersion: current.metadata.resourceVersion } } };
  }
  return undefined;
}

function parseResourceVersion(value: string | undefined): number | undefined {
  if (value === undefined || value === "" || value === "0") return undefined;
  if (!/^\d+$/.test(value)) throw badRequest(`invalid resource version: ${value}`);
  return Number(value);
}

function write(response: ServerResponse, event: OutgoingEvent): void {
  if (!response.writableEnded && !response.destroyed) response.write(`${JSON.stringify(event)}\n`);
}
