import type { ResourceNaming, StatusCause } from "./api-error.js";
import type { KubeObject } from "./kube-object.js";

/** Per-kind rules the generic store applies, like the API server's registry strategies. */
export interface ResourceStrategy {
  prepareForCreate?(object: KubeObject): void;
  prepareForUpdate?(object: KubeObject, old: KubeObject): void;
  validate?(object: KubeObject, old: KubeObject | undefined): StatusCause[];
  /** Seconds of graceful deletion for this object; 0 removes it at once (finalizers permitting). */
  deletionGraceSeconds?(object: KubeObject, requested: number | undefined): number;
}

export interface ResourceType extends ResourceNaming {
  version: string;
  apiVersion: string;
  singular: string;
  listKind: string;
  shortNames: string[];
  /** Shared by every served version of one resource: `pods`, `agentsessions.browser-agents.dev`. */
  storageKey: string;
  custom: boolean;
  statusSubresource: boolean;
  /** Whether DELETE answers with the object (true) or a Success Status (false). */
  returnDeletedObject: boolean;
  allowUnconditionalUpdate: boolean;
  tracksGeneration: boolean;
  strategy: ResourceStrategy;
}

export function storageKeyOf(group: string, plural: string): string {
  return group ? `${plural}.${group}` : plural;
}
