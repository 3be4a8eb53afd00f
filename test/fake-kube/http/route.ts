import type { ResourceRegistry } from "../store/resource-registry.js";
import type { ResourceType } from "../store/resource-type.js";

export type Route =
  | { kind: "version" }
  | { kind: "health" }
  | { kind: "coreVersions" }
  | { kind: "groupList" }
  | { kind: "group"; group: string }
  | { kind: "resourceList"; group: string; version: string }
  | { kind: "namespaceList" }
  | { kind: "namespace"; name: string }
  | { kind: "collection"; type: ResourceType; namespace: string | undefined }
  | { kind: "object"; type: ResourceType; namespace: string; name: string; subresource: string | undefined }
  | { kind: "unknown" };

export function parseRoute(pathname: string, registry: ResourceRegistry): Route {
  const segments = pathname.split("/").filter((segment) => segment !== "").map(decodeURIComponent);
  const [first, second, third] = segments;
  if (segments.length === 1 && first === "version") return { kind: "version" };
  if (segments.length === 1 && (first === "healthz" || first === "livez" || first === "readyz")) return { kind: "health" };
  if (first === "api") {
    if (segments.length === 1) return { kind: "coreVersions" };
    if (second !== "v1") return { kind: "unknown" };
    return resourceRoute("", "v1", segments.slice(2), registry);
  }
  if (first === "apis") {
    if (segments.length === 1) return { kind: "groupList" };
    if (segments.length === 2 && second) return { kind: "group", group: second };
    if (!second || !third) return { kind: "unknown" };
    return resourceRoute(second, third, segments.slice(3), registry);
  }
  return { kind: "unknown" };
}

function resourceRoute(group: string, version: string, rest: string[], registry: ResourceRegistry): Route {
  if (rest.length === 0) return { kind: "resourceList", group, version };
  const [first, second, third, fourth, fifth] = rest;
  if (first === "namespaces" && group === "") {
    if (rest.length === 1) return { kind: "namespaceList" };
    if (rest.length === 2 && second) return { kind: "namespace", name: second };
  }
  if (first === "namespaces" && second && third && rest.length <= 5) {
    const type = registry.find(group, version, third);
    if (!type) return { kind: "unknown" };
    if (!fourth) return { kind: "collection", type, namespace: second };
    return { kind: "object", type, namespace: second, name: fourth, subresource: fifth };
  }
  if (rest.length === 1 && first) {
    const type = registry.find(group, version, first);
    return type ? { kind: "collection", type, namespace: undefined } : { kind: "unknown" };
  }
  return { kind: "unknown" };
}
