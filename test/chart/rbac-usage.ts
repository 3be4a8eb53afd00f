import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import * as protocol from "@browser-agents/protocol";
import type { KubernetesObject } from "./helm.js";

/**
 * What a component's code asks of the Kubernetes API, found by reading its source:
 * - every call of a @kubernetes/client-node API class method, mapped through client-node's own
 *   generated request code to the HTTP method and path it sends, and from there to an RBAC verb;
 * - every collection path handed to Watch/makeInformer (a watch of that resource);
 * - ownerReferences with blockOwnerDeletion, which need `update` on the owner's finalizers.
 * Custom-object calls are taken to address the chart's one CRD.
 */
export interface Permission {
  namespace: string;
  apiGroup: string;
  resource: string;
  verb: string;
}

export function permissionKey(permission: Permission): string {
  return `${permission.namespace} ${permission.apiGroup || "core"}/${permission.resource} ${permission.verb}`;
}

interface Endpoint {
  httpMethod: string;
  path: string;
}

const require = createRequire(import.meta.url);
const generatedApisDir = join(dirname(require.resolve("@kubernetes/client-node")), "gen", "apis");

/** method name -> endpoint, for one client-node API class, read from its generated request factory. */
function endpointsOf(apiClass: string): Map<string, Endpoint> {
  const source = readFileSync(join(generatedApisDir, `${apiClass}.js`), "utf8");
  const endpoints = new Map<string, Endpoint>();
  const pattern = /async (\w+)\([^)]*\) \{[^]*?const localVarPath = '([^']+)'[^]*?HttpMethod\.(\w+)\)/g;
  for (const match of source.matchAll(pattern)) {
    const [, method = "", path = "", httpMethod = ""] = match;
    if (!endpoints.has(method)) endpoints.set(method, { path, httpMethod });
  }
  return endpoints;
}

export interface ResourceTarget {
  apiGroup: string;
  resource: string;
  namespaced: boolean;
  item: boolean;
}

export interface CustomResource {
  group: string;
  plural: string;
}

/** Splits an API path into group, resource (with subresource) and whether it names one object. */
export function parseApiPath(path: string, custom: CustomResource): ResourceTarget {
  const segments = path.split("/").filter(Boolean);
  let rest: string[];
  let apiGroup: string;
  if (segments[0] === "api") {
    apiGroup = "";
    rest = segments.slice(2);
  } else if (segments[0] === "apis") {
    apiGroup = segments[1] === "{group}" ? custom.group : (segments[1] ?? "");
    rest = segments.slice(3);
  } else {
    throw new Error(`not a Kubernetes API path: ${path}`);
  }
  const namespaced = rest[0] === "namespaces" && rest.length > 2;
  if (namespaced) rest = rest.slice(2);
  const [resourceSegment = "", name, ...subresource] = rest;
  const resource = resourceSegment === "{plural}" ? custom.plural : resourceSegment;
  return {
    apiGroup,
    resource: subresource.length > 0 ? `${resource}/${subresource.join("/")}` : resource,
    namespaced,
    item: name !== undefined,
  };
}

export function rbacVerb(httpMethod: string, item: boolean): string {
  switch (httpMethod) {
    case "GET":
      return item ? "get" : "list";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return item ? "delete" : "deletecollection";
    default:
      throw new Error(`no RBAC verb for HTTP ${httpMethod}`);
  }
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return entry.endsWith(".ts") && !entry.endsWith(".test.ts") ? [path] : [];
  });
}

/** A template literal's ${NAME} placeholders resolved against the protocol package's constants. */
function resolveProtocolConstants(path: string): string {
  return path.replace(/\$\{(\w+)\}/g, (whole, name: string) => {
    const value = (protocol as Record<string, unknown>)[name];
    return typeof value === "string" ? value : whole;
  });
}

export interface CodeUsage {
  /** "file: call" -> what it needs, for readable failures. */
  uses: { where: string; target: ResourceTarget; verb: string }[];
  /** Calls the chart cannot grant with namespaced Roles, or the scanner cannot map. */
  unsupported: string[];
}

