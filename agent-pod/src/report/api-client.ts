import {
  AGENT_API_PREFIX,
  EventBatchResult,
  SessionBootstrap,
  StorageStateWriteResult,
  TaskResultResponse,
  WorkResponse,
  type AgentEvent,
  type AgentFailure,
  type ReadyRequest,
  type StorageState,
  type TaskResult,
} from "@browser-agents/protocol";
import type { z } from "zod";

/** The API no longer knows this session (401/404/410): the agent should exit quietly. */
export class SessionGoneError extends Error {
  override readonly name = "SessionGoneError";

  constructor(readonly status: number, path: string) {
    super(`The API answered ${status} to ${path}: the session is gone`);
  }
}

/** The API refused a request for a reason retrying cannot fix, or answered something unreadable. */
export class ReportApiError extends Error {
  override readonly name = "ReportApiError";

  constructor(message: string, readonly status: number | null) {
    super(message);
  }
}

export interface RetryPolicy {
  /** Total attempts, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface ReportApiClientOptions {
  apiUrl: string;
  sessionId: string;
  token: string;
  retry?: RetryPolicy;
  /** Per attempt, for everything but the work long-poll (which adds its own wait). */
  requestTimeoutMs?: number;
  onRetry?: (info: { path: string; attempt: number; reason: string; delayMs: number }) => void;
}

const DEFAULT_RETRY: RetryPolicy = { attempts: 8, baseDelayMs: 200, maxDelayMs: 5_000 };
const GONE_STATUSES = new Set([401, 404, 410]);

interface RequestSpec<T> {
  method: "GET" | "POST" | "PUT";
  path: string;
  body?: unknown;
  /** Null for 204 answers. */
  schema: z.ZodType<T> | null;
  timeoutMs?: number;
  signal?: AbortSignal;
}

class RetryableError extends Error {}

/** The typed client of the report protocol (protocol/src/report-protocol.ts). */
export class ReportApiClient {
  private readonly base: string;
  private readonly retry: RetryPolicy;
  private readonly requestTimeoutMs: number;

  constructor(private readonly options: ReportApiClientOptions) {
    const root = options.apiUrl.replace(/\/+$/, "");
    this.base = `${root}${AGENT_API_PREFIX}/sessions/${encodeURIComponent(options.sessionId)}`;
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
  }

  bootstrap(signal?: AbortSignal): Promise<SessionBootstrap> {
    return this.request({ method: "GET", path: "/bootstrap", schema: SessionBootstrap, signal });
  }

  async ready(body: ReadyRequest, signal?: AbortSignal): Promise<void> {
    await this.request({ method: "POST", path: "/ready", body, schema: null, signal });
  }

  /** Long-poll: the API holds the request up to waitSeconds while there is no work. */
  work(waitSeconds: number, signal?: AbortSignal): Promise<WorkResponse> {
    return this.request({
      method: "GET",
      path: `/work?waitSeconds=${waitSeconds}`,
      schema: WorkResponse,
      timeoutMs: waitSeconds * 1000 + this.requestTimeoutMs,
      signal,
    });
  }

  postEvents(events: AgentEvent[], signal?: AbortSignal): Promise<EventBatchResult> {
    return this.request({ method: "POST", path: "/events", body: { events }, schema: EventBatchResult, signal });
  }

  postTaskResult(result: TaskResult, signal?: AbortSignal): Promise<TaskResultResponse> {
    return this.request({ method: "POST", path: "/task-result", body: result, schema: TaskResultResponse, signal });
  }

  async postFailure(failure: AgentFailure, signal?: AbortSignal): Promise<void> {
    await this.request({ method: "POST", path: "/failure", body: failure, schema: null, signal });
  }

  putStorageState(state: StorageState, signal?: AbortSignal): Promise<StorageStateWriteResult> {
    return this.request({ method: "PUT", path: "/storage-state", body: state, schema: StorageStateWriteResult, signal });
  }

  private async request<T>(spec: RequestSpec<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      spec.signal?.throwIfAborted();
      try {
        return await this.attempt(spec);
      } catch (error) {
        if (!(error instanceof RetryableError) || attempt >= this.retry.attempts) {
          if (error instanceof RetryableError) {
            throw new ReportApiError(`${spec.method} ${spec.path} failed after ${attempt} attempts: ${error.message}`, null);
          }
          throw error;
        }
        const delayMs = backoff(this.retry, attempt);
        this.options.onRetry?.({ path: spec.path, attempt, reason: error.message, delayMs });
        await sleep(delayMs, spec.signal);
      }
    }
  }

  private async attempt<T>(spec: RequestSpec<T>): Promise<T> {
    const timeout = AbortSignal.timeout(spec.timeoutMs ?? this.requestTimeoutMs);
    const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await fetch(`${this.base}${spec.path}`, {
        method: spec.method,
        headers: {
          authorization: `Bearer ${this.options.token}`,
          ...(spec.body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
        signal,
      });
    } catch (error) {
      if (spec.signal?.aborted) throw spec.signal.reason;
      throw new RetryableError(timeout.aborted ? "timed out" : `network error: ${describe(error)}`);
    }
    const text = await response.text().catch((error: unknown) => {
      if (spec.signal?.aborted) throw spec.signal.reason;
      throw new RetryableError(`response interrupted: ${describe(error)}`);
    });
    if (GONE_STATUSES.has(response.status)) throw new SessionGoneError(response.status, spec.path);
    if (response.status >= 500 || response.status === 429) {
      throw new RetryableError(`HTTP ${response.status}`);
    }
    if (!response.ok) {
      throw new ReportApiError(`${spec.method} ${spec.path} answered ${response.status}: ${text.slice(0, 500)}`, response.status);
    }
    if (spec.schema === null) return undefined as T;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ReportApiError(`${spec.method} ${spec.path} answered something that is not JSON`, response.status);
    }
    const parsed = spec.schema.safeParse(json);
    if (!parsed.success) {
      throw new ReportApiError(`${spec.method} ${spec.path} answered an unexpected shape: ${parsed.error.message}`, response.status);
    }
    return parsed.data;
  }
}

function backoff(policy: RetryPolicy, attempt: number): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  // Full jitter keeps many agents from retrying in step after an API restart.
  return Math.round(exponential / 2 + Math.random() * (exponential / 2));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
