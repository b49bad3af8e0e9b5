/**
 * Runs every `*.test.js` next to this file: each slow one in a node process
 * of its own, the short ones several to a process (helpers/file-group.ts),
 * one more process at once than there are cores, the longest first; a line
 * for each file, and at the end `N passed, N failed`.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
/**
 * About the seconds each slower file takes in a whole run on 2 cores.
 * Files start longest first (longest-processing-time-first): the long ones
 * overlap each other and the short ones fill in after them, so that the
 * workers finish together instead of one long file running alone at the end.
 * A file not listed counts as UNLISTED_S and runs in a group of short files
 * (GROUP_SIZE to a process). The figures only order and group the run: a
 * stale one costs some seconds, never a result.
 */
const WEIGHTS: Record<string, number> = {
  'power-loss': 36,
  'apply-crash': 24,
  'plan-kill': 20,
  'remote-kill': 16,
  'rebase-crash': 15,
  'page-browser': 13,
  'apply-disk-processes': 13,
  watch: 13,
  'batch-stream': 12,
  'server-timeouts': 11,
  'kill-sweep': 10,
  'readme-guide': 9,
  gitattributes: 9,
  'api-reference': 8,
  'exec-worktree': 8,
  'apply-interactive-pty': 8,
  'cli-handoff': 8,
  'remote-push-fetch': 8,
  'git-fidelity': 8,
  'apply-recovery': 8,
  'import-rules': 8,
  concurrency: 7,
  'diff-renames': 7,
  'path-gate-remote': 7,
  revert: 6,
  'codex-patch-git': 6,
  'mcp-concurrency': 5,
  submodules: 5,
  'remote-pull': 5,
  'bad-input': 5,
  refs: 5,
  'exec-cli': 5,
  'apply-merge': 5,
  'page-hunks': 4,
  'cli-handoff-roles': 4,
  'approval-signatures': 4,
  'agent-hook-fail-closed': 4,
  'cli-thread': 4,
  'path-gate-fuzz': 4,
  'mcp-editor-reference': 4,
  'unapply-corpus': 4,
  'session-cli': 4,
  'cli-bytes': 4,
  'apply-disk-commit': 4,
  'serve-instances': 4,
  'worktree-manifest': 4,
  'git-interop': 4,
  'agent-hooks': 4,
  'mcp-options': 4,
  gitignore: 4,
  'approval-openpgp': 4,
  'runtime-deps': 4,
  'plan-run': 4,
  'plan-cli': 4,
  'api-examples': 4,
  'agent-init': 4,
};
const UNLISTED_S = 3;
const stem = (f: string): string => f.replace(/\.test\.js$/, '');
const weight = (f: string): number => WEIGHTS[stem(f)] ?? UNLISTED_S;
const files = readdirSync(here)
  .filter((f) => f.endsWith('.test.js'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort((a, b) => weight(b) - weight(a) || (a < b ? -1 : 1));
/**
 * Files that need a process of their own even when short: they change what
 * a process has (its environment, working directory, signal handlers, exit)
 * or look at it (what it loaded).
 */
const SOLO = new Set([
  'agent-hook-fail-closed',
  'cli-handoff',
  'cli-handoff-roles',
  'exec-cli',
  'exec-worktree',
  'object-db-read',
  'page-open',
  'start-up-cli',
]);
/** Short files run this many to a process (helpers/file-group.ts): a node start and the library's load, about 0.3 s of CPU, is paid once a group. */
const GROUP_SIZE = 6;
const grouped = files.filter((f) => weight(f) <= UNLISTED_S && !SOLO.has(stem(f)));
/** What runs in one process: a file, or a group of short ones; the heaviest first. */
const jobs: string[][] = [
  ...files.filter((f) => !grouped.includes(f)).map((f) => [f]),
  ...Array.from({ length: Math.ceil(grouped.length / GROUP_SIZE) }, (_, i) =>
    grouped.slice(i * GROUP_SIZE, (i + 1) * GROUP_SIZE),
  ),
].sort((a, b) => b.reduce((n, f) => n + weight(f), 0) - a.reduce((n, f) => n + weight(f), 0));
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

/** One file's outcome from what it printed: uvu's counts, or a failure that says why it has none. */
function outcomeOf(file: string, output: string, ms: number, ended: boolean): Outcome {
  const num = (label: string): number => {
    const m = new RegExp(`${label}:\\s+(\\d+)`).exec(output);
    return m ? Number(m[1]) : 0;
  };
  const passed = num('Passed');
  // A skipped test counts as failed: a skip must never hide a failure.
  let failed = Math.max(num('Total') - passed, num('Skipped'));
  if (!ended && failed === 0) failed = 1;
  const empty = failed === 0 && num('Total') === 0 ? emptyRun(output) : undefined;
  if (empty !== undefined) {
    failed = 1;
    output += `\n${file}: ${empty}\n`;
  }
  return { file, passed, failed, output, ms };
}

/**
 * Split a group's output into its files' (helpers/file-group.ts frames each
 * one); a file the process never finished fails, with what was printed.
 */
function groupOutcomes(job: string[], output: string, code: number | null, ms: number): Outcome[] {
  const outcomes = job.map((file) => {
    const start = output.indexOf(`<<< ${file}\n`);
    if (start < 0)
      return outcomeOf(file, `${file}: not run: the group's process ended (exit ${code}) before it\n`, 0, false);
    const body = output.slice(start + file.length + 5);
    const end = new RegExp(`^>>> ${file.replace(/\./g, '\\.')} (\\d+)$`, 'm').exec(body);
    if (end === null)
      return outcomeOf(file, `${body}\n${file}: the group's process ended (exit ${code}) in it\n`, ms, false);
    return outcomeOf(file, body.slice(0, end.index), Number(end[1]), true);
  });
  // Every file ended and passed, yet the process failed (an error after the last test): its last file fails.
  const last = outcomes[outcomes.length - 1]!;
  if (code !== 0 && outcomes.every((o) => o.failed === 0)) {
    last.failed = 1;
    last.output += `\n${output.slice(output.lastIndexOf('>>> '))}\nthe group's process failed (exit ${code}) after its last file\n`;
  }
  return outcomes;
}

function runJob(job: string[]): Promise<Outcome[]> {
  const start = Date.now();
  const args =
    job.length === 1
      ? [join(here, job[0]!)]
      : [join(here, 'helpers', 'file-group.js'), ...job.map((f) => join(here, f))];
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n${job.join(', ')}: killed after ${FILE_TIMEOUT_MS / 1000}s\n`;
      child.kill('SIGKILL');
    }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      const ms = Date.now() - start;
      done(job.length === 1 ? [outcomeOf(job[0]!, output, ms, code === 0)] : groupOutcomes(job, output, code, ms));
    });
  });
}

const queue = [...jobs];
const outcomes: Outcome[] = [];
async function worker(): Promise<void> {
  for (let job = queue.shift(); job; job = queue.shift()) {
    for (const o of await runJob(job)) {
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
}
const started = Date.now();
if (tmp !== undefined) process.stdout.write(`TMPDIR ${tmp} (RAM)\n`);
await Promise.all(Array.from({ length: WORKERS }, worker));
if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
const passed = outcomes.reduce((n, o) => n + o.passed, 0);
const failed = outcomes.reduce((n, o) => n + o.failed, 0);
process.stdout.write(
  `\n${files.length} files (${jobs.length} processes) in ${((Date.now() - started) / 1000).toFixed(1)}s on ${WORKERS} workers ` +
    `(their times add up to ${(outcomes.reduce((n, o) => n + o.ms, 0) / 1000).toFixed(1)}s)\n${passed} passed, ${failed} failed\n`,
);
process.exitCode = failed > 0 ? 1 : 0;
