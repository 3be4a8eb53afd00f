import type { KubeObject } from "./kube-object.js";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

/** One committed change. Objects are shared by every listener: treat them as read-only. */
export interface StoreEvent {
  type: WatchEventType;
  resourceVersion: number;
  storageKey: string;
  namespace: string;
  object: KubeObject;
  previous: KubeObject | undefined;
}

/**
 * The bounded window of past changes that watches resume from, like the API server's watch cache:
 * a watch from a resourceVersion older than the window is answered with 410 Expired.
 */
export class EventHistory {
  private events: StoreEvent[] = [];
  /** Every event with a resourceVersion above this one is still held. */
  private startResourceVersion = 0;

  constructor(private limit: number) {}

  push(event: StoreEvent): void {
    this.events.push(event);
    while (this.events.length > this.limit) {
      const dropped = this.events.shift();
      if (dropped) this.startResourceVersion = dropped.resourceVersion;
    }
  }

  /** Events after `resourceVersion`, or undefined when some of them were already forgotten. */
  since(resourceVersion: number): StoreEvent[] | undefined {
    if (resourceVersion < this.startResourceVersion) return undefined;
    return this.events.filter((event) => event.resourceVersion > resourceVersion);
  }

  oldestResumableVersion(): number {
    return this.startResourceVersion;
  }

  forgetUpTo(resourceVersion: number): void {
    this.events = this.events.filter((event) => event.resourceVersion > resourceVersion);
    this.startResourceVersion = Math.max(this.startResourceVersion, resourceVersion);
  }

  setLimit(limit: number): void {
    this.limit = limit;
    while (this.events.length > this.limit) {
      const dropped = this.events.shift();
      if (dropped) this.startResourceVersion = dropped.resourceVersion;
    }
  }
}
