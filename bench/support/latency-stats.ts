/** Nearest-rank percentile of already sorted values. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(fraction * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] ?? Number.NaN;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function summarise(valuesMs: readonly number[]): LatencySummary {
  const sorted = [...valuesMs].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
  };
}

export function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

export function ratio(value: number): string {
  return `${value.toFixed(2)}x`;
}