export function scanKubernetesUsage(directories: string[], repoRoot: string, custom: CustomResource): CodeUsage {
  const files = directories.flatMap((directory) => sourceFiles(join(repoRoot, directory)));
  const texts = new Map(files.map((file) => [relative(repoRoot, file), readFileSync(file, "utf8")]));
  const all = [...texts.values()].join("\n");
  const usage: CodeUsage = { uses: [], unsupported: [] };

  const apiClasses = [...new Set([...all.matchAll(/makeApiClient\(\s*(?:\w+\.)?(\w+)\s*\)/g)].map((match) => match[1] ?? ""))];
  const endpointsByClass = new Map(apiClasses.map((apiClass) => [apiClass, endpointsOf(apiClass)]));
  if (/\bKubernetesObjectApi\b/.test(all)) usage.unsupported.push("KubernetesObjectApi: generic calls cannot be mapped to resources");

  for (const [file, text] of texts) {
    const listedHere: ResourceTarget[] = [];
    for (const match of text.matchAll(/\.(\w+)\s*\(/g)) {
      const method = match[1] ?? "";
      const owners = [...endpointsByClass].filter(([, endpoints]) => endpoints.has(method));
      if (owners.length === 0) continue;
      if (owners.length > 1) {
        usage.unsupported.push(`${file}: ${method} exists in ${owners.map(([name]) => name).join(" and ")}`);
        continue;
      }
      const endpoint = owners[0]?.[1].get(method);
      if (!endpoint) continue;
      const target = parseApiPath(endpoint.path, custom);
      if (!target.namespaced) usage.unsupported.push(`${file}: ${method} is not a namespaced call (${endpoint.path})`);
      const verb = rbacVerb(endpoint.httpMethod, target.item);
      usage.uses.push({ where: `${file}: ${method}`, target, verb });
      if (verb === "list") listedHere.push(target);
    }

    const watching = /\bWatch\b|\bmakeInformer\b/.test(all);
    for (const match of text.matchAll(/`(\/apis?\/[^`]*)`/g)) {
      if (!watching) {
        usage.unsupported.push(`${file}: API path ${match[1]} without a Watch or informer`);
        continue;
      }
      const path = resolveProtocolConstants(match[1] ?? "");
      const last = path.split("/").at(-1) ?? "";
      // A variable resource (`${resource}`) watches what the same file lists.
      const targets = /^\$\{\w+\}$/.test(last)
        ? listedHere.filter((listed) => listed.apiGroup === parseApiPath(path.replace(last, "x"), custom).apiGroup)
        : [parseApiPath(path, custom)];
      if (targets.length === 0) usage.unsupported.push(`${file}: cannot tell which resource ${match[1]} watches`);
      for (const target of targets) usage.uses.push({ where: `${file}: watch ${match[1]}`, target, verb: "watch" });
    }

    // The protocol package builds the AgentSession collection path for list and watch.
    if (/\bagentSessionCollectionPath\(/.test(text) && watching) {
      const path = protocol.agentSessionCollectionPath("namespace");
      usage.uses.push({ where: `${file}: watch ${path}`, target: parseApiPath(path, custom), verb: "watch" });
    }

    if (/blockOwnerDeletion:\s*true/.test(text)) {
      usage.uses.push({
        where: `${file}: ownerReference with blockOwnerDeletion`,
        target: { apiGroup: custom.group, resource: `${custom.plural}/finalizers`, namespaced: true, item: true },
        verb: "update",
      });
    }
  }
  return usage;
}

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
}

/** Every (namespace, group, resource, verb) the rendered Roles grant to one ServiceAccount. */
export function grantedPermissions(objects: KubernetesObject[], serviceAccount: { name: string; namespace: string }): Permission[] {
  const granted: Permission[] = [];
  for (const binding of objects.filter((object) => object.kind === "RoleBinding")) {
    const subjects = (binding.subjects as { kind: string; name: string; namespace?: string }[] | undefined) ?? [];
    const boundHere = subjects.some(
      (subject) => subject.kind === "ServiceAccount" && subject.name === serviceAccount.name && subject.namespace === serviceAccount.namespace,
    );
    if (!boundHere) continue;
    const roleRef = binding.roleRef as { kind: string; name: string };
    const namespace = binding.metadata.namespace ?? "";
    const role = objects.find((object) => object.kind === roleRef.kind && object.metadata.name === roleRef.name && object.metadata.namespace === namespace);
    if (!role) throw new Error(`RoleBinding ${binding.metadata.name} refers to a missing ${roleRef.kind} ${roleRef.name}`);
    for (const rule of (role.rules as PolicyRule[] | undefined) ?? []) {
      for (const apiGroup of rule.apiGroups ?? []) {
        for (const resource of rule.resources ?? []) {
          for (const verb of rule.verbs ?? []) granted.push({ namespace, apiGroup, resource, verb });
        }
      }
    }
  }
  return granted;
}
