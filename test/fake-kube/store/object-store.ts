import { randomBytes, randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  notFound,
  STALE_OBJECT_MESSAGE,
  unsupportedMediaType,
  type StatusCause,
} from "./api-error.js";
import { EventHistory, type StoreEvent, type WatchEventType } from "./event-history.js";
import { isPlainObject, kubeObjectSchema, kubeTimestamp, type KubeObject } from "./kube-object.js";
import { applyJsonPatch, applyMergePatch } from "./patches.js";
import type { ResourceRegistry } from "./resource-registry.js";
import type { ResourceType } from "./resource-type.js";
import type { ObjectFilter } from "./selectors.js";

export type PropagationPolicy = "Orphan" | "Background" | "Foreground";

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: PropagationPolicy;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface DeleteResult {
  object: KubeObject;
  /** False while finalizers or a pod's grace period keep the object (deletionTimestamp set). */
  removed: boolean;
}

/**
 * `strategic` is accepted for built-in kinds and applied as a JSON merge patch (lists are
 * replaced, not merged by key); `apply` (server-side apply) is approximated the same way,
 * plus create-if-missing, without field ownership.
 */
export type PatchKind = "merge" | "json" | "strategic" | "apply";

export interface WriteOptions {
  subresource?: "status";
}

export type StoreListener = (event: StoreEvent) => void;

export const ORPHAN_FINALIZER = "orphan";
export const FOREGROUND_FINALIZER = "foregroundDeletion";

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SERVER_OWNED_METADATA = [
  "name",
  "namespace",
  "uid",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "generation",
] as const;

function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function withoutResourceVersion(object: KubeObject): KubeObject {
  const copy = structuredClone(object);
  delete copy.metadata.resourceVersion;
  delete copy.metadata.managedFields;
  return copy;
}

/** Everything that is not metadata (nor status, when status is a subresource): what generation counts. */
function generationView(object: KubeObject, statusIsSubresource: boolean): Record<string, unknown> {
  const { metadata: _metadata, apiVersion: _apiVersion, kind: _kind, ...rest } = object;
  if (statusIsSubresource) delete rest.status;
  return rest;
}

/**
 * The in-memory etcd + registry of the fake API server. Every operation is synchronous, so one
 * request is one atomic step; errors are thrown as ApiError with the real server's Status shape.
 */
export class ObjectStore {
  readonly history: EventHistory;
  private readonly buckets = new Map<string, Map<string, KubeObject>>();
  private readonly uidIndex = new Map<string, { storageKey: string; key: string }>();
  private readonly listeners = new Set<StoreListener>();
  private counter = 0;

  constructor(
    readonly registry: ResourceRegistry,
    options: { historyLimit: number },
  ) {
    this.history = new EventHistory(options.historyLimit);
  }

  get resourceVersion(): number {
    return this.counter;
  }

  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The object as a client of `type` sees it (apiVersion of that served version). */
  present(type: ResourceType, object: KubeObject): KubeObject {
    const copy = structuredClone(object);
    return { ...copy, apiVersion: type.apiVersion, kind: type.kind };
  }

  find(type: ResourceType, namespace: string, name: string): KubeObject | undefined {
    const stored = this.bucket(type.storageKey).get(objectKey(namespace, name));
    return stored ? this.present(type, stored) : undefined;
  }

  get(type: ResourceType, namespace: string, name: string): KubeObject {
    const found = this.find(type, namespace, name);
    if (!found) throw notFound(type, name);
    return found;
  }

  list(type: ResourceType, namespace: string | undefined, filter: ObjectFilter): KubeObject[] {
    return [...this.bucket(type.storageKey).values()]
      .filter((object) => namespace === undefined || object.metadata.namespace === namespace)
      .map((object) => this.present(type, object))
      .filter(filter)
      .sort((a, b) => objectKey(a.metadata.namespace ?? "", a.metadata.name ?? "").localeCompare(objectKey(b.metadata.namespace ?? "", b.metadata.name ?? "")));
  }

  hasUid(uid: string): boolean {
    return this.uidIndex.has(uid);
  }

