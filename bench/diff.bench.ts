/**
 * bench/diff.bench.ts: the unified diff every review, apply and `shadow
 * diff` computes per changed file (src/git/unified-diff.ts), on files of
 * 1,000 to 20,000 lines changed in the shapes agents change them:
 *
 *   tenth      every tenth line edited
 *   rewrite    every line replaced (a file written again from scratch)
 *   moved      the file's 40-line blocks in another order, a few edited
 *   lockfile   a package-lock-like file (most lines repeat: `},`, `"dev": true,`)
 *              with every version and hash changed
 *
 * against two baselines in the same run: jsdiff's structuredPatch alone
 * (what shadow used before, Myers' O((N+M)·D) diff; given up after 10 s),
 * and native `git diff --no-index` (a process, so its time includes about
 * 2 ms of start-up). Prints per case the median time and, as the
 * machine-independent facts, the lines each one marks removed and added
 * (equal counts: shadow found jsdiff's minimal diff; more: the patience
 * diff shadow falls back to past its budget).
 *
 *   node dist/bench/diff.bench.js [--runs 5] [--sizes 1000,5000,20000]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { structuredPatch } from 'diff';
import { fileDiff } from '../src/git/format/unified-diff.js';
import { positiveInt, positiveInts, readFlags } from './helpers/flags.js';
import { median, ms, ratio, table, thousands } from './helpers/stats.js';
import { prng } from './helpers/workload.js';

const HELP = `usage: node dist/bench/diff.bench.js [options]
  --runs n           measured runs per case after a warm-up (default 5; jsdiff alone runs once where it takes over a second)
  --sizes a,b        file sizes in lines (default 1000,5000,20000)
`;
const JSDIFF_GIVES_UP_MS = 10_000;
/** What a review may spend diffing one file: the bench says whether every case stayed under it. */
const ONE_FILE_BUDGET_MS = 100;

let runs = 5;
let sizes = [1_000, 5_000, 20_000];
readFlags(process.argv.slice(2), HELP, {
  '--runs': (v) => (runs = positiveInt(v(), '--runs')),
  '--sizes': (v) => (sizes = positiveInts(v(), '--sizes')),
});

// ---------------------------------------------------------------- inputs

type Shape = 'tenth' | 'rewrite' | 'moved' | 'lockfile';
const SHAPES: Shape[] = ['tenth', 'rewrite', 'moved', 'lockfile'];

function sourceLines(n: number, seed: number): string[] {
  const r = prng(seed);
  const words = ['const', 'value', 'return', 'item', 'state', 'result', 'await', 'draft', 'batch', 'path'];
  return Array.from({ length: n }, (_, i) => {
    if (i % 12 === 11) return '}';
    if (i % 12 === 0) return '';
    return `  ${words[Math.floor(r() * words.length)]} ${words[Math.floor(r() * words.length)]}_${i} = ${Math.floor(r() * 1e6)};`;
  });
}

function lockLines(n: number, version: number): string[] {
  const out: string[] = [];
  for (let p = 0; out.length < n; p++) {
    out.push(`    "node_modules/pkg-${p}": {`, `      "version": "${version}.${p % 7}.${p % 13}",`);
    out.push(`      "resolved": "https://registry.example/pkg-${p}/-/pkg-${p}-${version}.${p % 7}.tgz",`);
    out.push(
      `      "integrity": "sha512-${Buffer.from(`${p}:${version}`).toString('base64')}",`,
      '      "dev": true,',
      '      "license": "MIT"',
      '    },',
    );
  }
  return out.slice(0, n);
}

function input(shape: Shape, n: number): { a: string; b: string } {
  const text = (lines: string[]): string => `${lines.join('\n')}\n`;
  switch (shape) {
    case 'tenth': {
      const a = sourceLines(n, 1);
      return { a: text(a), b: text(a.map((l, i) => (i % 10 === 5 ? `${l} // edited` : l))) };
    }
    case 'rewrite':
      return { a: text(sourceLines(n, 1)), b: text(sourceLines(n, 2)) };
    case 'moved': {
      const a = sourceLines(n, 1);
      const blocks: string[][] = [];
      for (let i = 0; i < a.length; i += 40) blocks.push(a.slice(i, i + 40));
      const r = prng(3);
      for (let i = blocks.length - 1; i > 0; i--) {
        const j = Math.floor(r() * (i + 1));
        [blocks[i], blocks[j]] = [blocks[j]!, blocks[i]!];
      }
      const b = blocks.flat().map((l, i) => (i % 97 === 0 ? `${l} // moved` : l));
      return { a: text(a), b: text(b) };
    }
    case 'lockfile':
      return { a: text(lockLines(n, 1)), b: text(lockLines(n, 2)) };
  }
}

