import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { ApiError, badRequest } from "./api-error.js";
import { isPlainObject } from "./kube-object.js";

/** RFC 7386 JSON merge patch. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

const jsonPatchSchema = z.array(
  z.object({
    op: z.enum(["add", "remove", "replace", "move", "copy", "test"]),
    path: z.string(),
    from: z.string().optional(),
    value: z.unknown().optional(),
  }),
);

type Container = Record<string, unknown> | unknown[];

function patchFailed(message: string): ApiError {
  // The API server answers 422 when a well-formed JSON patch cannot be applied.
  return new ApiError(422, "Invalid", message);
}

function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw patchFailed(`invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function parentOf(document: unknown, tokens: string[]): { parent: Container; key: string } {
  let current: unknown = document;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isPlainObject(current)) current = current[token];
    else current = undefined;
    if (current === undefined) throw patchFailed(`doc is missing path: "/${tokens.join("/")}"`);
  }
  if (!Array.isArray(current) && !isPlainObject(current)) throw patchFailed(`doc is missing path: "/${tokens.join("/")}"`);
  return { parent: current, key: tokens[tokens.length - 1] ?? "" };
}

function arrayIndex(array: unknown[], key: string, allowEnd: boolean): number {
  if (allowEnd && key === "-") return array.length;
  const index = Number(key);
  const limit = allowEnd ? array.length : array.length - 1;
  if (!/^\d+$/.test(key) || index > limit) throw patchFailed(`index out of bounds: ${key}`);
  return index;
}

function read(document: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return document;
  const { parent, key } = parentOf(document, tokens);
  const value = Array.isArray(parent) ? parent[arrayIndex(parent, key, false)] : parent[key];
  if (value === undefined) throw patchFailed(`doc is missing path: "${pointer}"`);
  return value;
}

function remove(document: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  const { parent, key } = parentOf(document, tokens);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, key, false), 1)[0];
  if (!(key in parent)) throw patchFailed(`doc is missing key: "${pointer}"`);
  const value = parent[key];
  delete parent[key];
  return value;
}

function add(document: unknown, pointer: string, value: unknown, replace: boolean): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return structuredClone(value);
  const { parent, key } = parentOf(document, tokens);
  if (Array.isArray(parent)) {
    const index = arrayIndex(parent, key, !replace);
    parent.splice(index, replace ? 1 : 0, structuredClone(value));
  } else {
    if (replace && !(key in parent)) throw patchFailed(`doc is missing key: "${pointer}"`);
    parent[key] = structuredClone(value);
  }
  return document;
}

/** RFC 6902 JSON patch. */
export function applyJsonPatch(target: unknown, patch: unknown): unknown {
  const parsed = jsonPatchSchema.safeParse(patch);
  if (!parsed.success) throw badRequest(`json: cannot unmarshal the patch into a JSON patch: ${parsed.error.message}`);
  let document = structuredClone(target);
  for (const operation of parsed.data) {
    switch (operation.op) {
      case "add":
        document = add(document, operation.path, operation.value, false);
        break;
      case "replace":
        document = add(document, operation.path, operation.value, true);
        break;
      case "remove":
        remove(document, operation.path);
        break;
      case "move": {
        const value = remove(document, operation.from ?? "");
        document = add(document, operation.path, value, false);
        break;
      }
      case "copy":
        document = add(document, operation.path, read(document, operation.from ?? ""), false);
        break;
      case "test":
        if (!isDeepStrictEqual(read(document, operation.path), operation.value)) {
          throw patchFailed(`testing value ${operation.path} failed: test failed`);
        }
        break;
    }
  }
  return document;
}
