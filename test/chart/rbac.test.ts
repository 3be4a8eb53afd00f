import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { container, resolvedEnvironment } from "./container-env.js";
import type { CustomResourceDefinition } from "./crd-schema.js";
import { findObject, helmBinary, renderChart, repoRoot, type KubernetesObject, type RenderOptions } from "./helm.js";
import { grantedPermissions, permissionKey, scanKubernetesUsage, type CodeUsage, type Permission } from "./rbac-usage.js";

const releaseNamespace = "browser-agents";

// The first use fetches helm (scripts/fetch-helm.sh), which may take longer than a hook's default limit.
beforeAll(() => void helmBinary(), 180_000);

function customResourceOf(objects: KubernetesObject[]) {
  const crd = objects.find((object): object is CustomResourceDefinition => object.kind === "CustomResourceDefinition");
  if (!crd) throw new Error("the chart renders no CRD");
  return { group: crd.spec.group, plural: crd.spec.names.plural };
}

function required(usage: CodeUsage, namespaceOf: (apiGroup: string, resource: string) => string): Set<string> {
  return new Set(
    usage.uses.map(({ target, verb }) =>
      permissionKey({ namespace: namespaceOf(target.apiGroup, target.resource), apiGroup: target.apiGroup, resource: target.resource, verb }),
    ),
  );
}

function difference(left: Set<string>, right: Set<string>): string[] {
  return [...left].filter((key) => !right.has(key)).sort();
}

function keys(permissions: Permission[]): Set<string> {
  return new Set(permissions.map(permissionKey));
}

describe.each<[string, RenderOptions]>([
  ["default values (sessions in the release namespace)", {}],
  ["a separate namespace for agent pods", { valuesFiles: ["ci/external-db-values.yaml"] }],
])("RBAC with %s", (_label, options) => {
  let objects: KubernetesObject[];
  let apiUsage: CodeUsage;
  let operatorUsage: CodeUsage;

  beforeAll(() => {
    objects = renderChart({ ...options, namespace: releaseNamespace });
    const custom = customResourceOf(objects);
    apiUsage = scanKubernetesUsage(["api/src/runtime/kubernetes"], repoRoot, custom);
    operatorUsage = scanKubernetesUsage(["operator/src"], repoRoot, custom);
  });

  it("finds the Kubernetes calls of both components, all namespaced and mappable", () => {
    expect(apiUsage.unsupported).toEqual([]);
    expect(operatorUsage.unsupported).toEqual([]);
    expect(apiUsage.uses.length).toBeGreaterThan(0);
    expect(operatorUsage.uses.length).toBeGreaterThan(0);
  });

  it("grants the API exactly what api/src/runtime/kubernetes calls", () => {
    const api = findObject(objects, "Deployment", "agents-browser-agents-api");
    const sessionNamespace = resolvedEnvironment(objects, container(api, "api")).KUBE_NAMESPACE ?? "";
    const needed = required(apiUsage, () => sessionNamespace);
    const granted = keys(grantedPermissions(objects, { name: "agents-browser-agents-api", namespace: releaseNamespace }));
    expect({ missing: difference(needed, granted), unused: difference(granted, needed) }).toEqual({ missing: [], unused: [] });
  });

  it("grants the operator exactly what operator/src calls, the Lease in the release namespace", () => {
    const operator = findObject(objects, "Deployment", "agents-browser-agents-operator");
    const environment = resolvedEnvironment(objects, container(operator, "operator"));
    const needed = required(operatorUsage, (apiGroup, resource) =>
      apiGroup === "coordination.k8s.io" && resource === "leases"
        ? (environment.LEADER_ELECTION_NAMESPACE ?? "")
        : (environment.WATCH_NAMESPACE ?? ""),
    );
    const granted = keys(grantedPermissions(objects, { name: "agents-browser-agents-operator", namespace: releaseNamespace }));
    expect({ missing: difference(needed, granted), unused: difference(granted, needed) }).toEqual({ missing: [], unused: [] });
  });

  it("grants nothing cluster-wide and no wildcards", () => {
    expect(objects.filter((object) => object.kind === "ClusterRole" || object.kind === "ClusterRoleBinding")).toEqual([]);
    const rules = objects.filter((object) => object.kind === "Role").flatMap((role) => role.rules as Record<string, string[]>[]);
    expect(JSON.stringify(rules)).not.toContain('"*"');
  });
});

describe("the Kubernetes usage scanner", () => {
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "rbac-scan-"));
    mkdirSync(join(root, "component"));
    writeFileSync(
      join(root, "component", "calls.ts"),
      [
        'import { CoreV1Api, CoordinationV1Api, CustomObjectsApi, Watch } from "@kubernetes/client-node";',
        "const core = kc.makeApiClient(CoreV1Api);",
        "const custom = kc.makeApiClient(CustomObjectsApi);",
        "const leases = kc.makeApiClient(CoordinationV1Api);",
        "await core.readNamespacedPod({ name, namespace });",
        "await core.listNamespacedSecret({ namespace });",
        "await core.deleteCollectionNamespacedPod({ namespace });",
        "await custom.patchNamespacedCustomObjectStatus({ group, version, plural, namespace, name, body });",
        "await leases.replaceNamespacedLease({ name, namespace, body });",
        "new Watch(kc).watch(`/apis/${AGENT_SESSION_GROUP}/v1/namespaces/${namespace}/${AGENT_SESSION_PLURAL}`, {}, onEvent, onDone);",
        "new Watch(kc).watch(`/api/v1/namespaces/${namespace}/${resource}`, {}, onEvent, onDone);",
        "const owner = { controller: true, blockOwnerDeletion: true };",
        "map.delete(key); list.readNamespacedThing();",
      ].join("\n"),
    );
    writeFileSync(
      join(root, "component", "cluster-wide.ts"),
      ["const core = kc.makeApiClient(CoreV1Api);", "await core.listPodForAllNamespaces({});"].join("\n"),
    );
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("maps calls, watches and owner references to resources and verbs", () => {
    const usage = scanKubernetesUsage(["component"], root, { group: "browser-agents.dev", plural: "agentsessions" });
    const found = usage.uses.map(({ target, verb }) => `${target.apiGroup || "core"}/${target.resource} ${verb}`).sort();
    expect(found).toEqual(
      [
        "core/pods get",
        "core/secrets list",
        "core/pods deletecollection",
        "browser-agents.dev/agentsessions/status patch",
        "coordination.k8s.io/leases update",
        "browser-agents.dev/agentsessions watch",
        "core/secrets watch",
        "browser-agents.dev/agentsessions/finalizers update",
        "core/pods list",
      ].sort(),
    );
    expect(usage.unsupported).toEqual([expect.stringContaining("listPodForAllNamespaces is not a namespaced call")]);
  });
});
