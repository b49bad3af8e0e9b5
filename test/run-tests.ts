/**
 * Runs every `*.test.js` next to this file, each in its own node process,
 * one more at once than there are cores, and ends with `N passed, N failed`.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
/**
 * The files that take longest (child processes, kill sweeps) start first, so
 * that no long one is left running alone at the end: longest first, as a
 * whole run on 2 cores timed them (prefixes: `cli-` is every CLI file).
 */
const SLOW_FIRST = [
  'power-loss',
  'rebase-crash',
  'codex-patch-git',
  'plan-kill',
  'apply-crash',
  'bad-input',
  'remote-kill',
  'apply-disk-processes',
  'metadata-secrets',
  'path-gate-remote',
  'watch',
  'batch-stream',
  'remote-pull',
  'git-interop',
  'remote-review',
  'page-browser',
  'submodules',
  'remote-push-fetch',
  'kill-sweep',
  'approval-signatures',
  'approval-openpgp',
  'agent-init',
  'git-fidelity',
  'cli-handoff',
  'gitattributes',
  'session-cli',
  'approval-trust',
  'apply-merge',
  'plan-cli',
  'exec-worktree',
  'server-timeouts',
  'apply-disk',
  'cli-',
  'mcp',
  'worktree',
  'object-db',
  'session-http',
  'lint',
];
const rank = (f: string): number => {
  const i = SLOW_FIRST.findIndex((s) => f.startsWith(s));
  return i === -1 ? SLOW_FIRST.length : i;
};
const files = readdirSync(here)
  .filter((f) => f.endsWith('.test.js'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
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
const childEnv = { ...process.env, FORCE_COLOR: '0', ...(tmp === undefined ? {} : { TMPDIR: tmp }) };

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
// One more than the cores: the slow files spend much of their time waiting on the child processes they drive.
await Promise.all(Array.from({ length: availableParallelism() + 1 }, worker));
if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
const passed = outcomes.reduce((n, o) => n + o.passed, 0);
const failed = outcomes.reduce((n, o) => n + o.failed, 0);
process.stdout.write(
  `\n${files.length} files in ${((Date.now() - started) / 1000).toFixed(1)}s\n${passed} passed, ${failed} failed\n`,
);
process.exitCode = failed > 0 ? 1 : 0;
