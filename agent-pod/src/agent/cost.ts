import type { ModelEndpoint } from "@browser-agents/protocol";
import { ZERO_USD, costOfTokens, parseUsd, type UsdAmount } from "./usd.js";

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export function costOfCall(usage: TokenUsage, model: Pick<ModelEndpoint, "inputPricePerMillionUsd" | "outputPricePerMillionUsd">): UsdAmount {
  return costOfTokens(usage.inputTokens, model.inputPricePerMillionUsd) + costOfTokens(usage.outputTokens, model.outputPricePerMillionUsd);
}

/** Tokens are roughly a quarter of the characters: good enough to decide before a call. */
export function estimateTokens(characters: number): number {
  return Math.ceil(characters / 4);
}

/**
 * The session's budget seen from one task: what earlier tasks spent (from the API) plus what
 * this task has spent so far. The budget spans tasks, so the limit applies to the sum.
 */
export class CostBudget {
  private taskSpent: UsdAmount = ZERO_USD;
  private lastCall: UsdAmount = ZERO_USD;
  private readonly limit: UsdAmount | null;
  private readonly spentBefore: UsdAmount;

  constructor(maxCostUsd: string | null, spentCostUsd: string) {
    this.limit = maxCostUsd === null ? null : parseUsd(maxCostUsd);
    this.spentBefore = parseUsd(spentCostUsd);
  }

  get taskCost(): UsdAmount {
    return this.taskSpent;
  }

  record(cost: UsdAmount): void {
    this.taskSpent += cost;
    this.lastCall = cost;
  }

  /**
   * Whether the next call could overrun the budget: its estimate is the larger of the last
   * call's cost and the prompt's own input cost.
   */
  wouldExceed(promptInputCost: UsdAmount): boolean {
    if (this.limit === null) return false;
    const estimate = promptInputCost > this.lastCall ? promptInputCost : this.lastCall;
    return this.spentBefore + this.taskSpent + estimate > this.limit;
  }
}
