import type { FailureKind } from "@browser-agents/protocol";

/** How a task ended, as the API's task-result wants it, plus what it took. */
export interface TaskOutcome {
  output: unknown;
  isTaskSuccessful: boolean;
  failureKind: FailureKind | null;
  failureStatusCode: number | null;
  /** Model calls made for this task. */
  steps: number;
  /** Exact decimal USD spent on the model for this task. */
  costUsd: string;
}

/**
 * The session cannot go on (the model provider refuses our key or stays unreachable, the
 * browser died): the caller reports it with POST failure instead of a task result.
 */
export class SessionFailure extends Error {
  override readonly name = "SessionFailure";

  constructor(
    readonly failureKind: Extract<FailureKind, "llm_error" | "browser_error">,
    readonly failureStatusCode: number | null,
    message: string,
  ) {
    super(message);
  }
}
