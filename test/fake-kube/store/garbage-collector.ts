import { ApiError } from "./api-error.js";
import type { KubeObject } from "./kube-object.js";
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, type ObjectStore } from "./object-store.js";
import type { ResourceType } from "./resource-type.js";

/**
 * Background garbage collection by ownerReferences, as kube-controller-manager does it:
 * dependents whose owners (by uid) are all gone are deleted, dangling references are dropped,
 * and the `orphan` / `foregroundDeletion` finalizers are honoured.
 */
export class GarbageCollector {
  private scheduled: NodeJS.Immediate | undefined;
  private readonly unsubscribe: () => void;

  constructor(private readonly store: ObjectStore) {
    this.unsubscribe = store.subscribe(() => this.schedule());
  }

  stop(): void {
    this.unsubscribe();
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
  }

  private schedule(): void {
    this.scheduled ??= setImmediate(() => {
      this.scheduled = undefined;
      this.collect();
    });
  }

  private collect(): void {
    const entries = [...this.store.entries()];
    for (const { type, object } of entries) this.collectDependent(type, object);
    for (const { type, object } of entries) {
      if (!object.metadata.deletionTimestamp) continue;
      const finalizers = object.metadata.finalizers ?? [];
      if (finalizers.includes(ORPHAN_FINALIZER)) this.orphanDependents(type, object);
      if (finalizers.includes(FOREGROUND_FINALIZER)) this.deleteDependentsFirst(type, object);
    }
  }

  private collectDependent(type: ResourceType, object: KubeObject): void {
    const references = object.metadata.ownerReferences ?? [];
    if (references.length === 0) return;
    const live = references.filter((reference) => this.store.hasUid(reference.uid));
    if (live.length === references.length) return;
    if (live.length === 0) {
      if (!object.metadata.deletionTimestamp) this.quietly(() => this.store.delete(type, namespaceOf(object), nameOf(object), { propagationPolicy: "Background" }));
      return;
    }
    this.quietly(() => this.store.patch(type, namespaceOf(object), nameOf(object), "merge", { metadata: { ownerReferences: live } }));
  }

  private dependentsOf(owner: KubeObject): Array<{ type: ResourceType; object: KubeObject }> {
    return [...this.store.entries()].filter(({ object }) =>
      (object.metadata.ownerReferences ?? []).some((reference) => reference.uid === owner.metadata.uid),
    );
  }

  private orphanDependents(type: ResourceType, owner: KubeObject): void {
    for (const dependent of this.dependentsOf(owner)) {
      const remaining = (dependent.object.metadata.ownerReferences ?? []).filter((reference) => reference.uid !== owner.metadata.uid);
      this.quietly(() =>
        this.store.patch(dependent.type, namespaceOf(dependent.object), nameOf(dependent.object), "merge", {
          metadata: { ownerReferences: remaining.length > 0 ? remaining : null },
        }),
      );
    }
    this.removeFinalizer(type, owner, ORPHAN_FINALIZER);
  }

  private deleteDependentsFirst(type: ResourceType, owner: KubeObject): void {
    const dependents = this.dependentsOf(owner);
    for (const dependent of dependents) {
      if (dependent.object.metadata.deletionTimestamp) continue;
      this.quietly(() =>
        this.store.delete(dependent.type, namespaceOf(dependent.object), nameOf(dependent.object), { propagationPolicy: "Foreground" }),
      );
    }
    if (dependents.length === 0) this.removeFinalizer(type, owner, FOREGROUND_FINALIZER);
  }

  private removeFinalizer(type: ResourceType, object: KubeObject, finalizer: string): void {
    const current = this.store.find(type, namespaceOf(object), nameOf(object));
    if (!current) return;
    const finalizers = (current.metadata.finalizers ?? []).filter((candidate) => candidate !== finalizer);
    this.quietly(() => this.store.patch(type, namespaceOf(current), nameOf(current), "merge", { metadata: { finalizers } }));
  }

  /** The object may already be gone or changed by the time the collector acts; it retries on the next change. */
  private quietly(action: () => unknown): void {
    try {
      action();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }
}

function namespaceOf(object: KubeObject): string {
  return object.metadata.namespace ?? "";
}

function nameOf(object: KubeObject): string {
  return object.metadata.name ?? "";
}
