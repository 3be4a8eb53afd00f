/**
 * Typed errors: route code throws these, one error handler shapes every response as the
 * contract's ErrorEnvelope. 5xx messages are generic; their cause only reaches the logs.
 */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly resolution: string,
    readonly detail: unknown = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const errors = {
  unauthorized: (message = "Missing or invalid API key.") =>
    new AppError(401, "unauthorized", message, "Send a valid API key as 'Authorization: Bearer <key>' or in the 'X-Browser-Use-API-Key' header."),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError(
      429,
      "rate_limited",
      "Too many failed authentication attempts from this address.",
      `Wait ${retryAfterSeconds} seconds, then retry with a valid API key.`,
      null,
      { "retry-after": String(retryAfterSeconds) },
    ),
  sessionNotFound: (id: string) =>
    new AppError(404, "session_not_found", `Session ${id} not found.`, "Check the session id; sessions of other tenants and deleted sessions are not visible."),
  profileNotFound: (id: string) =>
    new AppError(404, "profile_not_found", `Profile ${id} not found.`, "Check the profile id, or create the profile first."),
  routeNotFound: (method: string, url: string) =>
    new AppError(404, "not_found", `No route ${method} ${url}.`, "Check the path; every operation lives under /v3."),
  invalidStorageState: (message: string, detail: unknown) =>
    new AppError(400, "invalid_storage_state", message, "Send a Playwright storageState() document: { cookies: [{name, value, domain, ...}], origins: [{origin, localStorage: [{name, value}]}] } of at most 5 MiB.", detail),
  invalidCursor: (id: string) =>
    new AppError(422, "invalid_cursor", `Cursor ${id} is not a message of this session.`, "Use the id of a message returned by this session's message list."),
  unknownModel: (model: string, known: string[]) =>
    new AppError(422, "unknown_model", `Unknown model "${model}".`, `Use one of: ${known.join(", ")}; or omit 'model' for the default.`, { model, available: known }),
  invalidReasoningEffort: (effort: string, model: string, supported: string[]) =>
    new AppError(422, "invalid_reasoning_effort", `Reasoning effort "${effort}" is not supported by model "${model}".`, `Use "default" or one of: ${supported.join(", ")}.`, { reasoningEffort: effort, model, supported }),
  sessionBusy: (id: string) =>
    new AppError(409, "session_busy", `Session ${id} is running a task.`, "Wait until the session is idle, or stop it with strategy 'task' first."),
  sessionNotIdle: (id: string, status: string) =>
    new AppError(409, "session_not_idle", `Session ${id} has ended (status ${status}) and cannot take new work.`, "Create a new session for new work."),
  payloadTooLarge: (limit: number) =>
    new AppError(413, "payload_too_large", `Request body exceeds ${limit} bytes.`, "Send a smaller body."),
  unavailable: () =>
    new AppError(503, "unavailable", "The service cannot reach its database right now.", "Retry in a few seconds."),
  internal: () =>
    new AppError(500, "internal_error", "Internal server error.", "Retry later; if it persists, contact the operator of this service with the time of the request."),
};

export interface ErrorEnvelope {
  code: string;
  message: string;
  resolution: string;
  detail: unknown;
}

export function envelopeOf(error: AppError): ErrorEnvelope {
  return { code: error.code, message: error.message, resolution: error.resolution, detail: error.detail };
}
