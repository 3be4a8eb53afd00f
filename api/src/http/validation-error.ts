import type { FastifySchemaValidationError } from "fastify/types/schema.js";
import { AppError } from "../errors.js";

/** One item of the contract's HTTPValidationError.detail. */
export interface ValidationErrorItem {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
}

/** Which 422 body an operation answers: api-v3.md's Errors table fixes it per operation. */
export type ValidationShape = "envelope" | "detail";

const partOf: Record<string, string> = { body: "body", querystring: "query", params: "path", headers: "header" };

export function itemsFromFastify(errors: FastifySchemaValidationError[], context: string): ValidationErrorItem[] {
  return errors.map((error) => ({
    loc: [
      partOf[context] ?? context,
      ...error.instancePath
        .split("/")
        .filter(Boolean)
        .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment)),
    ],
    msg: error.message ?? "invalid value",
    type: error.keyword,
  }));
}

export function validationError(shape: ValidationShape, items: ValidationErrorItem[]): AppError | { detail: ValidationErrorItem[] } {
  if (shape === "detail") return { detail: items };
  const first = items[0];
  const where = first ? first.loc.join(".") : "request";
  return new AppError(
    422,
    "validation_error",
    `Invalid request: ${where}: ${first?.msg ?? "invalid"}`,
    "Fix the fields listed in 'detail' and retry.",
    items,
  );
}
