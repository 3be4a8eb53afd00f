import { z } from "zod";
import { podStrategy, plainStrategy, secretStrategy } from "./builtin-strategies.js";
import { storageKeyOf, type ResourceStrategy, type ResourceType } from "./resource-type.js";
import { compileCrdSchema } from "./schema-validator.js";

const crdSchema = z
  .object({
    apiVersion: z.literal("apiextensions.k8s.io/v1"),
    kind: z.literal("CustomResourceDefinition"),
    spec: z
      .object({
        group: z.string().min(1),
        scope: z.enum(["Namespaced", "Cluster"]),
        names: z
          .object({
            plural: z.string().min(1),
            singular: z.string().optional(),
            kind: z.string().min(1),
            listKind: z.string().optional(),
            shortNames: z.array(z.string()).optional(),
          })
          .loose(),
        versions: z
          .array(
            z
              .object({
                name: z.string().min(1),
                served: z.boolean(),
                storage: z.boolean(),
                schema: z.object({ openAPIV3Schema: z.record(z.string(), z.unknown()) }).loose().optional(),
                subresources: z.object({ status: z.record(z.string(), z.unknown()).optional() }).loose().optional(),
              })
              .loose(),
          )
          .min(1),
      })
      .loose(),
  })
  .loose();

export type CustomResourceDefinition = z.input<typeof crdSchema>;

interface BuiltinDefinition {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  shortNames?: string[];
  statusSubresource: boolean;
  returnDeletedObject: boolean;
  strategy: ResourceStrategy;
}

const BUILTINS: BuiltinDefinition[] = [
  { group: "", version: "v1", plural: "pods", singular: "pod", kind: "Pod", shortNames: ["po"], statusSubresource: true, returnDeletedObject: true, strategy: podStrategy },
  { group: "", version: "v1", plural: "secrets", singular: "secret", kind: "Secret", statusSubresource: false, returnDeletedObject: false, strategy: secretStrategy },
  { group: "", version: "v1", plural: "events", singular: "event", kind: "Event", shortNames: ["ev"], statusSubresource: false, returnDeletedObject: false, strategy: plainStrategy },
  { group: "events.k8s.io", version: "v1", plural: "events", singular: "event", kind: "Event", shortNames: ["ev"], statusSubresource: false, returnDeletedObject: false, strategy: plainStrategy },
  { group: "coordination.k8s.io", version: "v1", plural: "leases", singular: "lease", kind: "Lease", statusSubresource: false, returnDeletedObject: false, strategy: plainStrategy },
];

function builtinType(definition: BuiltinDefinition): ResourceType {
  return {
    ...definition,
    shortNames: definition.shortNames ?? [],
    apiVersion: definition.group ? `${definition.group}/${definition.version}` : definition.version,
    listKind: `${definition.kind}List`,
    storageKey: storageKeyOf(definition.group, definition.plural),
    custom: false,
    allowUnconditionalUpdate: true,
    tracksGeneration: false,
  };
}

/**
 * client-node's loadYaml turns `x-kubernetes-*` schema keys into camelCase model fields and adds
 * undefined members; bring such an object back to the wire format the CRD was written in.
 */
function toWireFormat(value: unknown): unknown {
  const plain: unknown = JSON.parse(JSON.stringify(value));
  const rename = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rename);
    if (typeof node !== "object" || node === null) return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, child]) => [
        /^xKubernetes[A-Z]/.test(key) ? `x-kubernetes-${key.slice("xKubernetes".length).replace(/[A-Z]/g, (letter, offset: number) => `${offset === 0 ? "" : "-"}${letter.toLowerCase()}`)}` : key,
        rename(child),
      ]),
    );
  };
  return rename(plain);
}

function customTypes(input: unknown): ResourceType[] {
  const crd = crdSchema.parse(toWireFormat(input));
  const { group, names } = crd.spec;
  if (crd.spec.scope !== "Namespaced") {
    throw new Error(`fake-kube serves namespaced custom resources only (${names.plural}.${group} is ${crd.spec.scope})`);
  }
  return crd.spec.versions
    .filter((version) => version.served)
    .map((version) => {
      const validator = version.schema ? compileCrdSchema(version.schema.openAPIV3Schema) : undefined;
      const strategy: ResourceStrategy = validator ? { validate: (object) => validator(object) } : plainStrategy;
      return {
        group,
        version: version.name,
        plural: names.plural,
        singular: names.singular ?? names.kind.toLowerCase(),
        kind: names.kind,
        listKind: names.listKind ?? `${names.kind}List`,
        shortNames: names.shortNames ?? [],
        apiVersion: `${group}/${version.name}`,
        storageKey: storageKeyOf(group, names.plural),
        custom: true,
        statusSubresource: version.subresources?.status !== undefined,
        returnDeletedObject: true,
        // The API server refuses unconditional PUTs of custom resources.
        allowUnconditionalUpdate: false,
        tracksGeneration: true,
        strategy,
      } satisfies ResourceType;
    });
}

export class ResourceRegistry {
  readonly types: ResourceType[];

  constructor(crds: unknown[]) {
    this.types = [...BUILTINS.map(builtinType), ...crds.flatMap(customTypes)];
  }

  find(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.find((type) => type.group === group && type.version === version && type.plural === plural);
  }

  /** Accepts `pods`, `leases.coordination.k8s.io`, `agentsessions.browser-agents.dev`. */
  byStorageKey(storageKey: string): ResourceType {
    const type = this.types.find((candidate) => candidate.storageKey === storageKey);
    if (!type) throw new Error(`fake-kube has no resource "${storageKey}"`);
    return type;
  }

  groups(): Map<string, string[]> {
    const groups = new Map<string, string[]>();
    for (const type of this.types) {
      if (!type.group) continue;
      const versions = groups.get(type.group) ?? [];
      if (!versions.includes(type.version)) versions.push(type.version);
      groups.set(type.group, versions);
    }
    return groups;
  }
}
