import { describe, expect, it } from "vitest";
import { CostBudget, costOfCall, estimateTokens } from "./cost.js";
import { costOfTokens, formatUsd, parseUsd } from "./usd.js";

describe("USD arithmetic", () => {
  it("round-trips decimal strings exactly", () => {
    for (const text of ["0", "12", "0.1", "0.000375", "123456789.123456789012345678"]) {
      expect(formatUsd(parseUsd(text))).toBe(text);
    }
    expect(formatUsd(parseUsd("1.500"))).toBe("1.5");
  });

  it("adds without binary floating point drift", () => {
    expect(formatUsd(parseUsd("0.1") + parseUsd("0.2"))).toBe("0.3");
  });

  it("rejects text that is not a non-negative decimal", () => {
    expect(() => parseUsd("-1")).toThrow();
    expect(() => parseUsd("1e-6")).toThrow();
  });

  it("prices tokens per million exactly", () => {
    expect(formatUsd(costOfTokens(1234, "2.50"))).toBe("0.003085");
    expect(formatUsd(costOfTokens(1, "0.15"))).toBe("0.00000015");
    expect(formatUsd(costOfTokens(0, "10"))).toBe("0");
  });

  it("rounds a price finer than the scale up, never down", () => {
    expect(costOfTokens(1, "0.0000000000001")).toBe(1n);
  });
});

describe("costOfCall", () => {
  it("charges input and output tokens at their own prices", () => {
    const model = { inputPricePerMillionUsd: "0.15", outputPricePerMillionUsd: "0.6" };
    expect(formatUsd(costOfCall({ inputTokens: 10_000, outputTokens: 500 }, model))).toBe("0.0018");
  });
});

describe("CostBudget", () => {
  it("never stops an unlimited session", () => {
    const budget = new CostBudget(null, "1000");
    expect(budget.wouldExceed(parseUsd("5"))).toBe(false);
  });

  it("counts what earlier tasks spent against the session budget", () => {
    const budget = new CostBudget("1", "0.99");
    expect(budget.wouldExceed(parseUsd("0.005"))).toBe(false);
    expect(budget.wouldExceed(parseUsd("0.02"))).toBe(true);
  });

  it("expects the next call to cost at least as much as the last one", () => {
    const budget = new CostBudget("0.01", "0");
    budget.record(parseUsd("0.004"));
    expect(budget.wouldExceed(parseUsd("0.0001"))).toBe(false);
    budget.record(parseUsd("0.004"));
    expect(formatUsd(budget.taskCost)).toBe("0.008");
    expect(budget.wouldExceed(parseUsd("0.0001"))).toBe(true);
  });

  it("estimates tokens from characters", () => {
    expect(estimateTokens(4001)).toBe(1001);
  });
});
