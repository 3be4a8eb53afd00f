/**
 * Errors shaped like the API server's metav1.Status bodies, so clients see the same
 * reason/code/details they would see from a real cluster.
 */
export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
}

export interface StatusBody {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure" | "Success";
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  toStatus(): StatusBody {
    return statusBody(this.code, this.reason, this.message, this.details);
  }
}

export function statusBody(code: number, reason: string, message: string, details?: StatusDetails): StatusBody {
  const body: StatusBody = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
  if (details && Object.keys(details).length > 0) body.details = details;
  return body;
}

/** Identifies a resource in messages the way the API server does: `pods` or `agentsessions.browser-agents.dev`. */
export interface ResourceNaming {
  group: string;
  plural: string;
  kind: string;
}

function groupResource(naming: ResourceNaming): string {
  return naming.group ? `${naming.plural}.${naming.group}` : naming.plural;
}

function groupKind(naming: ResourceNaming): string {
  return naming.group ? `${naming.kind}.${naming.group}` : naming.kind;
}

function resourceDetails(naming: ResourceNaming, name: string): StatusDetails {
  return naming.group ? { name, group: naming.group, kind: naming.plural } : { name, kind: naming.plural };
}

export function notFound(naming: ResourceNaming, name: string): ApiError {
  return new ApiError(404, "NotFound", `${groupResource(naming)} "${name}" not found`, resourceDetails(naming, name));
}

export function alreadyExists(naming: ResourceNaming, name: string): ApiError {
  return new ApiError(409, "AlreadyExists", `${groupResource(naming)} "${name}" already exists`, resourceDetails(naming, name));
}

export function conflict(naming: ResourceNaming, name: string, why: string): ApiError {
  return new ApiError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${groupResource(naming)} "${name}": ${why}`,
    resourceDetails(naming, name),
  );
}

export const STALE_OBJECT_MESSAGE = "the object has been modified; please apply your changes to the latest version and try again";

export function invalid(naming: ResourceNaming, name: string, causes: StatusCause[]): ApiError {
  const summary = causes.map((cause) => (cause.field ? `${cause.field}: ${cause.message}` : cause.message));
  const joined = summary.length === 1 ? summary[0] : `[${summary.join(", ")}]`;
  const details: StatusDetails = naming.group
    ? { name, group: naming.group, kind: naming.kind, causes }
    : { name, kind: naming.kind, causes };
  return new ApiError(422, "Invalid", `${groupKind(naming)} "${name}" is invalid: ${joined}`, details);
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, "BadRequest", message);
}

export function unsupportedMediaType(contentType: string, accepted: string[]): ApiError {
  return new ApiError(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format (${contentType}) - accepted media types include: ${accepted.join(", ")}`,
  );
}

export function methodNotAllowed(message: string): ApiError {
  return new ApiError(405, "MethodNotAllowed", message);
}

export function resourceExpired(message: string): ApiError {
  return new ApiError(410, "Expired", message);
}

export function unauthorized(): ApiError {
  return new ApiError(401, "Unauthorized", "Unauthorized");
}
