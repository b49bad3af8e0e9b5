/**
 * bench/blame.bench.ts: `shadow blame` of a 5,000-line file that 200
 * batches edited (each batch rewrites 25 lines at random, half by an AI,
 * half by a person), against native `git blame --porcelain` of the same
 * commit in the same run — shadow runs git's blame and reads each draft
 * commit's trailers, so the target is its overhead: at most 3x git's time.
 * Then, the draft published with `apply --commit` (one Agent Trace note per
 * commit), `shadow blame --published` of the branch, and of a squash merge
 * made with git alone (attributed by the notes' content hashes).
 *
 *   node dist/bench/blame.bench.js [--runs 5] [--lines 5000] [--batches 200]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openShadow } from '../src/index.js';
import { positiveInt, readFlags } from './helpers/flags.js';
import { gitEnv, run } from './helpers/repo.js';
import { median, ms, ratio, table } from './helpers/stats.js';
import { printVerdicts, verdict } from './helpers/targets.js';
import { prng } from './helpers/workload.js';

const HELP = `usage: node dist/bench/blame.bench.js [options]
  --runs n      measured runs per case after a warm-up (default 5)
  --lines n     lines of the file (default 5000)
  --batches n   batches that edit it (default 200)
`;
const TARGET_RATIO = 3;
let runs = 5;
let lineCount = 5_000;
let batches = 200;
readFlags(process.argv.slice(2), HELP, {
  '--runs': (v) => (runs = positiveInt(v(), '--runs')),
  '--lines': (v) => (lineCount = positiveInt(v(), '--lines')),
  '--batches': (v) => (batches = positiveInt(v(), '--batches')),
});

const started = performance.now();
const root = mkdtempSync(join(tmpdir(), 'shadow-blame-bench-'));
const home = join(root, 'home');
const dir = join(root, 'repo');
run('mkdir', ['-p', home, dir]);
const env = gitEnv(home);
const git = (...args: string[]): string => run('git', args, { cwd: dir, env });
const PATH = 'src/big.ts';

try {
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Bench');
  git('config', 'user.email', 'bench@example.com');
  const rand = prng(28);
  let lines = Array.from({ length: lineCount }, (_, i) => `export const v${i} = ${Math.floor(rand() * 1e9)};`);
  run('mkdir', ['-p', join(dir, 'src')]);
  writeFileSync(join(dir, PATH), `${lines.join('\n')}\n`);
  git('add', '-A');
  git('commit', '-qm', 'the file');

  const sh = await openShadow({ dir, env });
  const t0 = performance.now();
  for (let b = 1; b <= batches; b++) {
    lines = lines.slice();
    for (let k = 0; k < 25; k++) {
      const i = Math.floor(rand() * lines.length);
      lines[i] = `export const v${i} = ${Math.floor(rand() * 1e9)}; // batch ${b}`;
    }
    const who = b % 2 === 0 ? { actor: 'claude', model: 'anthropic/claude-x' } : { actor: 'ana', actorType: 'human' };
    const r = await sh.batch(
      { intent: `batch ${b}`, operations: [{ operation: 'write', path: PATH, content: `${lines.join('\n')}\n` }] },
      who,
    );
    if (!r.success) throw new Error(`batch ${b} failed`);
  }
  console.log(
    `blame of one ${lineCount}-line file after ${batches} batches (built in ${ms(performance.now() - t0)} ms); ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; ${runs} runs per case`,
  );
  const tip = git('rev-parse', 'refs/shadow/drafts/default').trim();

  const time = (f: () => unknown): number => {
    f(); // warm-up
    const xs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      f();
      xs.push(performance.now() - t);
    }
    return median(xs);
  };
  const gitBlame = (rev: string): void => {
    const r = spawnSync('git', ['blame', '--porcelain', rev, '--', PATH], {
      cwd: dir,
      env,
      maxBuffer: 256 * 1024 * 1024,
    });
    if (r.status !== 0) throw new Error(String(r.stderr));
  };
  const timeAsync = async (f: () => Promise<unknown>): Promise<number> => {
    await f();
    const xs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      await f();
      xs.push(performance.now() - t);
    }
    return median(xs);
  };

  const gitMs = time(() => gitBlame(tip));
  const shadowMs = await timeAsync(() => sh.blame(PATH));
  const applied = await sh.apply({ commit: true });
  const notes = applied.notes?.written.length ?? 0;
  const gitHeadMs = time(() => gitBlame('HEAD'));
  const publishedMs = await timeAsync(() => sh.blamePublished(PATH));
  git('switch', '-q', '-c', 'squashed', 'HEAD~' + String(batches));
  git('merge', '-q', '--squash', 'main');
  git('commit', '-qm', 'squash merge by git');
  const gitSquashMs = time(() => gitBlame('HEAD'));
  const squashMs = await timeAsync(() => sh.blamePublished(PATH));
  const ai = (await sh.blamePublished(PATH)).lines.filter((l) => l.contributor?.type === 'ai').length;
  sh.close();

  console.log(
    table(
      ['case', 'shadow ms', 'git blame ms', 'ratio'],
      [
        ['blame of the draft', ms(shadowMs), ms(gitMs), ratio(shadowMs, gitMs)],
        [`blame --published (${notes} notes)`, ms(publishedMs), ms(gitHeadMs), ratio(publishedMs, gitHeadMs)],
        [
          `blame --published of a git squash merge (${ai} AI lines)`,
          ms(squashMs),
          ms(gitSquashMs),
          ratio(squashMs, gitSquashMs),
        ],
      ],
    ),
  );
  printVerdicts(
    [
      verdict(
        `shadow blame within ${TARGET_RATIO}x of git blame`,
        [{ ok: shadowMs <= TARGET_RATIO * gitMs, text: `${ratio(shadowMs, gitMs)}` }],
        '',
      ),
    ],
    started,
  );
  process.exitCode = shadowMs <= TARGET_RATIO * gitMs ? 0 : 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
