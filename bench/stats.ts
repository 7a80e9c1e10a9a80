export interface LatencySummary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentiles (no interpolation), in ms rounded to 0.01. */
export function summarize(samples: readonly number[]): LatencySummary {
  const n = samples.length;
  if (n === 0) return { n: 0, p50: NaN, p95: NaN, p99: NaN, max: NaN, mean: NaN };
  const sorted = Float64Array.from(samples).sort();
  const at = (q: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))];
  const round = (v: number) => Math.round(v * 100) / 100;
  const sum = sorted.reduce((a, b) => a + b, 0);
  return { n, p50: round(at(0.5)), p95: round(at(0.95)), p99: round(at(0.99)), max: round(sorted[n - 1]), mean: round(sum / n) };
}

/** Counts of failures by "<status> <code>" (status 0: no HTTP answer). */
export class ErrorCounts {
  readonly byKey = new Map<string, number>();
  add(status: number, code: string): void {
    const key = `${status} ${code}`;
    this.byKey.set(key, (this.byKey.get(key) ?? 0) + 1);
  }
  get total(): number {
    let t = 0;
    for (const v of this.byKey.values()) t += v;
    return t;
  }
  toJSON(): Record<string, number> {
    return Object.fromEntries([...this.byKey.entries()].sort((a, b) => b[1] - a[1]));
  }
}