// ---------------------------------------------------------------- systems

interface Outcome {
  ms: number[];
  removed: number;
  added: number;
  gaveUp?: boolean;
}

function countLines(lines: Iterable<string>): { removed: number; added: number } {
  let removed = 0;
  let added = 0;
  for (const l of lines) {
    if (l.startsWith('+') && !l.startsWith('+++')) added++;
    else if (l.startsWith('-') && !l.startsWith('---')) removed++;
  }
  return { removed, added };
}

function timeShadow(a: string, b: string): Outcome {
  const entry = (c: string) => ({ mode: '100644', oid: c.repeat(40) });
  const once = () =>
    fileDiff({
      path: 'f.txt',
      old: entry('1'),
      new: entry('2'),
      oldContent: Buffer.from(a),
      newContent: Buffer.from(b),
    });
  once();
  const times: number[] = [];
  let last = once();
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    last = once();
    times.push(performance.now() - t);
  }
  return { ms: times, removed: last.deletions, added: last.insertions };
}

function timeJsdiff(a: string, b: string): Outcome {
  const times: number[] = [];
  let counts = { removed: NaN, added: NaN };
  for (let i = 0; i < runs + 1; i++) {
    const t = performance.now();
    const p = structuredPatch('a', 'b', a, b, undefined, undefined, { context: 3, timeout: JSDIFF_GIVES_UP_MS });
    const took = performance.now() - t;
    if (!p) return { ms: [took], removed: NaN, added: NaN, gaveUp: true };
    counts = countLines(p.hunks.flatMap((h) => h.lines));
    if (i > 0 || took > 1000) times.push(took);
    if (took > 1000) break;
  }
  return { ms: times, ...counts };
}

function timeGit(dir: string, a: string, b: string): Outcome {
  writeFileSync(join(dir, 'a.txt'), a);
  writeFileSync(join(dir, 'b.txt'), b);
  const times: number[] = [];
  let out = '';
  for (let i = 0; i < runs + 1; i++) {
    const t = performance.now();
    const r = spawnSync('git', ['diff', '--no-index', '--no-color', 'a.txt', 'b.txt'], {
      cwd: dir,
      maxBuffer: 1 << 30,
      encoding: 'utf8',
    });
    const took = performance.now() - t;
    if (r.status !== 1) throw new Error(`git diff --no-index exited ${r.status}: ${r.stderr}`);
    if (i > 0) times.push(took);
    out = r.stdout;
  }
  return { ms: times, ...countLines(out.split('\n')) };
}

// ---------------------------------------------------------------- run

console.log(
  `diff of one file; ${cpus().length} cores, load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}; ${runs} runs per case`,
);
const scratch = mkdtempSync(join(tmpdir(), 'shadow-diff-bench-'));
const rows: string[][] = [];
let worst = 0;
let worstCase = '';
try {
  for (const n of sizes) {
    for (const shape of SHAPES) {
      const { a, b } = input(shape, n);
      const mine = timeShadow(a, b);
      const jsdiff = timeJsdiff(a, b);
      const git = timeGit(scratch, a, b);
      const m = median(mine.ms);
      if (m > worst) [worst, worstCase] = [m, `${shape}, ${thousands(n)} lines`];
      const jm = jsdiff.gaveUp ? Infinity : median(jsdiff.ms);
      const lines = (o: Outcome): string => (o.gaveUp ? 'gave up' : `-${thousands(o.removed)} +${thousands(o.added)}`);
      rows.push([
        `${shape}, ${thousands(n)} lines`,
        ms(m),
        jsdiff.gaveUp ? `> ${thousands(JSDIFF_GIVES_UP_MS)}` : ms(jm),
        ms(median(git.ms)),
        jsdiff.gaveUp ? `> ${Math.floor(JSDIFF_GIVES_UP_MS / m)}x faster` : ratio(m, jm),
        ratio(m, median(git.ms)),
        lines(mine),
        lines(jsdiff),
        lines(git),
      ]);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
console.log(
  table(
    ['case', 'shadow ms', 'jsdiff ms', 'git ms', 'vs jsdiff', 'vs git', 'shadow lines', 'jsdiff lines', 'git lines'],
    rows,
  ),
);
console.log(
  '(median ms; git diff --no-index is a whole process. Lines: removed and added; shadow equal to jsdiff means the same minimal diff)',
);
console.log(
  `\n${worst <= ONE_FILE_BUDGET_MS ? 'PASS' : 'FAIL'}  every file diffed in under ${ONE_FILE_BUDGET_MS} ms: slowest ${ms(worst)} ms (${worstCase})`,
);
process.exit(worst <= ONE_FILE_BUDGET_MS ? 0 : 1);
