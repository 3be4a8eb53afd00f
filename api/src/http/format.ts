import type { Prisma } from "../db/client-types.js";

/** Decimal amounts as plain decimal strings ("0", "0.0123"), never exponent notation. */
export function decimalString(value: Prisma.Decimal | null | undefined): string {
  if (value === null || value === undefined) return "0";
  const text = value.toFixed();
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}

export function isoTime(value: Date): string {
  return value.toISOString();
}

export function isoTimeOrNull(value: Date | null | undefined): string | null {
  return value ? value.toISOString() : null;
}
