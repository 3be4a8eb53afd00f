/** Nearest-rank percentile (p in 0..100) of values; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

export interface Summary {
  count: number;
  min: number;
  p50: number;
  p95: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary {
  return {
    count: values.length,
    min: values.length ? Math.min(...values) : Number.NaN,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    max: values.length ? Math.max(...values) : Number.NaN,
  };
}

/** A fixed-width text table: the first row is the header. */
export function table(rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const cells = rows.map((row) => row.map((cell) => (typeof cell === "number" ? formatNumber(cell) : cell)));
  const widths = cells[0]?.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? "").length))) ?? [];
  return cells
    .map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join("  "))
    .join("\n");
}

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return "-";
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
