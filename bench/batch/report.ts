/** bench/batch's report: a table per N and k with the ratios against each baseline, and the targets judged. */
import type { CachedRepo } from '../helpers/repo.js';
import { count, median, ms, p90, ratio, table, thousands } from '../helpers/stats.js';
import { verdict, type Check, type Verdict } from '../helpers/targets.js';
import { BATCH_DIRS } from '../helpers/workload.js';
import { BASELINE_SHORT, BASELINES, LABELS, SYSTEMS, type Options } from './options.js';
import { find, fsyncMedians, med, SERIAL_FSYNCS } from './results.js';
import type { Startup } from './startup.js';

export function printTables(o: Options, repos: Map<number, { repo: CachedRepo; note: string }>): void {
  for (const n of o.sizes) {
    const info = repos.get(n);
    if (!info) continue;
    console.log(`\n=== N = ${thousands(n)} files: ${info.note}`);
    for (const k of o.ks) {
      const rows: string[][] = [];
      for (const system of SYSTEMS) {
        const r = find(system, n, k);
        if (!r) continue;
        const m = median(r.times);
        const ratios = BASELINES.map((b) => (b === system ? '-' : ratio(m, med(b, n, k))));
        rows.push([
          LABELS[system],
          String(r.times.length),
          ms(m),
          ms(p90(r.times)),
          ...ratios,
          count(r.objectsRead),
          count(r.objectsWritten),
          count(r.packs),
          count(r.fsyncs),
          count(r.filesWritten),
          count(r.fsCalls),
        ]);
      }
      if (rows.length === 0) continue;
      console.log(
        `\nk = ${k} file${k === 1 ? '' : 's'} per batch (half modified tracked files, half new files, in ${BATCH_DIRS} leaf directories at every N)`,
      );
      console.log(
        table(
          [
            'case',
            'runs',
            'median ms',
            'p90 ms',
            ...BASELINES.map((b) => BASELINE_SHORT[b]),
            'obj read',
            'obj written',
            'packs',
            'fsyncs',
            'files written',
            'fs calls',
          ],
          rows,
        ),
      );
      const sentences: string[] = [];
      for (const mine of ['shadow-disk', 'shadow-memfs'] as const) {
        const m = med(mine, n, k);
        if (!Number.isFinite(m)) continue;
        const parts = BASELINES.filter((b) => Number.isFinite(med(b, n, k))).map(
          (b) => `${ratio(m, med(b, n, k))} than ${b}`,
        );
        if (parts.length > 0) sentences.push(`${LABELS[mine]}: ${parts.join(', ')}`);
      }
      const cli = med('shadow-cli', n, k);
      if (Number.isFinite(cli) && Number.isFinite(med('plumbing', n, k)))
        sentences.push(`shadow batch as a process: ${ratio(cli, med('plumbing', n, k))} than plumbing as processes`);
      for (const s of sentences) console.log(`  ${s}`);
      for (const system of SYSTEMS) for (const note of find(system, n, k)?.notes ?? []) console.log(`  ${note}`);
    }
  }
}

export function verdicts(o: Options, startup: Startup | undefined): Verdict[] {
  const out: Verdict[] = [];
  const sd = (n: number, k: number): number => med('shadow-disk', n, k);
  const ks = (want: number[]): number[] => want.filter((k) => o.ks.includes(k));
  const add = (target: string, checks: Check[], missing: string): void => {
    out.push(verdict(target, checks, missing));
  };
  const both = (a: number, b: number): boolean => Number.isFinite(a) && Number.isFinite(b);

  for (const k of ks([1, 10])) {
    const checks = o.sizes
      .filter((n) => both(sd(n, k), med('fast-import', n, k)))
      .map((n) => {
        const x = med('fast-import', n, k) / sd(n, k);
        const f = fsyncMedians.get(n);
        const floor =
          f === undefined
            ? ''
            : `; 4x needs ${ms(med('fast-import', n, k) / 4)} ms, ${SERIAL_FSYNCS} serial fsyncs alone take ${ms(SERIAL_FSYNCS * f)}`;
        return {
          ok: x >= 4,
          text: `N=${thousands(n)}: ${x.toFixed(1)}x (${ms(sd(n, k))} vs ${ms(med('fast-import', n, k))} ms${floor})`,
        };
      });
    add(`k=${k}: at least 4x faster than (b) fast-import`, checks, 'needs shadow-disk and fast-import');
    const n = 50000;
    const c = both(sd(n, k), med('checkpoint', n, k))
      ? [
          {
            ok: med('checkpoint', n, k) / sd(n, k) >= 25,
            text: `${(med('checkpoint', n, k) / sd(n, k)).toFixed(1)}x (${ms(sd(n, k))} vs ${ms(med('checkpoint', n, k))} ms)`,
          },
        ]
      : [];
    add(
      `k=${k}: at least 25x faster than (c) add -A && commit at N=50,000`,
      c,
      'needs N=50,000 with shadow-disk and checkpoint',
    );
  }
  for (const k of ks([100])) {
    const checks = o.sizes
      .filter((n) => both(sd(n, k), med('fast-import', n, k)))
      .map((n) => {
        const x = med('fast-import', n, k) / sd(n, k);
        return {
          ok: x > 1,
          text: `N=${thousands(n)}: ${x.toFixed(2)}x (${ms(sd(n, k))} vs ${ms(med('fast-import', n, k))} ms)`,
        };
      });
    add(`k=${k}: faster than (b) fast-import`, checks, 'needs shadow-disk and fast-import');
  }
  for (const k of o.ks) {
    const a = sd(1000, k);
    const b = sd(50000, k);
    const ma = med('shadow-memfs', 1000, k);
    const mb = med('shadow-memfs', 50000, k);
    const memfs = both(ma, mb) ? `; memfs, for comparison: ${(mb / ma).toFixed(2)}x (${ms(mb)} vs ${ms(ma)} ms)` : '';
    const c = both(a, b)
      ? [
          {
            ok: b / a <= 1.25,
            text: `${(b / a).toFixed(2)}x (${ms(b)} ms at N=50,000 vs ${ms(a)} ms at N=1,000)${memfs}`,
          },
        ]
      : [];
    add(
      `k=${k}: flat in N, median at N=50,000 within 1.25x of N=1,000`,
      c,
      'needs N=1,000 and N=50,000 with shadow-disk',
    );
  }
  if (startup) {
    const nodeMs = median(startup.node);
    const versionMs = median(startup.version);
    add(
      'start-up: `shadow --version` within 2x of `node -e 0`',
      [
        {
          ok: versionMs <= 2 * nodeMs,
          text: `${(versionMs / nodeMs).toFixed(2)}x (${ms(versionMs)} vs ${ms(nodeMs)} ms)`,
        },
      ],
      '',
    );
  } else {
    add('start-up: `shadow --version` within 2x of `node -e 0`', [], 'not measured (--only)');
  }
  {
    const n = 50000;
    const a = med('shadow-cli', n, 10);
    const b = med('plumbing', n, 10);
    const c = both(a, b) ? [{ ok: a < b, text: `${(b / a).toFixed(2)}x (${ms(a)} vs ${ms(b)} ms)` }] : [];
    add(
      'one-shot `shadow batch` (k=10, N=50,000) faster than (a) plumbing, as whole processes',
      c,
      'needs N=50,000, k=10 with shadow-cli and plumbing',
    );
  }
  return out;
}
