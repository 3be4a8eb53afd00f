import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module namespace.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export type JsonSchema = Record<string, unknown>;

export class InvalidOutputSchemaError extends Error {
  override readonly name = "InvalidOutputSchemaError";
}

export type OutputCheck = { ok: true } | { ok: false; errors: string };

export interface OutputValidator {
  check(value: unknown): OutputCheck;
}

/**
 * Validation is JSON Schema 2020-12. Callers often send schemas written for older drafts (a
 * `$schema` of draft-07, `definitions`, tuple `items`): the draft marker is dropped and tuple
 * arrays are rewritten so the same intent validates under 2020-12.
 */
export function compileOutputSchema(schema: JsonSchema): OutputValidator {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(normalizeOutputSchema(schema));
  } catch (error) {
    throw new InvalidOutputSchemaError(`The output schema is not a valid JSON Schema: ${(error as Error).message}`);
  }
  return {
    check(value) {
      if (validate(value)) return { ok: true };
      return { ok: false, errors: describeErrors(validate.errors ?? []) };
    },
  };
}

export function normalizeOutputSchema(schema: JsonSchema): JsonSchema {
  return normalizeNode(schema, true) as JsonSchema;
}

function normalizeNode(node: unknown, isRoot: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => normalizeNode(item, false));
  if (node === null || typeof node !== "object") return node;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema" && isRoot && typeof value === "string" && !value.includes("2020-12")) continue;
    result[key] = normalizeNode(value, false);
  }
  if (Array.isArray(result.items)) {
    result.prefixItems = result.items;
    if ("additionalItems" in result) result.items = result.additionalItems;
    else delete result.items;
    delete result.additionalItems;
  }
  return result;
}

function describeErrors(errors: readonly ErrorObject[]): string {
  return errors
    .slice(0, 20)
    .map((error) => {
      const where = error.instancePath === "" ? "output" : `output${error.instancePath}`;
      const extra =
        error.keyword === "additionalProperties"
          ? ` ("${String((error.params as { additionalProperty?: unknown }).additionalProperty)}")`
          : error.keyword === "enum"
            ? ` (${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)})`
            : "";
      return `${where} ${error.message ?? "is invalid"}${extra}`;
    })
    .join("; ");
}

/**
 * The output schema as the `output` parameter of the done tool. Local references ("#/...") are
 * rewritten to point inside that parameter, because they would otherwise resolve against the
 * tool's own parameter object.
 */
export function outputSchemaForTool(schema: JsonSchema): JsonSchema {
  return rewriteRefs(normalizeOutputSchema(schema), true) as JsonSchema;
}

function rewriteRefs(node: unknown, isRoot: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, false));
  if (node === null || typeof node !== "object") return node;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (isRoot && (key === "$schema" || key === "$id")) continue;
    if (key === "$ref" && typeof value === "string" && value.startsWith("#")) {
      result[key] = `#/properties/output${value.slice(1)}`;
    } else {
      result[key] = rewriteRefs(value, false);
    }
  }
  return result;
}
