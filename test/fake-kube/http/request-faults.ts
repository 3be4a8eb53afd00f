import { ApiError } from "../store/api-error.js";

export type Verb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection";

/** A request the fake answers with an error instead of serving it; unset fields match anything. */
export interface RequestFault {
  verb?: Verb;
  /** Storage key or plural: `pods`, `leases.coordination.k8s.io`, `agentsessions`. */
  resource?: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  code: number;
  reason?: string;
  message?: string;
  /** How many matching requests fail; default 1, Infinity for "until cancelled". */
  times?: number;
}

export interface RequestIdentity {
  verb: Verb;
  resource: string;
  plural: string;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
}

const DEFAULT_REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  410: "Expired",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

export class RequestFaults {
  private readonly active = new Set<{ fault: RequestFault; remaining: number }>();

  add(fault: RequestFault): () => void {
    const entry = { fault, remaining: fault.times ?? 1 };
    this.active.add(entry);
    return () => this.active.delete(entry);
  }

  clear(): void {
    this.active.clear();
  }

  /** The error to answer with, if a fault matches (and is then used up once). */
  take(request: RequestIdentity): ApiError | undefined {
    for (const entry of this.active) {
      const { fault } = entry;
      if (fault.verb !== undefined && fault.verb !== request.verb) continue;
      if (fault.resource !== undefined && fault.resource !== request.resource && fault.resource !== request.plural) continue;
      if (fault.namespace !== undefined && fault.namespace !== request.namespace) continue;
      if (fault.name !== undefined && fault.name !== request.name) continue;
      if (fault.subresource !== undefined && fault.subresource !== request.subresource) continue;
      entry.remaining -= 1;
      if (entry.remaining <= 0) this.active.delete(entry);
      const reason = fault.reason ?? DEFAULT_REASONS[fault.code] ?? "InternalError";
      return new ApiError(fault.code, reason, fault.message ?? `injected fault: ${reason}`);
    }
    return undefined;
  }
}
