/** Small statistics and formatting helpers for the benchmarks. */

/** The value at quantile `q` (0..1) of `xs`, linear interpolation between ranks. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

export const median = (xs: readonly number[]): number => quantile(xs, 0.5);
export const p90 = (xs: readonly number[]): number => quantile(xs, 0.9);

/** Milliseconds with a precision that suits their size. */
export function ms(x: number): string {
  if (!Number.isFinite(x)) return '-';
  if (x < 10) return x.toFixed(2);
  if (x < 100) return x.toFixed(1);
  return x.toFixed(0);
}

/** A count per batch: integers as they are, fractions with one decimal. */
export function count(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return '-';
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

/** `baseline / mine` as "6.1x faster" or "2.0x slower". */
export function ratio(mine: number, baseline: number): string {
  if (!Number.isFinite(mine) || !Number.isFinite(baseline) || mine <= 0) return '-';
  const r = baseline / mine;
  return r >= 1 ? `${r >= 10 ? r.toFixed(0) : r.toFixed(1)}x faster` : `${(1 / r).toFixed(1)}x slower`;
}

/** `1000` → `1,000`. */
export function thousands(n: number): string {
  return n.toLocaleString('en-US');
}

/** Render rows as a table with a header and right-aligned numeric columns. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], leftColumns = 1): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i < leftColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}
