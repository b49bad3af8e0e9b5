/** bench/calls' tables: each timed case against the group's first (its baseline), and the strace counts. */
import type { ProcessFacts } from '../helpers/process-facts.js';
import { count, ms, table } from '../helpers/stats.js';
import { hi, med, type Timed } from './processes.js';

/** A table of timed cases: median, p90, the ratio of each to the first (the baseline), and how each started (start-path.ts). */
export function printGroup(
  title: string,
  timed: readonly Timed[],
  start: ReadonlyMap<string, string> = new Map(),
): void {
  const base = med(timed[0]!);
  console.log(`\n${title}`);
  console.log(
    table(
      ['process', 'median ms', 'p90 ms', 'ratio', 'start'],
      timed.map((t) => [t.label, ms(med(t)), ms(hi(t)), `${(med(t) / base).toFixed(2)}x`, start.get(t.label) ?? '']),
    ),
  );
}

export function printFacts(rows: Array<[string, ProcessFacts]>): void {
  if (rows.length === 0) return;
  console.log(
    "\none run of each under strace (bytes read: by read calls, which git's mapped index and packs do not make; node's modules: built-in modules a node process loaded):",
  );
  console.log(
    table(
      ['process', 'files read', 'files written', 'fsyncs', 'stats', 'bytes read', "node's modules"],
      rows.map(([l, f]) => [
        l,
        count(f.filesRead),
        count(f.filesWritten),
        count(f.fsyncs),
        count(f.stats),
        bytes(f.bytesRead),
        f.nodeModules === undefined ? '' : count(f.nodeModules),
      ]),
    ),
  );
}

function bytes(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)} KB`;
  return `${n} B`;
}
