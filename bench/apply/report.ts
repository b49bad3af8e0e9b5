/** bench/apply's report: a table per k, the targets judged, and the CPU profiles' summaries. */
import { count, median, ms, p90, ratio, table, thousands } from '../helpers/stats.js';
import { verdict, type Check, type Verdict } from '../helpers/targets.js';
import { DRY_RUN_BUDGET_MS, FLOOR_FACTOR, LABELS, ROWS, type Options, type Row } from './options.js';
import { find, med, profiles } from './results.js';
import type { KInfo } from './run-k.js';

export function printTable(k: number, info: KInfo): void {
  const dirCount = info.dirs;
  const rows: string[][] = [];
  for (const row of ROWS) {
    const r = find(row, k);
    if (!r) continue;
    const m = median(r.times);
    const versus = (b: Row): string => (b === row ? '-' : ratio(m, med(b, k)));
    rows.push([
      LABELS[row],
      String(r.times.length),
      ms(m),
      ms(p90(r.times)),
      row.startsWith('dry-run') ? '' : versus('floor'),
      row.startsWith('dry-run') ? '' : versus('checkout'),
      count(r.filesWritten),
      count(r.worktreeFiles),
      r.bytesWritten === undefined ? '-' : (r.bytesWritten / 1024).toFixed(0),
      count(r.fsyncs),
      count(r.worktreeFileFsyncs),
      count(r.worktreeDirFsyncs),
      count(r.gitFsyncs),
      count(r.objectsRead),
      count(r.fsCalls),
    ]);
  }
  if (rows.length === 0) return;
  console.log(
    `\nk = ${thousands(k)} changed file${k === 1 ? '' : 's'} (in ${thousands(dirCount)} director${dirCount === 1 ? 'y' : 'ies'}); ` +
      `fsync of a new 4 KB file just before: median ${ms(info.probe.median)} ms, p90 ${ms(info.probe.p90)} ms`,
  );
  console.log(
    table(
      [
        'case',
        'runs',
        'median ms',
        'p90 ms',
        'vs floor',
        'vs checkout',
        'files written',
        'in wt',
        'KB written',
        'fsyncs',
        'wt files',
        'wt dirs',
        '.git',
        'obj read',
        'fs calls',
      ],
      rows,
    ),
  );
  const a = med('apply', k);
  const parts: string[] = [];
  if (Number.isFinite(a) && Number.isFinite(med('floor', k)))
    parts.push(`${(a / med('floor', k)).toFixed(2)}x the floor's time`);
  if (Number.isFinite(a) && Number.isFinite(med('checkout', k)))
    parts.push(`${ratio(a, med('checkout', k))} than git checkout`);
  if (parts.length > 0) console.log(`  shadow apply: ${parts.join(', ')}`);
}

export function verdicts(o: Options): Verdict[] {
  const out: Verdict[] = [];
  const both = (a: number, b: number): boolean => Number.isFinite(a) && Number.isFinite(b);
  const add = (target: string, checks: Check[], missing: string): void => {
    out.push(verdict(target, checks, missing));
  };
  const at = o.n === 50000 ? '' : ` (at N=${thousands(o.n)}, not the target's 50,000)`;
  add(
    `apply within ${FLOOR_FACTOR}x of the floor (node fs, write+fsync, dirs fsynced) at every k${at}`,
    o.ks
      .filter((k) => both(med('apply', k), med('floor', k)))
      .map((k) => {
        const x = med('apply', k) / med('floor', k);
        return {
          ok: x <= FLOOR_FACTOR,
          text: `k=${k}: ${x.toFixed(2)}x (${ms(med('apply', k))} vs ${ms(med('floor', k))} ms)`,
        };
      }),
    'needs shadow and floor',
  );
  add(
    `apply faster than git checkout <draft> -- <paths> at every k${at}`,
    o.ks
      .filter((k) => both(med('apply', k), med('checkout', k)))
      .map((k) => {
        const x = med('checkout', k) / med('apply', k);
        return { ok: x > 1, text: `k=${k}: ${x.toFixed(2)}x (${ms(med('apply', k))} vs ${ms(med('checkout', k))} ms)` };
      }),
    'needs shadow and checkout',
  );
  // Judged on the fresh handle: what a `shadow apply --dry-run` process pays
  // once the draft's state was reviewed (by `shadow review`, an earlier dry
  // run, in any process). The first review of a state is printed beside it.
  const d = med('dry-run-cold', 1000);
  const warmD = med('dry-run', 1000);
  const firstD = med('dry-run-first', 1000);
  add(
    `apply --dry-run at k=1,000 under ${DRY_RUN_BUDGET_MS} ms, on a fresh handle${at}`,
    Number.isFinite(d)
      ? [
          {
            ok: d < DRY_RUN_BUDGET_MS,
            text: `${ms(d)} ms (p90 ${ms(p90(find('dry-run-cold', 1000)!.times))} ms; ${ms(warmD)} ms on the warm handle; the first review of the state, with no cache: ${ms(firstD)} ms)`,
          },
        ]
      : [],
    'needs k=1000 with shadow',
  );
  return out;
}

export function printProfiles(): void {
  for (const p of profiles) {
    const { total, samples, functions } = p.summary;
    console.log(`\n=== CPU profile of the ${p.runs} measured ${p.what} calls at k=${thousands(p.k)}: ${p.file}`);
    console.log(
      `${ms(total)} ms sampled in ${thousands(samples)} samples (${ms(total / Math.max(1, p.runs))} ms per call); by inclusive time:`,
    );
    // The benchmark's own frames (the case runner above sh.apply, the counting wrappers below it) are left out of the list.
    const own = functions.filter((f) => f.where.startsWith('bench/'));
    const rows = functions
      .filter((f) => !f.where.startsWith('bench/'))
      .slice(0, 30)
      .map((f) => [
        f.name,
        f.where || '(native)',
        ms(f.inclusive / p.runs),
        `${((100 * f.inclusive) / total).toFixed(1)}%`,
        ms(f.self / p.runs),
      ]);
    console.log(table(['function', 'where', 'incl. ms/call', 'incl. %', 'self ms/call'], rows, 2));
    console.log(`the counting wrappers' own time: ${ms(own.reduce((s, f) => s + f.self, 0) / p.runs)} ms per call`);
  }
}
