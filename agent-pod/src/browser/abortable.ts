export class ActionAbortedError extends Error {
  constructor() {
    super("Action aborted");
    this.name = "ActionAbortedError";
  }
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts: with the signal's reason, or with
 * what `abortError` makes. Playwright calls cannot be cancelled, so an abandoned `work` runs on in
 * the background with its outcome ignored; the caller is free at once.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, abortError: () => unknown = () => signal.reason): Promise<T> {
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(abortError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Resolves after `ms`, or rejects with ActionAbortedError when `signal` aborts first. */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new ActionAbortedError());
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new ActionAbortedError());
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Resolves when `work` settles or after `ms`, whichever comes first, leaving no timer behind. */
export function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    work.then(done, done);
  });
}

/** Settles with `work`, or rejects with `message` after `ms`, leaving no timer behind. */
export function within<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  work.catch(() => undefined);
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
