import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

/*
 * The runner (run-tests.ts) on files of its own making, beside a copy of
 * it: a file that ran no test passes only when it said why (SKIP), and
 * under CI=true not even then; a skipped or failed test fails the run; the
 * files' TMPDIR is a directory of the run's own on /dev/shm when that RAM
 * file system has room and no TMPDIR was given.
 */

const RUNNER = join(dirname(fileURLToPath(import.meta.url)), 'run-tests.js');
const GROUP_HOST = join(dirname(RUNNER), 'helpers', 'file-group.js');

/** A directory with a copy of the runner and of the host it runs a group of short files in. */
function runnerDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  copyFileSync(RUNNER, join(dir, 'run-tests.js'));
  mkdirSync(join(dir, 'helpers'));
  copyFileSync(GROUP_HOST, join(dir, 'helpers', 'file-group.js'));
  return dir;
}

/** uvu's summary for a file of `total` tests, `passed` of them passing. */
const summary = (total: number, passed: number, skipped = 0): string =>
  `  Total:     ${total}\\n  Passed:    ${passed}\\n  Skipped:   ${skipped}\\n  Duration:  1ms\\n`;

const FILES: Record<string, string> = {
  'passes.test.js': `process.stdout.write('${summary(2, 2)}');`,
  'empty.test.js': `process.stdout.write('${summary(0, 0)}');`,
  'says-skip.test.js': `process.stdout.write('SKIP nothing to drive here\\n${summary(0, 0)}');`,
  'skipped.test.js': `process.stdout.write('${summary(2, 1, 1)}');`,
  // Writes the TMPDIR it was given (or '-') to the file TMPDIR_OUT names.
  'tmpdir.test.js': `const fs = require('node:fs'); if (process.env.TMPDIR_OUT) fs.writeFileSync(process.env.TMPDIR_OUT, process.env.TMPDIR ?? '-'); process.stdout.write('${summary(1, 1)}');`,
};

const R = suite<{ dir: string }>('the test runner');
R.before((c) => {
  c.dir = runnerDir('shadow-runner-');
  for (const [name, text] of Object.entries(FILES)) writeFileSync(join(c.dir, name), text);
});
R.after((c) => rmSync(c.dir, { recursive: true, force: true }));

/** The runner's line for each file, and its last line, with `extra` as its whole environment beside PATH. */
function run(
  dir: string,
  only: string[],
  extra: Record<string, string>,
): { status: number | null; lines: Record<string, string>; last: string; out: string } {
  const r = spawnSync(process.execPath, [join(dir, 'run-tests.js'), ...only], {
    env: { PATH: process.env.PATH ?? '', ...extra },
    encoding: 'utf8',
  });
  const lines: Record<string, string> = {};
  for (const m of r.stdout.matchAll(/^(ok  |FAIL) (\S+\.test\.js) +(\d+) passed +(\d+) failed/gm))
    lines[m[2]!] = `${m[1]!.trim()} ${m[3]}/${m[4]}`;
  return { status: r.status, lines, last: r.stdout.trim().split('\n').at(-1)!, out: r.stdout };
}

R('without CI: a file that ran no test passes only when it said SKIP; a skipped test fails', ({ dir }) => {
  const r = run(dir, [], {});
  assert.equal(
    r.lines,
    {
      'passes.test.js': 'ok 2/0',
      'empty.test.js': 'FAIL 0/1',
      'says-skip.test.js': 'ok 0/0',
      'skipped.test.js': 'FAIL 1/1',
      'tmpdir.test.js': 'ok 1/0',
    },
    r.out,
  );
  assert.match(r.out, /empty\.test\.js: ran no test and said no SKIP/);
  assert.match(r.out, /^ {5}SKIP nothing to drive here$/m);
  assert.is(r.last, '4 passed, 2 failed');
  assert.is(r.status, 1);
});

R('under CI=true a file that says SKIP fails the run, and says so', ({ dir }) => {
  const r = run(dir, ['passes', 'says-skip'], { CI: 'true' });
  assert.equal(r.lines, { 'passes.test.js': 'ok 2/0', 'says-skip.test.js': 'FAIL 0/1' }, r.out);
  assert.match(r.out, /says-skip\.test\.js: ran no test: a SKIP fails the run under CI=true/);
  assert.is(r.last, '2 passed, 1 failed');
  assert.is(r.status, 1);
  const clean = run(dir, ['passes'], { CI: 'true' });
  assert.equal([clean.status, clean.last], [0, '2 passed, 0 failed']);
});

