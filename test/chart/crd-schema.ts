import { Ajv, type ErrorObject } from "ajv";
import addFormatsModule from "ajv-formats";
import type { KubernetesObject } from "./helm.js";

// ajv-formats is CommonJS: its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

type JsonSchema = { [keyword: string]: unknown };

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema: { openAPIV3Schema: JsonSchema };
}

export interface CustomResourceDefinition extends KubernetesObject {
  spec: { group: string; names: { kind: string; plural: string }; scope: string; versions: CrdVersion[] };
}

/**
 * With strict field validation the API server rejects fields a structural schema does not
 * declare; the same here, so a misspelt field in a sample fails.
 */
function closeObjects(schema: JsonSchema): JsonSchema {
  const closed: JsonSchema = { ...schema };
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties) {
    closed.properties = Object.fromEntries(Object.entries(properties).map(([key, child]) => [key, closeObjects(child)]));
    if (!("additionalProperties" in schema) && schema["x-kubernetes-preserve-unknown-fields"] !== true) {
      closed.additionalProperties = false;
    }
  }
  if (schema.items && typeof schema.items === "object") closed.items = closeObjects(schema.items as JsonSchema);
  return closed;
}

export type SampleValidator = (sample: unknown) => string[];

/** Validates samples against one served version of the CRD (CEL rules are not evaluated). */
export function crdValidator(crd: CustomResourceDefinition, versionName: string): SampleValidator {
  const version = crd.spec.versions.find((candidate) => candidate.name === versionName);
  if (!version) throw new Error(`the CRD serves no version ${versionName}`);
  const ajv = new Ajv({ allErrors: true, strict: true });
  addFormats(ajv);
  ajv.addFormat("int64", { type: "number", validate: (value: number) => Number.isSafeInteger(value) });
  ajv.addFormat("int32", { type: "number", validate: (value: number) => Number.isInteger(value) && Math.abs(value) < 2 ** 31 });
  for (const keyword of [
    "x-kubernetes-validations",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-int-or-string",
    "x-kubernetes-embedded-resource",
  ]) {
    ajv.addKeyword({ keyword });
  }
  const validate = ajv.compile(closeObjects(version.schema.openAPIV3Schema));
  return (sample) => {
    if (validate(sample)) return [];
    return (validate.errors ?? []).map((error: ErrorObject) => `${error.instancePath || "/"} ${error.message ?? ""} ${JSON.stringify(error.params)}`);
  };
}
