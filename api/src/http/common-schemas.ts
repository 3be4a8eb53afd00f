import { z } from "zod";

/** decisions.md: an id that cannot be an id is 422; a well-formed id that names nothing is 404. */
export const PathId = z
  .string()
  .max(128, "must be at most 128 characters")
  .regex(/^[A-Za-z0-9._:-]+$/, "may contain only A-Z a-z 0-9 . _ : -");

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const ErrorEnvelopeSchema = z
  .object({
    code: z.string(),
    message: z.string(),
    resolution: z.string(),
    detail: z.unknown(),
  })
  .meta({ id: "ErrorEnvelope" });

export const ValidationErrorSchema = z
  .object({
    loc: z.array(z.union([z.string(), z.number()])),
    msg: z.string(),
    type: z.string(),
    input: z.unknown().optional(),
    ctx: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: "ValidationError" });

export const HTTPValidationErrorSchema = z.object({ detail: z.array(ValidationErrorSchema) }).meta({ id: "HTTPValidationError" });

export const queryInt = (min: number, max: number, fallback: number) =>
  z.coerce
    .number({ error: "must be an integer" })
    .int("must be an integer")
    .min(min, `must be >= ${min}`)
    .max(max, `must be <= ${max}`)
    .default(fallback);

export const PageQuery = z.object({
  page: queryInt(1, Number.MAX_SAFE_INTEGER, 1),
  page_size: queryInt(1, 100, 20),
});

/** Standard error responses of every /v3 operation, for the OpenAPI document. */
export function errorResponses(validation: "envelope" | "detail", extra: number[] = []) {
  const responses: Record<number, z.ZodType> = {
    401: ErrorEnvelopeSchema,
    422: validation === "envelope" ? ErrorEnvelopeSchema : HTTPValidationErrorSchema,
    429: ErrorEnvelopeSchema,
  };
  for (const status of extra) responses[status] = ErrorEnvelopeSchema;
  return responses;
}
