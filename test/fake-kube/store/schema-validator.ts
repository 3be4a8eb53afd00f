import { Ajv, type ErrorObject } from "ajv";
import type { StatusCause } from "./api-error.js";
import { isPlainObject } from "./kube-object.js";

/**
 * Validates custom resources against a CRD's openAPIV3Schema the way the API server does:
 * defaults are applied, unknown fields are pruned (unless x-kubernetes-preserve-unknown-fields),
 * and failures become field causes. CEL rules (x-kubernetes-validations) are not evaluated.
 */
export type ObjectValidator = (object: Record<string, unknown>) => StatusCause[];

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export function compileCrdSchema(openApiV3Schema: Record<string, unknown>): ObjectValidator {
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    useDefaults: true,
    removeAdditional: true,
    logger: false,
    verbose: true,
    formats: {
      "date-time": RFC3339,
      int32: true,
      int64: true,
      float: true,
      double: true,
      byte: /^[A-Za-z0-9+/]*={0,2}$/,
      "int-or-string": true,
    },
  });
  const validate = ajv.compile(structuralSchema(openApiV3Schema));
  return (object) => {
    if (validate(object)) return [];
    return (validate.errors ?? []).map((error) => toCause(error));
  };
}

/** Root metadata/apiVersion/kind are the server's business, never pruned or schema-checked. */
function structuralSchema(root: Record<string, unknown>): Record<string, unknown> {
  const schema = prepareNode(structuredClone(root));
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  schema.properties = {
    ...properties,
    apiVersion: { type: "string" },
    kind: { type: "string" },
    metadata: { type: "object" },
  };
  if (schema["x-kubernetes-preserve-unknown-fields"] !== true) schema.additionalProperties = false;
  return schema;
}

function prepareNode(node: Record<string, unknown>): Record<string, unknown> {
  if (node.exclusiveMinimum === true && typeof node.minimum === "number") {
    node.exclusiveMinimum = node.minimum;
    delete node.minimum;
  } else if (typeof node.exclusiveMinimum === "boolean") delete node.exclusiveMinimum;
  if (node.exclusiveMaximum === true && typeof node.maximum === "number") {
    node.exclusiveMaximum = node.maximum;
    delete node.maximum;
  } else if (typeof node.exclusiveMaximum === "boolean") delete node.exclusiveMaximum;

  if (isPlainObject(node.properties)) {
    for (const [key, child] of Object.entries(node.properties)) {
      if (isPlainObject(child)) node.properties[key] = prepareNode(child);
    }
    // Pruning: a structural object with declared properties drops everything else.
    if (node.additionalProperties === undefined && node["x-kubernetes-preserve-unknown-fields"] !== true) {
      node.additionalProperties = false;
    }
  }
  if (isPlainObject(node.additionalProperties)) node.additionalProperties = prepareNode(node.additionalProperties);
  if (isPlainObject(node.items)) node.items = prepareNode(node.items);
  for (const combinator of ["allOf", "anyOf", "oneOf"] as const) {
    const branches = node[combinator];
    if (Array.isArray(branches)) {
      node[combinator] = branches.map((branch: unknown) => (isPlainObject(branch) ? prepareNode(branch) : branch));
    }
  }
  if (isPlainObject(node.not)) node.not = prepareNode(node.not);
  return node;
}

function fieldPath(instancePath: string): string {
  return instancePath
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment), "");
}

function toCause(error: ErrorObject): StatusCause {
  const field = fieldPath(error.instancePath);
  const shown = JSON.stringify(error.data);
  switch (error.keyword) {
    case "required": {
      const missing = String((error.params as { missingProperty?: string }).missingProperty ?? "");
      return { reason: "FieldValueRequired", message: "Required value", field: field ? `${field}.${missing}` : missing };
    }
    case "enum": {
      const allowed = ((error.params as { allowedValues?: unknown[] }).allowedValues ?? []).map((value) => JSON.stringify(value));
      return {
        reason: "FieldValueNotSupported",
        message: `Unsupported value: ${shown}: supported values: ${allowed.join(", ")}`,
        field,
      };
    }
    case "type":
      return {
        reason: "FieldValueTypeInvalid",
        message: `Invalid value: ${shown}: ${field} in body ${error.message ?? "has the wrong type"}`,
        field,
      };
    default:
      return { reason: "FieldValueInvalid", message: `Invalid value: ${shown}: ${error.message ?? "invalid"}`, field };
  }
}
