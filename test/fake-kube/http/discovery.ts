import type { ResourceRegistry } from "../store/resource-registry.js";

const VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

export function versionInfo(): Record<string, string> {
  return {
    major: "1",
    minor: "33",
    gitVersion: "v1.33.0-fake",
    gitCommit: "0000000000000000000000000000000000000000",
    gitTreeState: "clean",
    buildDate: "2025-01-01T00:00:00Z",
    goVersion: "go1.24.0",
    compiler: "gc",
    platform: "linux/amd64",
  };
}

export function coreVersions(serverAddress: string): Record<string, unknown> {
  return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }] };
}

function groupEntry(group: string, versions: string[]): Record<string, unknown> {
  const entries = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: entries, preferredVersion: entries[0] };
}

export function groupList(registry: ResourceRegistry): Record<string, unknown> {
  const groups = [...registry.groups()].map(([group, versions]) => groupEntry(group, versions));
  return { kind: "APIGroupList", apiVersion: "v1", groups };
}

export function group(registry: ResourceRegistry, name: string): Record<string, unknown> | undefined {
  const versions = registry.groups().get(name);
  return versions ? { kind: "APIGroup", apiVersion: "v1", ...groupEntry(name, versions) } : undefined;
}

export function resourceList(registry: ResourceRegistry, groupName: string, version: string): Record<string, unknown> | undefined {
  const types = registry.types.filter((type) => type.group === groupName && type.version === version);
  if (types.length === 0) return undefined;
  const resources: Array<Record<string, unknown>> = [];
  if (groupName === "") {
    resources.push({ name: "namespaces", singularName: "namespace", namespaced: false, kind: "Namespace", verbs: ["get", "list"], shortNames: ["ns"] });
  }
  for (const type of types) {
    resources.push({ name: type.plural, singularName: type.singular, namespaced: true, kind: type.kind, verbs: VERBS, shortNames: type.shortNames });
    if (type.statusSubresource) {
      resources.push({ name: `${type.plural}/status`, singularName: "", namespaced: true, kind: type.kind, verbs: ["get", "patch", "update"] });
    }
    if (type.storageKey === "pods") resources.push({ name: "pods/log", singularName: "", namespaced: true, kind: "Pod", verbs: ["get"] });
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: groupName ? `${groupName}/${version}` : version, resources };
}
