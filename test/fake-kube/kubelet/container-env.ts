import type { Container, Pod } from "./pod-spec.js";

/** Why a container cannot be created yet; the kubelet reports CreateContainerConfigError and retries. */
export class ContainerConfigError extends Error {}

export interface SecretReader {
  (namespace: string, name: string): Record<string, string> | undefined;
}

/** `$(NAME)` references to variables defined earlier; `$$` escapes; unknown references stay as written. */
export function expandReferences(text: string, variables: Record<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name: string | undefined) => {
    if (match === "$$") return "$";
    return name !== undefined && Object.prototype.hasOwnProperty.call(variables, name) ? (variables[name] ?? match) : match;
  });
}

function fieldValue(pod: Pod, fieldPath: string, nodeName: string): string {
  const labelOrAnnotation = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (labelOrAnnotation) {
    const source = labelOrAnnotation[1] === "labels" ? pod.metadata.labels : pod.metadata.annotations;
    return source?.[labelOrAnnotation[2] ?? ""] ?? "";
  }
  switch (fieldPath) {
    case "metadata.name":
      return pod.metadata.name;
    case "metadata.namespace":
      return pod.metadata.namespace;
    case "metadata.uid":
      return pod.metadata.uid;
    case "spec.nodeName":
      return pod.spec.nodeName ?? nodeName;
    case "spec.serviceAccountName":
      return pod.spec.serviceAccountName ?? "default";
    case "status.podIP":
    case "status.hostIP":
      return "127.0.0.1";
    default:
      throw new ContainerConfigError(`unsupported fieldRef fieldPath "${fieldPath}"`);
  }
}

/** The container's environment as the kubelet builds it: envFrom first, then env in order. */
export function containerEnvironment(pod: Pod, container: Container, readSecret: SecretReader, nodeName: string): Record<string, string> {
  const namespace = pod.metadata.namespace;
  const variables: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) {
      if (source.configMapRef.optional) continue;
      throw new ContainerConfigError(`configmap "${source.configMapRef.name}" not found`);
    }
    if (!source.secretRef) continue;
    const secret = readSecret(namespace, source.secretRef.name);
    if (!secret) {
      if (source.secretRef.optional) continue;
      throw new ContainerConfigError(`secret "${source.secretRef.name}" not found`);
    }
    for (const [key, value] of Object.entries(secret)) variables[`${source.prefix ?? ""}${key}`] = value;
  }
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    if (from?.secretKeyRef) {
      const { name, key, optional } = from.secretKeyRef;
      const secret = readSecret(namespace, name);
      const value = secret?.[key];
      if (value === undefined) {
        if (optional) continue;
        throw new ContainerConfigError(secret ? `couldn't find key ${key} in Secret ${namespace}/${name}` : `secret "${name}" not found`);
      }
      variables[variable.name] = value;
    } else if (from?.configMapKeyRef) {
      if (from.configMapKeyRef.optional) continue;
      throw new ContainerConfigError(`configmap "${from.configMapKeyRef.name}" not found`);
    } else if (from?.fieldRef) {
      variables[variable.name] = fieldValue(pod, from.fieldRef.fieldPath, nodeName);
    } else {
      variables[variable.name] = expandReferences(variable.value ?? "", variables);
    }
  }
  return variables;
}
