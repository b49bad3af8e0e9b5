/**
 * bench/batch-memory.bench.ts: the peak memory of one large accepted batch,
 * `shadow batch <file> --json` as an agent runs it, in a child process on a
 * repository on disk. The batch is OPS writes of KB kilobytes of text each
 * (lines of pseudo-random words, so that deflate works as on source code).
 *
 * Per run: the child's peak resident memory (`/usr/bin/time -f %M`), its
 * growth over the peak of a one-operation batch in the same repository (what
 * node and shadow cost before any content), and that growth as a multiple of
 * the content.
 *
 * Target: growth under 2x the content (1.9x measured). A document this
 * large is parsed as it is read (src/drafts/batch/batch-stream.ts): one operation at a
 * time, each write's content taken out as its bytes as soon as it is
 * parsed, so the contents are held once, as the blobs' bytes, from the
 * start; the pack is streamed to disk as it is deflated. The rest of the
 * peak is garbage the collector frees when it chooses: the short-lived
 * strings of the parse, the deflated pieces of the pack. (Parsed whole, the
 * document's bytes, its text, JSON.parse's copy of every string and the
 * blobs made it 3.9x.) Exits 1 when missed.
 *
 *   node dist/bench/batch-memory.bench.js [--runs 3] [--ops 5000] [--kb 20]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gitEnv, run } from './helpers/repo.js';
import { prng } from './helpers/workload.js';
import { median, table } from './helpers/stats.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : dflt;
};
const RUNS = Math.max(1, opt('--runs', 3));
const OPS = opt('--ops', 5000);
const KB = opt('--kb', 20);
const MB = 1024 * 1024;
const SHADOW = fileURLToPath(new URL('../bin/shadow.cjs', import.meta.url));
const TIME = '/usr/bin/time';
/** The most the peak may grow, as a multiple of the content. */
const TARGET = 2;

const WORDS = [
  'const',
  'return',
  'function',
  'value',
  'export',
  'import',
  'index',
  'length',
  'string',
  'await',
  'result',
  'if',
  'else',
  '{',
  '}',
  '(',
  ')',
  '=>',
  'x',
  'y',
];

function text(seed: number, bytes: number): string {
  const rand = prng(seed);
  let s = '';
  while (s.length < bytes) {
    let line = '  ';
    for (let w = 0; w < 8; w++) line += `${WORDS[Math.floor(rand() * WORDS.length)]}${Math.floor(rand() * 1000)} `;
    s += `${line}\n`;
  }
  return s.slice(0, bytes);
}

function batchFile(dir: string, name: string, ops: number, kb: number): { path: string; content: number } {
  const operations = Array.from({ length: ops }, (_, i) => ({
    operation: 'write',
    path: `gen/d${i % 50}/f${i}.ts`,
    content: text(i + 1, kb * 1024),
  }));
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ intent: 'generated', operations }));
  return { path, content: ops * kb * 1024 };
}

/** Peak RSS in bytes of one `shadow batch` run. */
function peakOf(repo: string, env: Record<string, string>, file: string, draft: string): number {
  const r = spawnSync(TIME, ['-f', '%M', process.execPath, SHADOW, 'batch', file, '--json', '--draft', draft], {
    cwd: repo,
    env,
    encoding: 'utf8',
    maxBuffer: 256 * MB,
  });
  if (r.status !== 0)
    throw new Error(`shadow batch failed (${r.status}): ${r.stdout.slice(0, 500)}${r.stderr.slice(-500)}`);
  const doc = JSON.parse(r.stdout) as { success: boolean };
  if (!doc.success) throw new Error(`the batch was refused: ${r.stdout.slice(0, 500)}`);
  return Number(r.stderr.trim().split('\n').pop()) * 1024;
}

if (!existsSync(TIME)) {
  console.log(`${TIME} is not here: nothing measured`);
  process.exit(0);
}
const root = mkdtempSync(join(tmpdir(), 'shadow-batch-mem-'));
try {
  const home = join(root, 'home');
  const repo = join(root, 'repo');
  const env = gitEnv(home, {
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'b@x',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'b@x',
  });
  run('git', ['init', '-q', repo], { env });
  writeFileSync(join(repo, 'README.md'), '# bench\n');
  run('git', ['add', '.'], { cwd: repo, env });
  run('git', ['commit', '-qm', 'init'], { cwd: repo, env });
  const small = batchFile(root, 'small.json', 1, 1);
  const big = batchFile(root, 'big.json', OPS, KB);
  const rows: string[][] = [];
  const ratios: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const floor = peakOf(repo, env, small.path, `small-${i}`);
    const peak = peakOf(repo, env, big.path, `big-${i}`);
    const growth = peak - floor;
    ratios.push(growth / big.content);
    rows.push([
      String(i + 1),
      (big.content / MB).toFixed(1),
      (floor / MB).toFixed(1),
      (peak / MB).toFixed(1),
      (growth / MB).toFixed(1),
      `${(growth / big.content).toFixed(2)}x`,
    ]);
  }
  console.log(`one batch of ${OPS} writes of ${KB} KiB, \`shadow batch <file> --json\`\n`);
  console.log(table(['run', 'content MiB', '1-op peak MiB', 'peak MiB', 'growth MiB', 'growth/content'], rows));
  const m = median(ratios);
  const pass = m < TARGET;
  console.log(`\ntarget: growth under ${TARGET}x the content (median): ${m.toFixed(2)}x ${pass ? 'PASS' : 'FAIL'}`);
  process.exitCode = pass ? 0 : 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
