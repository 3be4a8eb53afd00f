/**
 * The reconcile loop's small error vocabulary (after kopf): anything else thrown is retried with
 * exponential backoff.
 */

/** Try again after a known delay, without counting as a failure streak. */
export class TemporaryError extends Error {
  override readonly name = "TemporaryError";
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/** Retrying cannot help (e.g. a malformed resource); wait for the object itself to change. */
export class PermanentError extends Error {
  override readonly name = "PermanentError";
}
