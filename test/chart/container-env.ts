import { findObject, type KubernetesObject } from "./helm.js";

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string };
    configMapKeyRef?: { name: string; key: string };
    fieldRef?: { fieldPath: string };
  };
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  ports?: { name?: string; containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string }[];
}

export interface PodSpec {
  serviceAccountName?: string;
  initContainers?: Container[];
  containers: Container[];
  securityContext?: { runAsUser?: number; runAsGroup?: number; runAsNonRoot?: boolean };
}

/** What a Secret reference resolves to: a plausible URL for DATABASE_URL, else a value long enough for the signing key's minimum. */
export function secretPlaceholder(variableName: string): string {
  return variableName === "DATABASE_URL" ? "postgresql://app:password@db.example.com:5432/browser_agents" : "secret-value-".repeat(4);
}
export const POD_NAME_PLACEHOLDER = "operator-pod-0";

export function podSpec(workload: KubernetesObject): PodSpec {
  const spec = workload.spec as { template: { spec: PodSpec } };
  return spec.template.spec;
}

export function container(workload: KubernetesObject, name: string): Container {
  const spec = podSpec(workload);
  const found = [...(spec.initContainers ?? []), ...spec.containers].find((candidate) => candidate.name === name);
  if (!found) throw new Error(`${workload.kind}/${workload.metadata.name} has no container ${name}`);
  return found;
}

/**
 * The environment a container would see: ConfigMap values from the rendered objects, Secrets
 * as a placeholder, the pod name as a placeholder, and $(VAR) references expanded like the kubelet does.
 */
export function resolvedEnvironment(objects: KubernetesObject[], target: Container): Record<string, string> {
  const resolved: Record<string, string> = {};
  for (const variable of target.env ?? []) {
    let value: string;
    if (variable.value !== undefined) {
      value = variable.value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => resolved[name] ?? whole);
    } else if (variable.valueFrom?.configMapKeyRef) {
      const { name, key } = variable.valueFrom.configMapKeyRef;
      const data = findObject(objects, "ConfigMap", name).data as Record<string, string> | undefined;
      const found = data?.[key];
      if (found === undefined) throw new Error(`ConfigMap ${name} has no key ${key}`);
      value = found;
    } else if (variable.valueFrom?.secretKeyRef) {
      value = secretPlaceholder(variable.name);
    } else if (variable.valueFrom?.fieldRef?.fieldPath === "metadata.name") {
      value = POD_NAME_PLACEHOLDER;
    } else {
      throw new Error(`cannot resolve environment variable ${variable.name}`);
    }
    resolved[variable.name] = value;
  }
  return resolved;
}
