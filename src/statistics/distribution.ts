import type { Distribution } from '../schema/report.js';

export function ratio(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : numerator / denominator;
}

/** Nearest-rank percentile of already sorted values. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function distribution(values: number[]): Distribution {
  if (values.length === 0) return { mean: 0, p50: 0, p90: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / sorted.length;
  return { mean: Math.round(mean * 1000) / 1000, p50: percentile(sorted, 50), p90: percentile(sorted, 90), max: sorted.at(-1)! };
}

export function countBy<T>(items: T[], key: (item: T) => string | null): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const k = key(item);
    if (k !== null) counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}