/** Whether /dev/shm is there with the room the runner asks of it (2 GiB free). */
function ramHasRoom(): boolean {
  try {
    const st = statfsSync('/dev/shm');
    return st.bavail * st.bsize >= 2 * 1024 ** 3;
  } catch {
    return false;
  }
}

R(
  'the files run with TMPDIR on /dev/shm (a directory of the run, removed after it) unless a TMPDIR was given',
  ({ dir }) => {
    const out = join(dir, 'tmpdir-seen');
    const r = run(dir, ['tmpdir'], { TMPDIR_OUT: out });
    assert.equal([r.status, r.last], [0, '1 passed, 0 failed'], r.out);
    const seen = readFileSync(out, 'utf8');
    if (ramHasRoom()) {
      assert.match(seen, /^\/dev\/shm\/sh-\w+$/);
      assert.match(r.out, new RegExp(`^TMPDIR ${seen} \\(RAM\\)$`, 'm'));
      assert.not.ok(existsSync(seen), 'removed when the run ends');
    } else {
      assert.is(seen, '-', 'no RAM file system with room: the inherited (unset) TMPDIR');
    }
    const given = run(dir, ['tmpdir'], { TMPDIR_OUT: out, TMPDIR: dir });
    assert.is(given.status, 0, given.out);
    assert.is(readFileSync(out, 'utf8'), dir, 'a TMPDIR given is kept');
    assert.not.match(given.out, /\(RAM\)/);
  },
);

R('files start longest first, by the weights the runner holds; SHADOW_TEST_WORKERS sets how many run at once', () => {
  // Named as slow files of the suite are: one worker runs them one after the other, so the order of their lines is
  // the order they started.
  const dir = runnerDir('shadow-runner-order-');
  try {
    const names = ['a-quick', 'plan-kill', 'power-loss', 'submodules', 'watch', 'zz-quick'];
    for (const n of names) writeFileSync(join(dir, `${n}.test.js`), `process.stdout.write('${summary(1, 1)}');`);
    const r = run(dir, [], { SHADOW_TEST_WORKERS: '1' });
    assert.equal([r.status, r.last], [0, '6 passed, 0 failed'], r.out);
    const order = [...r.out.matchAll(/^ok {3}(\S+)\.test\.js/gm)].map((m) => m[1]);
    // The two short ones run in one process, of their weights together (6): before submodules (5).
    assert.equal(order, ['power-loss', 'plan-kill', 'watch', 'a-quick', 'zz-quick', 'submodules']);
    assert.match(r.out, /^6 files \(5 processes\) in [\d.]+s on 1 workers \(their times add up to [\d.]+s\)$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

R(
  'short files run several to a process, each counted for itself; one that ends the process fails it and every file after it',
  () => {
    const dir = runnerDir('shadow-runner-group-');
    try {
      const files: Record<string, string> = {
        'g1-passes.test.js': `process.stdout.write('${summary(3, 3)}');`,
        'g2-fails.test.js': `process.stdout.write('${summary(2, 1)}');`,
        'g3-exits.test.js': `process.stdout.write('${summary(1, 1)}'); process.exit(0);`,
        'g4-after.test.js': `process.stdout.write('${summary(1, 1)}');`,
      };
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
      const r = run(dir, [], {});
      assert.match(r.out, /^4 files \(1 processes\) in /m, r.out);
      assert.equal(
        r.lines,
        {
          'g1-passes.test.js': 'ok 3/0',
          'g2-fails.test.js': 'FAIL 1/1',
          'g3-exits.test.js': 'FAIL 1/1',
          'g4-after.test.js': 'FAIL 0/1',
        },
        r.out,
      );
      assert.match(r.out, /g3-exits\.test\.js: the group's process ended \(exit 0\) in it/);
      assert.match(r.out, /g4-after\.test\.js: not run: the group's process ended \(exit 0\) before it/);
      assert.equal([r.status, r.last], [1, '5 passed, 3 failed']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

R.run();
