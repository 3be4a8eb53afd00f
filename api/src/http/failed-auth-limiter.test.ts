import { describe, expect, it } from "vitest";
import { FailedAuthLimiter } from "./failed-auth-limiter.js";

describe("FailedAuthLimiter", () => {
  it("blocks an address after `limit` failures inside the window and frees it when the window passes", () => {
    let now = 1_000_000;
    const limiter = new FailedAuthLimiter(3, 60_000, () => now);
    for (let i = 0; i < 3; i += 1) {
      expect(limiter.retryAfterSeconds("1.1.1.1")).toBe(0);
      limiter.recordFailure("1.1.1.1");
      now += 1000;
    }
    expect(limiter.retryAfterSeconds("1.1.1.1")).toBe(57);
    expect(limiter.retryAfterSeconds("2.2.2.2")).toBe(0);
    now += 56_500;
    expect(limiter.retryAfterSeconds("1.1.1.1")).toBe(1);
    now += 600;
    expect(limiter.retryAfterSeconds("1.1.1.1")).toBe(0);
  });

  it("forgets failures older than the window", () => {
    let now = 0;
    const limiter = new FailedAuthLimiter(2, 10_000, () => now);
    limiter.recordFailure("a");
    now += 11_000;
    limiter.recordFailure("a");
    expect(limiter.retryAfterSeconds("a")).toBe(0);
  });
});
