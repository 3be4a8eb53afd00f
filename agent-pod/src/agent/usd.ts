/**
 * Exact USD arithmetic: an amount is a bigint count of 1e-18 USD. Prices per million tokens
 * with up to 12 decimals give exact per-token costs; anything finer is rounded up, so cost is
 * never under-reported.
 */
export type UsdAmount = bigint;

const SCALE_DIGITS = 18;
const SCALE = 10n ** BigInt(SCALE_DIGITS);
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

export const ZERO_USD: UsdAmount = 0n;

export function parseUsd(text: string): UsdAmount {
  const match = DECIMAL.exec(text);
  if (!match) throw new Error(`Not a non-negative decimal amount: ${JSON.stringify(text)}`);
  const whole = match[1] ?? "0";
  const fraction = match[2] ?? "";
  const kept = fraction.slice(0, SCALE_DIGITS).padEnd(SCALE_DIGITS, "0");
  const roundsUp = /[1-9]/.test(fraction.slice(SCALE_DIGITS)) ? 1n : 0n;
  return BigInt(whole) * SCALE + BigInt(kept) + roundsUp;
}

/** Plain decimal text without trailing zeros ("0.000375", "12", "0"). */
export function formatUsd(amount: UsdAmount): string {
  if (amount < 0n) throw new Error("USD amounts are never negative");
  const whole = amount / SCALE;
  const fraction = (amount % SCALE).toString().padStart(SCALE_DIGITS, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

export function costOfTokens(tokens: number, pricePerMillionUsd: string): UsdAmount {
  if (!Number.isSafeInteger(tokens) || tokens < 0) throw new Error(`Not a token count: ${tokens}`);
  const numerator = BigInt(tokens) * parseUsd(pricePerMillionUsd);
  const perMillion = 1_000_000n;
  return numerator / perMillion + (numerator % perMillion === 0n ? 0n : 1n);
}
