import { isDeepStrictEqual } from "node:util";
import { badRequest, type StatusCause } from "./api-error.js";
import { isPlainObject, type KubeObject } from "./kube-object.js";
import type { ResourceStrategy } from "./resource-type.js";

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DEFAULT_TERMINATION_GRACE_SECONDS = 30;

function podSpec(pod: KubeObject): Record<string, unknown> {
  return isPlainObject(pod.spec) ? pod.spec : {};
}

function podPhase(pod: KubeObject): unknown {
  return isPlainObject(pod.status) ? pod.status.phase : undefined;
}

/** The fields of a pod spec that a real API server lets an update change. */
function mutablePodSpecView(spec: Record<string, unknown>): Record<string, unknown> {
  const view = structuredClone(spec);
  delete view.activeDeadlineSeconds;
  delete view.tolerations;
  for (const listName of ["containers", "initContainers"] as const) {
    const list = view[listName];
    if (Array.isArray(list)) {
      view[listName] = list.map((container: unknown) => {
        if (!isPlainObject(container)) return container;
        const { image: _image, ...rest } = container;
        return rest;
      });
    }
  }
  return view;
}

export const podStrategy: ResourceStrategy = {
  prepareForCreate(pod) {
    const spec = podSpec(pod);
    spec.terminationGracePeriodSeconds ??= DEFAULT_TERMINATION_GRACE_SECONDS;
    spec.restartPolicy ??= "Always";
    pod.spec = spec;
    pod.status = { phase: "Pending", qosClass: "BestEffort" };
  },
  validate(pod, old) {
    const causes: StatusCause[] = [];
    const containers = podSpec(pod).containers;
    if (!Array.isArray(containers) || containers.length === 0) {
      causes.push({ reason: "FieldValueRequired", message: "Required value", field: "spec.containers" });
    } else {
      const seen = new Set<string>();
      containers.forEach((container: unknown, index) => {
        const name = isPlainObject(container) ? container.name : undefined;
        const image = isPlainObject(container) ? container.image : undefined;
        if (typeof name !== "string" || !DNS_LABEL.test(name)) {
          causes.push({ reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(name)}: must be a DNS label`, field: `spec.containers[${index}].name` });
        } else if (seen.has(name)) {
          causes.push({ reason: "FieldValueDuplicate", message: `Duplicate value: "${name}"`, field: `spec.containers[${index}].name` });
        } else seen.add(name);
        if (typeof image !== "string" || image === "") {
          causes.push({ reason: "FieldValueRequired", message: "Required value", field: `spec.containers[${index}].image` });
        }
      });
    }
    if (old && !isDeepStrictEqual(mutablePodSpecView(podSpec(pod)), mutablePodSpecView(podSpec(old)))) {
      causes.push({
        reason: "FieldValueForbidden",
        message:
          "Forbidden: pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations)",
        field: "spec",
      });
    }
    return causes;
  },
  deletionGraceSeconds(pod, requested) {
    // As in the real pod strategy: unscheduled or finished pods have nothing to stop.
    if (!podSpec(pod).nodeName) return 0;
    const phase = podPhase(pod);
    if (phase === "Succeeded" || phase === "Failed") return 0;
    const fromSpec = podSpec(pod).terminationGracePeriodSeconds;
    const grace = requested ?? (typeof fromSpec === "number" ? fromSpec : DEFAULT_TERMINATION_GRACE_SECONDS);
    return Math.max(0, grace);
  },
};

function normalizeSecret(secret: KubeObject): void {
  const data: Record<string, unknown> = isPlainObject(secret.data) ? secret.data : {};
  for (const [key, value] of Object.entries(data)) {
    if (typeof value !== "string" || !BASE64.test(value)) {
      throw badRequest(`Secret in version "v1" cannot be handled as a Secret: illegal base64 data for key "${key}"`);
    }
  }
  // stringData is write-only: the server folds it into data.
  if (isPlainObject(secret.stringData)) {
    for (const [key, value] of Object.entries(secret.stringData)) {
      data[key] = Buffer.from(String(value), "utf8").toString("base64");
    }
  }
  delete secret.stringData;
  secret.data = data;
  secret.type ??= "Opaque";
}

export const secretStrategy: ResourceStrategy = {
  prepareForCreate: normalizeSecret,
  prepareForUpdate: normalizeSecret,
  validate(secret) {
    const data = isPlainObject(secret.data) ? secret.data : {};
    return Object.keys(data)
      .filter((key) => !SECRET_KEY.test(key))
      .map((key) => ({
        reason: "FieldValueInvalid",
        message: `Invalid value: "${key}": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`,
        field: `data[${key}]`,
      }));
  },
};

export const plainStrategy: ResourceStrategy = {};
