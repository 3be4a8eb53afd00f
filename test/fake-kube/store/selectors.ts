import { badRequest } from "./api-error.js";
import { isPlainObject, type KubeObject } from "./kube-object.js";

type LabelRequirement =
  | { key: string; operator: "exists" | "notexists" }
  | { key: string; operator: "in" | "notin"; values: string[] };

type FieldRequirement = { path: string; operator: "=" | "!="; value: string };

export type ObjectFilter = (object: KubeObject) => boolean;

/** Splits on commas that are not inside an `in (...)` value list. */
function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of selector) {
    if (char === "(") depth += 1;
    if (char === ")") depth -= 1;
    if (char === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== "");
}

const KEY = String.raw`[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?`;
const VALUE = String.raw`([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?`;

function parseLabelRequirement(term: string): LabelRequirement {
  const notExists = new RegExp(`^!\\s*(?<key>${KEY})$`).exec(term)?.groups;
  if (notExists?.key) return { key: notExists.key, operator: "notexists" };
  const set = new RegExp(`^(?<key>${KEY})\\s+(?<operator>in|notin)\\s*\\((?<values>[^)]*)\\)$`).exec(term)?.groups;
  if (set?.key && set.values !== undefined) {
    const values = set.values.split(",").map((value) => value.trim());
    return { key: set.key, operator: set.operator === "notin" ? "notin" : "in", values };
  }
  const equality = new RegExp(`^(?<key>${KEY})\\s*(?<operator>==|=|!=)\\s*(?<value>${VALUE})$`).exec(term)?.groups;
  if (equality?.key && equality.value !== undefined) {
    return { key: equality.key, operator: equality.operator === "!=" ? "notin" : "in", values: [equality.value] };
  }
  const exists = new RegExp(`^(?<key>${KEY})$`).exec(term)?.groups;
  if (exists?.key) return { key: exists.key, operator: "exists" };
  throw badRequest(`unable to parse requirement: found '${term}', expected: label selector requirement`);
}

function matchesLabel(requirement: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, requirement.key);
  const value = labels[requirement.key];
  switch (requirement.operator) {
    case "exists":
      return has;
    case "notexists":
      return !has;
    case "in":
      return has && value !== undefined && requirement.values.includes(value);
    case "notin":
      // As in Kubernetes: a missing label satisfies != and notin.
      return !has || value === undefined || !requirement.values.includes(value);
  }
}

export function parseLabelSelector(selector: string | undefined): ObjectFilter {
  if (!selector) return () => true;
  const requirements = splitTopLevel(selector).map(parseLabelRequirement);
  return (object) => requirements.every((requirement) => matchesLabel(requirement, object.metadata.labels ?? {}));
}

function parseFieldRequirement(term: string): FieldRequirement {
  const match = /^([A-Za-z0-9_.[\]'"/-]+?)\s*(==|=|!=)\s*(.*)$/.exec(term);
  if (!match?.[1] || match[3] === undefined) throw badRequest(`invalid selector: '${term}'; can't understand '${term}'`);
  return { path: match[1], operator: match[2] === "!=" ? "!=" : "=", value: match[3] };
}

function fieldValue(object: KubeObject, path: string): string {
  let current: unknown = object;
  for (const segment of path.split(".")) {
    current = isPlainObject(current) ? current[segment] : undefined;
  }
  return current === undefined || current === null ? "" : String(current);
}

/** Any dotted path is accepted (metadata.name, metadata.namespace, status.phase, spec.nodeName, ...). */
export function parseFieldSelector(selector: string | undefined): ObjectFilter {
  if (!selector) return () => true;
  const requirements = splitTopLevel(selector).map(parseFieldRequirement);
  return (object) =>
    requirements.every((requirement) =>
      requirement.operator === "=" ? fieldValue(object, requirement.path) === requirement.value : fieldValue(object, requirement.path) !== requirement.value,
    );
}

export function combineFilters(...filters: ObjectFilter[]): ObjectFilter {
  return (object) => filters.every((filter) => filter(object));
}
