/**
 * Runs every `*.test.js` next to this file, each in its own node process,
 * one more at once than there are cores, the longest first, and ends with
 * `N passed, N failed`.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
/**
 * About the seconds each slower file takes in a whole run on 2 cores (a name
 * ending in `-` stands for every file it begins; the longest match counts).
 * Files start longest first (longest-processing-time-first): the long ones
 * overlap each other and the short ones fill in after them, so that the
 * workers finish together instead of one long file running alone at the end.
 * A file not listed counts as UNLISTED_S. The figures only order the run: a
 * stale one costs some seconds of the tail, never a result.
 */
const WEIGHTS: Record<string, number> = {
  'power-loss': 45,
  'apply-crash': 33,
  'plan-kill': 29,
  'bad-input': 26,
  'batch-stream': 20,
  'rebase-crash': 17,
  submodules: 16,
  'remote-pull': 16,
  'apply-disk-processes': 16,
  'agent-init': 15,
  'git-interop': 15,
  'approval-signatures': 15,
  'remote-kill': 14,
  'metadata-secrets': 14,
  'git-fidelity': 14,
  'approval-openpgp': 14,
  'cli-history': 13,
  'approval-trust': 12,
  'cli-handoff': 12,
  'remote-review': 12,
  gitattributes: 11,
  'agent-hooks': 11,
  'agent-hook-fail-closed': 11,
  'cli-diff': 11,
  'exec-worktree': 11,
  'apply-merge': 10,
  'cli-paths': 10,
  'path-gate-remote': 9,
  'cli-bytes': 9,
  'api-reference': 9,
  'apply-recovery': 9,
  'codex-patch-git': 9,
  'page-browser': 8,
  watch: 8,
  'agent-init-edges': 8,
  'diff-renames': 8,
  'kill-sweep': 8,
  'import-rules': 8,
  'remote-push-fetch': 7,
  'session-cli': 6,
  'object-db-read': 6,
  'commit-secrets-cli': 5,
  'server-timeouts': 5,
  'plan-cli': 5,
  'exec-cli': 5,
  'apply-reflog': 5,
  'worktree-manifest': 5,
  'session-http': 5,
  'object-db-write': 5,
  'mcp-': 4,
  'cli-': 4,
  'linked-worktrees': 4,
  concurrency: 4,
  'apply-disk-commit': 4,
  'api-examples': 4,
};
const UNLISTED_S = 3;
const weight = (f: string): number => {
  const name = f.replace(/\.test\.js$/, '');
  let best: [number, number] = [-1, UNLISTED_S];
  for (const [k, w] of Object.entries(WEIGHTS)) {
    const hit = k.endsWith('-') ? name.startsWith(k) : name === k;
    if (hit && k.length > best[0]) best = [k.length, w];
  }
  return best[1];
};
const files = readdirSync(here)
  .filter((f) => f.endsWith('.test.js'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort((a, b) => weight(b) - weight(a) || (a < b ? -1 : 1));
/**
 * How many files run at once: one more than the cores (the slow files spend much of their time waiting on the child
 * processes they drive), or SHADOW_TEST_WORKERS, to measure another count.
 */
const WORKERS = Number(process.env.SHADOW_TEST_WORKERS) || availableParallelism() + 1;
const FILE_TIMEOUT_MS = 170_000;
const CI = process.env.CI === 'true';
/** Room a RAM file system needs to hold the run's temporary repositories. */
const RAM_TMP_MIN_BYTES = 2 * 1024 ** 3;

/**
 * The test files' TMPDIR: a directory of its own on /dev/shm when the
 * machine has that RAM file system with room and no TMPDIR was chosen,
 * otherwise undefined (the inherited one). Every test makes its repositories
 * under TMPDIR, and shadow fsyncs what it publishes: on a disk those syncs
 * (which no test can observe) and the removals after each test are most of
 * a file's time. What the tests check of durability is simulated
 * (test/helpers/crash-fs.ts), not the disk's.
 */
function ramTmpdir(): string | undefined {
  if (process.env.TMPDIR !== undefined) return undefined;
  try {
    const st = statfsSync('/dev/shm');
    if (st.bavail * st.bsize < RAM_TMP_MIN_BYTES) return undefined;
    return mkdtempSync('/dev/shm/sh-');
  } catch {
    return undefined;
  }
}
const tmp = ramTmpdir();
/**
 * The test processes run in UTC, the zone every repository a test makes gives
 * git and shadow (helpers/disk-repo.ts): a CLI call runs in the test's own
 * process (helpers/cli-thread.ts) only when its zone is the process's.
 */
const childEnv = { ...process.env, FORCE_COLOR: '0', TZ: 'UTC', ...(tmp === undefined ? {} : { TMPDIR: tmp }) };

interface Outcome {
  file: string;
  passed: number;
  failed: number;
  output: string;
  ms: number;
}

/**
 * Why a file that ran no test fails, or undefined when it passes: it must
 * say why it ran none (a line `SKIP <why>`), and under CI=true no file may
 * skip at all (a browser test without Chromium).
 */
function emptyRun(output: string): string | undefined {
  const skipped = output.split('\n').some((l) => l.startsWith('SKIP '));
  if (!skipped) return 'ran no test and said no SKIP';
  return CI ? 'ran no test: a SKIP fails the run under CI=true' : undefined;
}

function runFile(file: string): Promise<Outcome> {
  const start = Date.now();
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(here, file)], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n${file}: killed after ${FILE_TIMEOUT_MS / 1000}s\n`;
      child.kill('SIGKILL');
    }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      const num = (label: string): number => {
        const m = new RegExp(`${label}:\\s+(\\d+)`).exec(output);
        return m ? Number(m[1]) : 0;
      };
      const passed = num('Passed');
      // A skipped test counts as failed: a skip must never hide a failure.
      let failed = Math.max(num('Total') - passed, num('Skipped'));
      if (code !== 0 && failed === 0) failed = 1;
      const empty = failed === 0 && num('Total') === 0 ? emptyRun(output) : undefined;
      if (empty !== undefined) {
        failed = 1;
        output += `\n${file}: ${empty}\n`;
      }
      done({ file, passed, failed, output, ms: Date.now() - start });
    });
  });
}

const queue = [...files];
const outcomes: Outcome[] = [];
async function worker(): Promise<void> {
  for (let file = queue.shift(); file; file = queue.shift()) {
    const o = await runFile(file);
    outcomes.push(o);
    const mark = o.failed > 0 ? 'FAIL' : 'ok  ';
    process.stdout.write(
      `${mark} ${o.file.padEnd(34)} ${String(o.passed).padStart(4)} passed ${String(o.failed).padStart(3)} failed  ${(o.ms / 1000).toFixed(1)}s\n`,
    );
    if (o.failed > 0) process.stdout.write(`${o.output}\n`);
    // Figures a test reports of itself (the crash states a power-loss test checked, how many of a home tool's own
    // cases hold), and why a file ran none (no Chromium).
    else {
      for (const line of o.output.split('\n')) {
        const owner = /[a-z][\w-]*(?: [\w-]+)?: \d+ of \d+ owner cases hold.*$/.exec(line);
        if (line.startsWith('crash states: ') || line.startsWith('SKIP ')) process.stdout.write(`     ${line}\n`);
        else if (owner) process.stdout.write(`     ${owner[0]}\n`);
      }
    }
  }
}
const started = Date.now();
if (tmp !== undefined) process.stdout.write(`TMPDIR ${tmp} (RAM)\n`);
await Promise.all(Array.from({ length: WORKERS }, worker));
if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
const passed = outcomes.reduce((n, o) => n + o.passed, 0);
const failed = outcomes.reduce((n, o) => n + o.failed, 0);
process.stdout.write(
  `\n${files.length} files in ${((Date.now() - started) / 1000).toFixed(1)}s on ${WORKERS} workers ` +
    `(their times add up to ${(outcomes.reduce((n, o) => n + o.ms, 0) / 1000).toFixed(1)}s)\n${passed} passed, ${failed} failed\n`,
);
process.exitCode = failed > 0 ? 1 : 0;
