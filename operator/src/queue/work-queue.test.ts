import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PermanentError, TemporaryError } from "./reconcile-errors.js";
import { WorkQueue, type HandlerResult } from "./work-queue.js";

/** A handler whose calls stay open until the test finishes them. */
function controllableHandler() {
  const calls: { key: string; finish: (result?: HandlerResult) => void; fail: (error: unknown) => void }[] = [];
  const handler = (key: string) =>
    new Promise<HandlerResult | void>((resolve, reject) => {
      calls.push({ key, finish: resolve, fail: reject });
    });
  return { calls, handler };
}

const flush = () => vi.advanceTimersByTimeAsync(0);

describe("WorkQueue", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("handles one key at a time, and runs once more if the key was added while it ran", async () => {
    const { calls, handler } = controllableHandler();
    const queue = new WorkQueue({ concurrency: 4, handler, retryBaseDelayMs: 100, retryMaxDelayMs: 1000 });
    queue.add("a");
    await flush();
    queue.add("a");
    queue.add("a");
    await flush();
    expect(calls.map((call) => call.key)).toEqual(["a"]);
    calls[0]?.finish();
    await flush();
    expect(calls.map((call) => call.key)).toEqual(["a", "a"]);
    calls[1]?.finish();
    await flush();
    expect(calls).toHaveLength(2);
    await queue.shutdown();
  });

  it("runs different keys in parallel up to the concurrency limit, a waiting key only once", async () => {
    const { calls, handler } = controllableHandler();
    const queue = new WorkQueue({ concurrency: 2, handler, retryBaseDelayMs: 100, retryMaxDelayMs: 1000 });
    for (const key of ["a", "b", "c", "c"]) queue.add(key);
    await flush();
    expect(calls.map((call) => call.key)).toEqual(["a", "b"]);
    calls[0]?.finish();
    await flush();
    expect(calls.map((call) => call.key)).toEqual(["a", "b", "c"]);
    calls[1]?.finish();
    calls[2]?.finish();
    await flush();
    expect(calls).toHaveLength(3);
    await queue.shutdown();
  });

  it("looks at a key again after the delay the handler asks for", async () => {
    const { calls, handler } = controllableHandler();
    const queue = new WorkQueue({ concurrency: 1, handler, retryBaseDelayMs: 100, retryMaxDelayMs: 1000 });
    queue.add("a");
    await flush();
    calls[0]?.finish({ requeueAfterMs: 5000 });
    await vi.advanceTimersByTimeAsync(4999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    calls[1]?.finish();
    await queue.shutdown();
  });

  it("retries failures with growing delays, and starts over after a success", async () => {
    const { calls, handler } = controllableHandler();
    const failures: (number | null)[] = [];
    const queue = new WorkQueue({
      concurrency: 1,
      handler,
      retryBaseDelayMs: 100,
      retryMaxDelayMs: 350,
      onFailure: (_key, _error, _kind, retryInMs) => failures.push(retryInMs),
    });
    queue.add("a");
    for (let attempt = 0; attempt < 4; attempt += 1) {
      await vi.advanceTimersByTimeAsync(1000);
      calls.at(-1)?.fail(new Error("boom"));
    }
    await flush();
    expect(failures).toEqual([100, 200, 350, 350]);
    await vi.advanceTimersByTimeAsync(1000);
    calls.at(-1)?.finish();
    queue.add("a");
    await flush();
    calls.at(-1)?.fail(new Error("boom again"));
    await flush();
    expect(failures.at(-1)).toBe(100);
    await queue.shutdown();
  });

  it("retries a temporary error after its own delay and never retries a permanent one", async () => {
    const { calls, handler } = controllableHandler();
    const queue = new WorkQueue({ concurrency: 2, handler, retryBaseDelayMs: 100, retryMaxDelayMs: 1000 });
    queue.add("temporary");
    queue.add("permanent");
    await flush();
    calls[0]?.fail(new TemporaryError("busy", 2000));
    calls[1]?.fail(new PermanentError("malformed"));
    await vi.advanceTimersByTimeAsync(1999);
    expect(calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.map((call) => call.key)).toEqual(["temporary", "permanent", "temporary"]);
    calls[2]?.finish();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(3);
    await queue.shutdown();
  });

  it("takes no new work after shutdown and waits for running handlers", async () => {
    const { calls, handler } = controllableHandler();
    const queue = new WorkQueue({ concurrency: 1, handler, retryBaseDelayMs: 100, retryMaxDelayMs: 1000 });
    queue.add("a");
    queue.add("b");
    await flush();
    let stopped = false;
    const shutdown = queue.shutdown().then(() => (stopped = true));
    await flush();
    expect(stopped).toBe(false);
    calls[0]?.finish({ requeueAfterMs: 10 });
    await shutdown;
    queue.add("c");
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls.map((call) => call.key)).toEqual(["a"]);
  });
});
