/**
 * Where a command run by the caller spends its time, inside its own
 * process: a probe preloaded with `--require` marks when node's own start
 * ends (the probe runs), when the CLI bundle is compiled (`vm.Script`:
 * shadow.cjs ran, found no server to hand the command to, read the bundle
 * and its code cache), when the bundle's top level has run, and when the
 * command's `run` settles; the process's exit is the last mark. Each mark
 * is `performance.now()`, from the process's own start.
 *
 * A target below `node` + `load` + `init` cannot be met by any command that
 * loads shadow's code in a process of its own, however little it does.
 */
import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { ms, table } from '../helpers/stats.js';

const MARK = 'calls-phases: ';

const PROBE = `'use strict';
const { performance } = require('node:perf_hooks');
const vm = require('node:vm');
const marks = { node: performance.now() };
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(source, options) { super(source, options); marks.compiled = performance.now(); }
  runInThisContext(...a) {
    const fn = super.runInThisContext(...a);
    return function (exports, req, module, ...rest) {
      fn.call(this, exports, req, module, ...rest);
      marks.initialised = performance.now();
      const cli = module.exports;
      const run = (...b) => cli.run(...b).finally(() => { marks.ran = performance.now(); });
      module.exports = new Proxy(cli, { get: (t, k) => (k === 'run' ? run : t[k]) });
    };
  }
};
process.on('exit', () => { marks.exit = performance.now(); process._rawDebug(${JSON.stringify(MARK)} + JSON.stringify(marks)); });
`;

export interface PhaseCase {
  label: string;
  cmd: string;
  args: string[];
  env?: Record<string, string>;
  /** Written to the command's standard input, made anew for each run. */
  input?: () => string;
}

/** Medians, in ms from the process's start: each phase's own length. */
export interface Phases {
  label: string;
  node: number;
  load?: number;
  init?: number;
  run?: number;
  after: number;
  total: number;
}

interface Marks {
  node: number;
  compiled?: number;
  initialised?: number;
  ran?: number;
  exit: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** Run each case `runs` times, interleaved, with the probe preloaded; the medians of each phase. */
export function measurePhases(
  cases: readonly PhaseCase[],
  runs: number,
  options: { cwd: string; env: Record<string, string>; scratch: string },
): Phases[] {
  const probe = join(options.scratch, 'phases-probe.cjs');
  nodeFs.writeFileSync(probe, PROBE);
  const seen = cases.map(() => [] as Marks[]);
  for (let r = 0; r < runs; r++) {
    cases.forEach((c, i) => {
      const env = { ...options.env, ...c.env };
      env.NODE_OPTIONS = [env.NODE_OPTIONS, `--require=${probe}`].filter(Boolean).join(' ');
      const p = spawnSync(c.cmd, c.args, { cwd: options.cwd, env, input: c.input?.(), encoding: 'utf8' });
      if (p.status !== 0) throw new Error(`${c.label} failed (${p.status}): ${String(p.stderr).slice(0, 2000)}`);
      const line = String(p.stderr)
        .split('\n')
        .find((l) => l.startsWith(MARK));
      if (!line) throw new Error(`${c.label}: the phase probe said nothing`);
      seen[i]!.push(JSON.parse(line.slice(MARK.length)) as Marks);
    });
  }
  return cases.map((c, i) => {
    const all = seen[i]!;
    const part = (from: (m: Marks) => number | undefined, to: (m: Marks) => number | undefined): number | undefined => {
      const xs = all.flatMap((m) => {
        const a = from(m);
        const b = to(m);
        return a === undefined || b === undefined ? [] : [b - a];
      });
      return xs.length === all.length ? median(xs) : undefined;
    };
    const lastMark = (m: Marks): number => m.ran ?? m.initialised ?? m.compiled ?? m.node;
    return {
      label: c.label,
      node: median(all.map((m) => m.node)),
      load: part(
        (m) => m.node,
        (m) => m.compiled,
      ),
      init: part(
        (m) => m.compiled,
        (m) => m.initialised,
      ),
      run: part(
        (m) => m.initialised,
        (m) => m.ran,
      ),
      after: median(all.map((m) => m.exit - lastMark(m))),
      total: median(all.map((m) => m.exit)),
    };
  });
}

export function printPhases(rows: readonly Phases[], runs: number): void {
  const cell = (v: number | undefined): string => (v === undefined ? '' : ms(v));
  console.log(
    `\nwhere a process's time goes, inside it (medians of ${runs} runs, ms from its start; node: until a preloaded probe runs; load: until the CLI bundle is compiled; init: its top level; run: the command; after: until exit):`,
  );
  console.log(
    table(
      ['process', 'node', 'load', 'init', 'run', 'after', 'total'],
      rows.map((p) => [p.label, ms(p.node), cell(p.load), cell(p.init), cell(p.run), ms(p.after), ms(p.total)]),
    ),
  );
}