  /** Every stored object with the type it is stored under (for the garbage collector). */
  *entries(): Generator<{ type: ResourceType; object: KubeObject }> {
    for (const [storageKey, bucket] of this.buckets) {
      const type = this.registry.byStorageKey(storageKey);
      for (const object of bucket.values()) yield { type, object: this.present(type, object) };
    }
  }

  create(type: ResourceType, namespace: string, body: unknown): KubeObject {
    const object = this.decode(type, body);
    if (object.metadata.namespace && object.metadata.namespace !== namespace) {
      throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    const metadata = object.metadata;
    if (!metadata.name && metadata.generateName) metadata.name = `${metadata.generateName}${randomBytes(4).toString("hex").slice(0, 5)}`;
    const name = metadata.name ?? "";
    if (!name) {
      throw invalid(type, "", [{ reason: "FieldValueRequired", message: "Required value: name or generateName is required", field: "metadata.name" }]);
    }
    this.validateName(type, name);
    if (this.bucket(type.storageKey).has(objectKey(namespace, name))) throw alreadyExists(type, name);

    metadata.namespace = namespace;
    metadata.uid = randomUUID();
    metadata.creationTimestamp = kubeTimestamp();
    delete metadata.deletionTimestamp;
    delete metadata.deletionGracePeriodSeconds;
    delete metadata.resourceVersion;
    delete metadata.managedFields;
    if (type.tracksGeneration) metadata.generation = 1;
    else delete metadata.generation;
    if (type.custom && type.statusSubresource) delete object.status;
    type.strategy.prepareForCreate?.(object);
    this.validate(type, object, undefined);
    return this.present(type, this.commit("ADDED", type, object, undefined));
  }

  update(type: ResourceType, namespace: string, name: string, body: unknown, options: WriteOptions = {}): KubeObject {
    return this.write(type, namespace, name, body, { ...options, fromPatch: false });
  }

  patch(type: ResourceType, namespace: string, name: string, kind: PatchKind, patch: unknown, options: WriteOptions & { fieldManager?: string } = {}): KubeObject {
    if (kind === "strategic" && type.custom) {
      throw unsupportedMediaType("application/strategic-merge-patch+json", [
        "application/json-patch+json",
        "application/merge-patch+json",
        "application/apply-patch+yaml",
      ]);
    }
    if (kind === "apply" && !options.fieldManager) {
      throw invalid({ group: "meta.k8s.io", plural: "patchoptions", kind: "PatchOptions" }, "", [
        { reason: "FieldValueRequired", message: "Required value: is required for apply patch", field: "fieldManager" },
      ]);
    }
    const existing = this.find(type, namespace, name);
    if (!existing) {
      if (kind === "apply" && !options.subresource) return this.create(type, namespace, patch);
      throw notFound(type, name);
    }
    const patched = kind === "json" ? applyJsonPatch(existing, patch) : applyMergePatch(existing, patch);
    if (!isPlainObject(patched)) throw badRequest("the patch did not produce an object");
    return this.write(type, namespace, name, patched, { ...options, fromPatch: true });
  }

  delete(type: ResourceType, namespace: string, name: string, options: DeleteOptions = {}): DeleteResult {
    const existing = this.find(type, namespace, name);
    if (!existing) throw notFound(type, name);
    const { uid, resourceVersion } = options.preconditions ?? {};
    if (uid !== undefined && uid !== existing.metadata.uid) {
      throw conflict(type, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${existing.metadata.uid ?? ""}`);
    }
    if (resourceVersion !== undefined && resourceVersion !== existing.metadata.resourceVersion) {
      throw conflict(type, name, `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${existing.metadata.resourceVersion ?? ""}`);
    }

    const next = structuredClone(existing);
    const metadata = next.metadata;
    const finalizers = [...(metadata.finalizers ?? [])];
    const policyFinalizer =
      options.propagationPolicy === "Orphan" ? ORPHAN_FINALIZER : options.propagationPolicy === "Foreground" ? FOREGROUND_FINALIZER : undefined;
    if (policyFinalizer && !metadata.deletionTimestamp && !finalizers.includes(policyFinalizer)) finalizers.push(policyFinalizer);
    const grace = type.strategy.deletionGraceSeconds?.(existing, options.gracePeriodSeconds) ?? 0;

    if (finalizers.length === 0 && grace === 0) {
      return { object: this.present(type, this.commit("DELETED", type, next, existing)), removed: true };
    }
    const currentGrace = metadata.deletionGracePeriodSeconds;
    const shortensGrace = metadata.deletionTimestamp !== undefined && currentGrace !== undefined && grace < currentGrace;
    if (metadata.deletionTimestamp && !shortensGrace) return { object: existing, removed: false };

    metadata.deletionTimestamp = kubeTimestamp(new Date(Date.now() + grace * 1000));
    metadata.deletionGracePeriodSeconds = grace;
    if (finalizers.length > 0) metadata.finalizers = finalizers;
    if (type.tracksGeneration && !existing.metadata.deletionTimestamp) metadata.generation = (metadata.generation ?? 0) + 1;
    return { object: this.present(type, this.commit("MODIFIED", type, next, existing)), removed: false };
  }

  /** The scheduler's binding, which a client cannot do with an update. */
  bindPod(namespace: string, name: string, nodeName: string): KubeObject | undefined {
    const type = this.registry.byStorageKey("pods");
    const existing = this.find(type, namespace, name);
    if (!existing || !isPlainObject(existing.spec) || existing.spec.nodeName) return existing;
    const next = structuredClone(existing);
    (next.spec as Record<string, unknown>).nodeName = nodeName;
    return this.present(type, this.commit("MODIFIED", type, next, existing));
  }

  /** A status write with /status semantics, from inside the fake (the kubelet). */
  updateStatus(type: ResourceType, namespace: string, name: string, status: Record<string, unknown>): KubeObject | undefined {
    const existing = this.find(type, namespace, name);
    if (!existing) return undefined;
    return this.update(type, namespace, name, { ...existing, status }, { subresource: "status" });
  }

  /** Drops history up to now, so every resume from an older resourceVersion answers 410. */
  expireHistory(): void {
    this.history.forgetUpTo(this.counter);
  }

  private write(
    type: ResourceType,
    namespace: string,
    name: string,
    body: unknown,
    options: WriteOptions & { fromPatch: boolean },
  ): KubeObject {
    const existing = this.find(type, namespace, name);
    if (!existing) throw notFound(type, name);
    const incoming = this.decode(type, body);
    if (incoming.metadata.name !== undefined && incoming.metadata.name !== name) {
      throw badRequest(`the name of the object (${incoming.metadata.name}) does not match the name on the URL (${name})`);
    }
    if (incoming.metadata.namespace !== undefined && incoming.metadata.namespace !== namespace) {
      throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    const requestedVersion = incoming.metadata.resourceVersion;
    if (requestedVersion) {
      if (requestedVersion !== existing.metadata.resourceVersion) throw conflict(type, name, STALE_OBJECT_MESSAGE);
    } else if (!options.fromPatch && !type.allowUnconditionalUpdate) {
      throw invalid(type, name, [
        { reason: "FieldValueInvalid", message: "Invalid value: 0x0: must be specified for an update", field: "metadata.resourceVersion" },
      ]);
    }

    let next: KubeObject;
    if (options.subresource === "status") {
      // Only status moves on a status write; spec and metadata stay as stored.
      next = structuredClone(existing);
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
    } else {
      next = incoming;
      for (const field of SERVER_OWNED_METADATA) {
        if (existing.metadata[field] === undefined) delete next.metadata[field];
        else (next.metadata as Record<string, unknown>)[field] = existing.metadata[field];
      }
      if (type.statusSubresource) {
        if (existing.status === undefined) delete next.status;
        else next.status = structuredClone(existing.status);
      }
      type.strategy.prepareForUpdate?.(next, existing);
      this.checkFinalizersWhileDeleting(type, next, existing);
    }
    next.apiVersion = existing.apiVersion;
    next.kind = existing.kind;
    next.metadata.resourceVersion = existing.metadata.resourceVersion;
    this.validate(type, next, existing);
    if (type.tracksGeneration && !isDeepStrictEqual(generationView(next, type.statusSubresource), generationView(existing, type.statusSubresource))) {
      next.metadata.generation = (existing.metadata.generation ?? 0) + 1;
    }

    // The API server skips no-op writes: no new resourceVersion, no watch event.
    if (isDeepStrictEqual(withoutResourceVersion(next), withoutResourceVersion(existing))) return existing;
    const finalizersDone = (next.metadata.finalizers ?? []).length === 0;
    if (next.metadata.deletionTimestamp && finalizersDone && (next.metadata.deletionGracePeriodSeconds ?? 0) === 0) {
      delete next.metadata.finalizers;
      return this.present(type, this.commit("DELETED", type, next, existing));
    }
    return this.present(type, this.commit("MODIFIED", type, next, existing));
  }

  private checkFinalizersWhileDeleting(type: ResourceType, next: KubeObject, existing: KubeObject): void {
    if (!existing.metadata.deletionTimestamp) return;
    const before = new Set(existing.metadata.finalizers ?? []);
    const added = (next.metadata.finalizers ?? []).filter((finalizer) => !before.has(finalizer));
    if (added.length > 0) {
      throw invalid(type, next.metadata.name ?? "", [
        {
          reason: "FieldValueForbidden",
          message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
          field: "metadata.finalizers",
        },
      ]);
    }
  }

  private decode(type: ResourceType, body: unknown): KubeObject {
    const parsed = kubeObjectSchema.safeParse(structuredClone(body));
    if (!parsed.success) {
      throw badRequest(`${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: ${parsed.error.issues[0]?.message ?? "invalid object"}`);
    }
    const object = parsed.data;
    if (type.custom && (object.kind === undefined || object.apiVersion === undefined)) {
      throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`);
    }
    if ((object.kind !== undefined && object.kind !== type.kind) || (object.apiVersion !== undefined && object.apiVersion !== type.apiVersion)) {
      throw badRequest(`the API version in the data (${object.apiVersion ?? ""}) does not match the expected API version (${type.apiVersion}) or kind (${object.kind ?? ""} != ${type.kind})`);
    }
    object.apiVersion = type.apiVersion;
    object.kind = type.kind;
    return object;
  }

  private validateName(type: ResourceType, name: string): void {
    if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
      throw invalid(type, name, [
        {
          reason: "FieldValueInvalid",
          message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
          field: "metadata.name",
        },
      ]);
    }
  }

  private validate(type: ResourceType, object: KubeObject, old: KubeObject | undefined): void {
    const causes: StatusCause[] = type.strategy.validate?.(object, old) ?? [];
    if (causes.length > 0) throw invalid(type, object.metadata.name ?? "", causes);
  }

  private bucket(storageKey: string): Map<string, KubeObject> {
    let bucket = this.buckets.get(storageKey);
    if (!bucket) {
      bucket = new Map();
      this.buckets.set(storageKey, bucket);
    }
    return bucket;
  }

  private commit(type: WatchEventType, resource: ResourceType, object: KubeObject, previous: KubeObject | undefined): KubeObject {
    this.counter += 1;
    const stored = structuredClone(object);
    stored.metadata.resourceVersion = String(this.counter);
    const namespace = stored.metadata.namespace ?? "";
    const key = objectKey(namespace, stored.metadata.name ?? "");
    const uid = stored.metadata.uid ?? "";
    if (type === "DELETED") {
      this.bucket(resource.storageKey).delete(key);
      this.uidIndex.delete(uid);
    } else {
      this.bucket(resource.storageKey).set(key, stored);
      this.uidIndex.set(uid, { storageKey: resource.storageKey, key });
    }
    const event: StoreEvent = {
      type,
      resourceVersion: this.counter,
      storageKey: resource.storageKey,
      namespace,
      object: structuredClone(stored),
      previous: previous ? structuredClone(previous) : undefined,
    };
    this.history.push(event);
    for (const listener of [...this.listeners]) listener(event);
    return stored;
  }
}
