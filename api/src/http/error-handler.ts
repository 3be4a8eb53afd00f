import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from "fastify-type-provider-zod";
import { AppError, envelopeOf, errors } from "../errors.js";
import { isDatabaseUnavailable } from "./database-unavailable.js";
import { itemsFromFastify, validationError, type ValidationErrorItem, type ValidationShape } from "./validation-error.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Which 422 body this operation answers (api-v3.md, Errors table). */
    validationShape?: ValidationShape;
    /** Body validation failures of this route answer this 400 code instead of 422. */
    bodyErrorsAs?: "invalid_storage_state";
  }
}

function send(reply: FastifyReply, error: AppError) {
  return reply.code(error.statusCode).headers(error.headers).send(envelopeOf(error));
}

function sendValidation(request: FastifyRequest, reply: FastifyReply, items: ValidationErrorItem[]) {
  const shaped = validationError(request.routeOptions.config.validationShape ?? "envelope", items);
  if (shaped instanceof AppError) return send(reply, shaped);
  return reply.code(422).send(shaped);
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) return send(reply, error);
    if (hasZodFastifySchemaValidationErrors(error)) {
      const context = error.validationContext ?? "body";
      const items = itemsFromFastify(error.validation, context);
      if (context === "body" && request.routeOptions.config.bodyErrorsAs === "invalid_storage_state") {
        return send(reply, errors.invalidStorageState(`Invalid storage state: ${items[0]?.loc.join(".")}: ${items[0]?.msg}`, items));
      }
      return sendValidation(request, reply, items);
    }
    if (error.code === "FST_ERR_CTP_INVALID_JSON_BODY" || error instanceof SyntaxError) {
      if (request.routeOptions.config.bodyErrorsAs === "invalid_storage_state") {
        return send(reply, errors.invalidStorageState("The body is not valid JSON.", null));
      }
      return sendValidation(request, reply, [{ loc: ["body"], msg: "The body is not valid JSON.", type: "json_invalid" }]);
    }
    if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") return send(reply, errors.payloadTooLarge(request.routeOptions.bodyLimit ?? 0));
    if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
      return send(reply, new AppError(415, "unsupported_media_type", "Bodies must be JSON.", "Send 'Content-Type: application/json'."));
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, "database unavailable");
      return send(reply, errors.unavailable());
    }
    if (isResponseSerializationError(error)) request.log.error({ err: error, issues: error.cause }, "response did not match its schema");
    else if (error.statusCode && error.statusCode < 500) {
      return send(reply, new AppError(error.statusCode, "bad_request", error.message, "Fix the request and retry."));
    } else request.log.error({ err: error }, "unhandled error");
    return send(reply, errors.internal());
  });

  app.setNotFoundHandler((request, reply) => send(reply, errors.routeNotFound(request.method, request.url.split("?")[0] ?? "")));
}
