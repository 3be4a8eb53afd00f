import { createRequire } from "node:module";
import * as clientModels from "@kubernetes/client-node";
import type { KubernetesObject } from "./helm.js";

/**
 * Checks a manifest the way an API server with strict field validation would, without a server:
 * - kubernetes-models carries validators compiled from the Kubernetes OpenAPI schemas (types,
 *   required fields, formats), but lets unknown fields through;
 * - @kubernetes/client-node's models, generated from the same OpenAPI document, list every field
 *   of every type, which finds misspelt or misplaced fields.
 */
const require = createRequire(import.meta.url);

interface ModelClass {
  new (data: unknown): { validate(): void };
}

interface AttributeType {
  baseName: string;
  type: string;
}

interface ClientModel {
  getAttributeTypeMap(): AttributeType[];
}

function typedModel(apiVersion: string, kind: string): ModelClass {
  const module = require(`kubernetes-models/${apiVersion}/${kind}`) as Record<string, ModelClass | undefined>;
  const model = module[kind];
  if (!model) throw new Error(`kubernetes-models has no ${apiVersion} ${kind}`);
  return model;
}

function clientModel(typeName: string): ClientModel | undefined {
  const candidate = (clientModels as unknown as Record<string, unknown>)[typeName];
  if (typeof candidate === "function" && "getAttributeTypeMap" in candidate) return candidate as unknown as ClientModel;
  return undefined;
}

function clientTypeName(apiVersion: string, kind: string): string {
  const version = apiVersion.split("/").at(-1) ?? apiVersion;
  return `${version.charAt(0).toUpperCase()}${version.slice(1)}${kind}`;
}

function unknownFields(value: unknown, typeName: string, path: string, found: string[]): void {
  if (value === null || value === undefined) return;
  const arrayOf = /^Array<(.+)>$/.exec(typeName)?.[1];
  if (arrayOf) {
    if (Array.isArray(value)) value.forEach((item, index) => unknownFields(item, arrayOf, `${path}[${index}]`, found));
    return;
  }
  const mapOf = /^\{ \[key: string\]: (.+); \}$/.exec(typeName)?.[1];
  if (mapOf) {
    if (typeof value === "object") {
      for (const [key, item] of Object.entries(value)) unknownFields(item, mapOf, `${path}.${key}`, found);
    }
    return;
  }
  const model = clientModel(typeName);
  // Scalars, IntOrString, free-form objects; wrong types are the typed validator's to report.
  if (!model || typeof value !== "object" || Array.isArray(value)) return;
  const fields = new Map(model.getAttributeTypeMap().map((attribute) => [attribute.baseName, attribute.type]));
  for (const [key, item] of Object.entries(value)) {
    const fieldType = fields.get(key);
    if (fieldType === undefined) found.push(`${path}.${key}: unknown field of ${typeName}`);
    else unknownFields(item, fieldType, `${path}.${key}`, found);
  }
}

/** Problems of one manifest; empty when the API server would accept it. */
export function manifestProblems(object: KubernetesObject): string[] {
  const problems: string[] = [];
  try {
    new (typedModel(object.apiVersion, object.kind))(object).validate();
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  const typeName = clientTypeName(object.apiVersion, object.kind);
  if (!clientModel(typeName)) problems.push(`@kubernetes/client-node has no model ${typeName}`);
  unknownFields(object, typeName, `${object.kind}/${object.metadata.name}`, problems);
  return problems;
}
