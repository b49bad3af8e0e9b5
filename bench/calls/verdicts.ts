/** bench/calls' targets: each figure a ratio to its baseline measured in the same run. */
import { median, ms } from '../helpers/stats.js';
import { verdict, type Verdict } from '../helpers/targets.js';
import { med, type Timed } from './processes.js';
import { p99, type Concurrent, type measureServerMode } from './server-mode.js';
import type { Phases } from './phases.js';

export function callVerdicts(
  results: Record<string, Timed[]>,
  mode: Awaited<ReturnType<typeof measureServerMode>>,
  phases: readonly Phases[] = [],
): Verdict[] {
  const seqP50 = med({ label: '', times: mode.sequential });
  const c = mode.concurrent.find((x) => x.client === 'http')!;
  const byFetch = mode.concurrent.find((x) => x.client === 'fetch');
  const lost = (x: Concurrent): number => x.failed + (x.rates.length * x.batches - x.inHistory);
  const r = (title: string, i: number, j = 0): number => med(results[title]![i]!) / med(results[title]![j]!);
  const check = (label: string, value: number, limit: number): { ok: boolean; text: string } => ({
    ok: value <= limit,
    text: `${label} ${value.toFixed(2)}x`,
  });
  // Not a target: what the target leaves beyond node's own start (its allowance less `node -e 0`), beside what a
  // process of shadow's own spends there, timed inside it (phases.ts): loading and running the bundle's top level,
  // then the command.
  const beyondStart = (label: string, leaves: number): { ok: true; text: string } | undefined => {
    const p = phases.find((x) => x.label === label);
    if (p?.load === undefined || p.init === undefined || p.run === undefined) return undefined;
    return {
      ok: true,
      text: `(beyond node's start the target leaves ${ms(leaves)} ms; in the process shadow's load and top level take ${ms(p.load + p.init)}, the command ${ms(p.run)})`,
    };
  };
  const stat = results['diff --stat, 100 changed files']!;
  const statAllowed = med(stat[3]!) + 2 * med(stat[0]!);
  const ageRow = (name: string): number => {
    const rows = results.age!;
    const f = rows.find((t) => t.label === `${name} on fresh`)!;
    const a = rows.find((t) => t.label === `${name} on aged`)!;
    return med(a) / med(f);
  };
  return [
    verdict(
      'shadow --version ≤ 1.2x node -e 0',
      [check('node shadow.cjs', r('start', 1), 1.2), check('the launcher', r('start', 2), 1.2)],
      '',
    ),
    verdict(
      'one-shot batch k=1 ≤ 1.3x the write-only floor',
      [check('by the caller', r('batch, k=1', 1), 1.3), check('handed off', r('batch, k=1', 2), 1.3)],
      '',
    ),
    verdict(
      'one-shot batch k=10 ≤ 2x the write-only floor by the caller, ≤ 1.3x handed off',
      [
        check('by the caller', r('batch, k=10', 1), 2),
        check('handed off', r('batch, k=10', 2), 1.3),
        // Not targets: a hand-off with no work on either side, the least a handed-off call costs, and
        // the same with a batch's five flushes, the least a handed-off batch costs with the crash protocol kept.
        {
          ok: true,
          text: `(a bare hand-off alone ${r('batch, k=10', 3).toFixed(2)}x, with the five flushes ${r('batch, k=10', 4).toFixed(2)}x)`,
        },
        ...[beyondStart('shadow batch k=10', 2 * med(results['batch, k=10']![0]!) - med(results.start![0]!))].filter(
          (x) => x !== undefined,
        ),
      ],
      '',
    ),
    verdict(
      'shadow diff (100 files) ≤ 2x git diff',
      [
        check('by the caller', r('diff, 100 changed files', 1), 2),
        check('handed off', r('diff, 100 changed files', 2), 2),
      ],
      '',
    ),
    verdict(
      'shadow status ≤ git status',
      [check('by the caller', r('status', 1), 1), check('handed off', r('status', 2), 1)],
      '',
    ),
    verdict(
      'shadow status by the caller ≤ node -e 0 + 2x git status',
      [check('shadow status', med(results.status![1]!) / (med(results.status![3]!) + 2 * med(results.status![0]!)), 1)],
      '',
    ),
    verdict(
      'shadow diff --stat by the caller ≤ node -e 0 + 2x git diff --stat',
      [
        check('shadow diff --stat', med(stat[1]!) / statAllowed, 1),
        ...[beyondStart('shadow diff --stat', 2 * med(stat[0]!))].filter((x) => x !== undefined),
      ],
      '',
    ),
    verdict(
      'shadow apply (100 files) ≤ 3x git checkout -- <paths>',
      [check('by the caller', r('apply, 100 files', 1), 3), check('handed off', r('apply, 100 files', 2), 3)],
      '',
    ),
    verdict(
      'aged draft within 1.1x of a fresh one',
      ['shadow batch k=1', 'shadow status', 'shadow diff --stat'].map((n) => check(n, ageRow(n), 1.1)),
      '',
    ),
    verdict(
      'server mode: k=1 batch p50 ≤ 3 ms, p99 ≤ 12 ms',
      [
        { ok: seqP50 <= 3, text: `p50 ${ms(seqP50)} ms` },
        { ok: p99(mode.sequential) <= 12, text: `p99 ${ms(p99(mode.sequential))} ms` },
        // Not a target: the same five flushes with no other work, the least a served batch costs.
        {
          ok: true,
          text: `(a bare durable server p50 ${ms(med({ label: '', times: mode.floor }))} ms, p99 ${ms(p99(mode.floor))} ms)`,
        },
      ],
      '',
    ),
    verdict(
      'server mode: 16 clients on one draft ≥ 500 batches/s, none lost',
      [
        { ok: median(c.rates) >= 500, text: `${median(c.rates).toFixed(0)}/s by the load generator` },
        { ok: lost(c) === 0, text: `${c.inHistory} of ${c.rates.length * c.batches} in history` },
        // Not the target's figure: an agent runtime's usual client, whose CPU the server shares here.
        ...(byFetch
          ? [
              {
                ok: lost(byFetch) === 0,
                text: `${byFetch.inHistory} of ${byFetch.rates.length * byFetch.batches} by fetch`,
              },
              {
                ok: true,
                text: `(by fetch ${median(byFetch.rates).toFixed(0)}/s, its clients taking ${ms(byFetch.clientCpu)} ms of CPU a batch)`,
              },
            ]
          : []),
      ],
      '',
    ),
  ];
}
