import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { DiskRepo, type CliResult } from './helpers/disk-repo.js';
import { openShadow, type BatchResult, type FileOperation, type FileSystem } from '../src/index.js';
import { opsFingerprint } from '../src/drafts/batch/ops-fingerprint.js';

/**
 * shadow and native git on the same repository: git must read everything
 * shadow writes (fsck, log, reflog), survive git's own maintenance (gc,
 * pack-refs), and the two must respect each other's ref locks.
 */

const DRAFT = 'refs/shadow/drafts/default';

type Ctx = { repo: DiskRepo };

/** A file of many lines, so that git gc stores its next version as a delta. */
const BIG = Array.from({ length: 400 }, (_, i) => `line ${i}: ${'lorem ipsum '.repeat(4)}`).join('\n') + '\n';

function fresh(ctx: Ctx): void {
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n', 'old.txt': 'old\n', 'src/big.txt': BIG });
}

function ok(r: CliResult, what: string): any {
  assert.is(r.status, 0, `${what}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  return r.stdout.trimStart().startsWith('{') ? r.json() : r.stdout;
}

const ops = (...operations: unknown[]): string => JSON.stringify({ operations });

/** `git fsck --strict` with nothing to say: no error, no warning, no missing object. */
function fsckClean(repo: DiskRepo, gitArgs: string[] = []): void {
  const r = spawnSync('git', [...gitArgs, 'fsck', '--strict', '--no-progress', '--no-dangling'], {
    cwd: repo.dir,
    env: repo.env,
    encoding: 'utf8',
  });
  assert.is(r.status, 0, `git fsck --strict failed:\n${r.stdout}${r.stderr}`);
  // "notice: HEAD points to an unborn branch" is git's, about an empty repository.
  const said = `${r.stdout}${r.stderr}`
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('notice: HEAD points to an unborn branch'));
  assert.equal(said, [], 'git fsck --strict has nothing to report');
}

/** Trailers of every commit from `ref` down to (not including) `stop`, newest first. */
function history(
  repo: DiskRepo,
  range: string,
): Array<{ oid: string; subject: string; author: string; trailers: Record<string, string> }> {
  const out = repo.git('log', '--first-parent', '--format=%H%x1f%s%x1f%an%x1f%(trailers:only,unfold)%x1e', range);
  return out
    .split('\x1e')
    .map((rec) => rec.replace(/^\n/, ''))
    .filter((rec) => rec.length > 0)
    .map((rec) => {
      const [oid, subject, author, block] = rec.split('\x1f') as [string, string, string, string];
      const trailers: Record<string, string> = {};
      for (const line of block.split('\n')) {
        const m = /^(Shadow-[A-Za-z-]+): (.*)$/.exec(line);
        if (m) trailers[m[1]!] = m[2]!;
      }
      return { oid, subject, author, trailers };
    });
}

/** Loose ref files under `dir` (relative names). */
function looseRefs(dir: string, rel = ''): string[] {
  if (!nodeFs.existsSync(dir)) return [];
  return nodeFs.readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    const r = rel ? `${rel}/${name}` : name;
    return nodeFs.statSync(full).isDirectory() ? looseRefs(full, r) : [r];
  });
}

// ---------------------------------------------------------------- what git reads

const Reads = suite<Ctx>('git interop: fsck, log, reflog, diff');
Reads.before.each(fresh);
Reads.after.each((ctx) => ctx.repo.cleanup());

Reads(
  'git fsck --strict is clean; git log shows every batch with its trailers; the reflog shows rollbacks',
  ({ repo }) => {
    const head = repo.ref('HEAD')!;
    // The user has an uncommitted change when the agent first touches the file.
    repo.write('README.md', 'Hello from the user\n');
    const ops1: FileOperation[] = [
      { operation: 'edit', path: 'README.md', old_content: 'from the user', content: 'from the agent' },
      { operation: 'write', path: 'bin/run.sh', content: '#!/bin/sh\n', mode: '100755' },
    ];
    const b1 = ok(
      repo.shadow(['batch', '-', '--actor', 'agent-a', '--json'], {
        input: JSON.stringify({ intent: 'greet\n\nA body line.', operations: ops1 }),
      }),
      'batch 1',
    );
    const b2 = ok(repo.shadow(['rm', 'old.txt', '--json'], { env: { SHADOW_ACTOR: 'agent-b' } }), 'batch 2');
    ok(repo.shadow(['checkpoint', 'two', '-m', 'two batches in']), 'checkpoint');
    const b3 = ok(repo.shadow(['mv', 'src/big.txt', 'src/large.txt', '--json']), 'batch 3');
    ok(repo.shadow(['rollback', 'two']), 'rollback');
    const b4 = ok(repo.shadow(['write', 'notes.md', '--json'], { input: 'notes\n' }), 'batch 4');

    fsckClean(repo);

    const log = history(repo, `${head}..${DRAFT}`);
    assert.equal(
      log.map((c) => [c.oid, c.subject, c.author, c.trailers]),
      [
        // `shadow write` sends bytes: the fingerprint is of what is stored, however it was sent.
        [
          b4.commit,
          'write notes.md',
          'Test User',
          {
            'Shadow-Draft': 'default',
            'Shadow-Batch': '4',
            'Shadow-Actor': 'Test User',
            'Shadow-Actor-Type': 'human',
            'Shadow-Ops': opsFingerprint([{ operation: 'write', path: 'notes.md', content: 'notes\n' }]),
          },
        ],
        [
          b2.commit,
          'delete old.txt',
          'agent-b',
          {
            'Shadow-Draft': 'default',
            'Shadow-Batch': '2',
            'Shadow-Actor': 'agent-b',
            'Shadow-Actor-Type': 'human',
            'Shadow-Ops': opsFingerprint([{ operation: 'delete', path: 'old.txt' }]),
          },
        ],
        [
          b1.commit,
          'greet',
          'agent-a',
          {
            'Shadow-Draft': 'default',
            'Shadow-Batch': '1',
            'Shadow-Actor': 'agent-a',
            'Shadow-Actor-Type': 'human',
            'Shadow-Ops': opsFingerprint(ops1),
          },
        ],
        [
          log[3]!.oid,
          'capture working tree state of 1 path before batch 1',
          'Test User',
          { 'Shadow-Draft': 'default', 'Shadow-Capture': '1', 'Shadow-Actor-Type': 'human' },
        ],
      ],
    );
    assert.is(repo.git('rev-parse', `${log[3]!.oid}^`).trim(), head, 'the draft starts at HEAD');
    // The body and the op list survive in the message; git's trailer parser agrees with shadow's.
    const message = repo.git('log', '-1', '--format=%B', b1.commit);
    assert.match(
      message,
      /^greet\n\nA body line\.\n\nedit\tREADME\.md\nwrite\tbin\/run\.sh\n\nShadow-Draft: default\nShadow-Batch: 1\nShadow-Actor: agent-a\nShadow-Actor-Type: human\n/,
    );
    // git log -p shows the user's change and the agent's apart.
    assert.match(repo.git('show', '--format=', log[3]!.oid, '--', 'README.md'), /^-Hello\n\+Hello from the user$/m);
    assert.match(
      repo.git('show', '--format=', b1.commit, '--', 'README.md'),
      /^-Hello from the user\n\+Hello from the agent$/m,
    );
    assert.is(repo.git('ls-tree', b1.commit, 'bin/run.sh').split(' ')[0], '100755');
    // Batch 3 is off the draft now, but kept by an automatic checkpoint.
    assert.is(repo.git('rev-parse', 'refs/shadow/checkpoints/default/auto-1^{commit}').trim(), b3.commit);
    const tag = repo.git('cat-file', 'tag', 'refs/shadow/checkpoints/default/two');
    assert.match(
      tag,
      new RegExp(
        `^object ${b2.commit}\\ntype commit\\ntag two\\ntagger Test User <test@example.com> \\d+ [+-]\\d{4}\\n\\ntwo batches in\\n$`,
      ),
    );

    const reflog = repo.git('reflog', 'show', '--format=%H %gs', DRAFT).trim().split('\n');
    assert.equal(reflog, [
      `${b4.commit} shadow: batch 4: write notes.md`,
      `${b2.commit} shadow: rollback to checkpoint two`,
      `${b3.commit} shadow: batch 3: rename src/big.txt to src/large.txt`,
      `${b2.commit} shadow: batch 2: delete old.txt`,
      `${b1.commit} shadow: batch 1: greet`,
      `${head} shadow: draft new default from HEAD`,
    ]);
    assert.is(repo.git('rev-parse', `${DRAFT}@{1}`).trim(), b2.commit, 'git resolves reflog syntax on draft refs');

    // Nothing leaks into the user's view of the repository.
    assert.is(repo.git('tag', '--list'), '');
    assert.is(repo.git('branch', '--list', '--all', '--format=%(refname)'), 'refs/heads/main\n');
    assert.is(repo.git('status', '--porcelain'), ' M README.md\n');
    assert.is(repo.ref('HEAD'), head);
    assert.is(repo.read('README.md'), 'Hello from the user\n');
  },
);

Reads('git apply accepts shadow diff: the draft applies cleanly onto the working tree', ({ repo }) => {
  repo.write('README.md', 'Hello from the user\n');
  ok(
    repo.shadow(['batch', '-'], {
      input: ops(
        { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hi' },
        { operation: 'write', path: 'new/file.txt', content: 'new\n' },
        { operation: 'delete', path: 'old.txt' },
        { operation: 'edit', path: 'src/big.txt', old_content: 'line 200:', content: 'line two hundred:' },
      ),
    }),
    'batch',
  );
  const patch = ok(repo.shadow(['diff']), 'diff');
  repo.write('../draft.patch', patch);
  const r = repo.gitResult('apply', '--check', '-v', join(repo.root, 'draft.patch'));
  assert.is(r.status, 0, `git apply --check:\n${r.stderr}\n${patch}`);
  repo.git('apply', join(repo.root, 'draft.patch'));
  for (const path of ['README.md', 'new/file.txt', 'src/big.txt']) {
    assert.is(repo.read(path), repo.git('show', `${DRAFT}:${path}`), `${path} after git apply is the draft's`);
  }
  assert.is(repo.exists('old.txt'), false);
});

Reads.run();

// ---------------------------------------------------------------- gc, pack-refs

const Maintenance = suite<Ctx>('git interop: gc --prune=now and pack-refs --all');
Maintenance.before.each(fresh);
Maintenance.after.each((ctx) => ctx.repo.cleanup());

Maintenance('after git gc --prune=now and git pack-refs --all every command works and nothing is lost', ({ repo }) => {
  ok(
    repo.shadow(['batch', '-'], {
      input: ops({ operation: 'edit', path: 'src/big.txt', old_content: 'line 7:', content: 'line seven:' }),
    }),
    'batch 1',
  );
  ok(repo.shadow(['checkpoint', 'one']), 'checkpoint one');
  ok(
    repo.shadow(['batch', '-'], {
      input: ops({ operation: 'edit', path: 'src/big.txt', old_content: 'line 300:', content: 'line three hundred:' }),
    }),
    'batch 2',
  );
  ok(repo.shadow(['rollback', 'one']), 'rollback (auto-1 keeps batch 2)');
  ok(repo.shadow(['write', 'a.txt'], { input: 'a\n' }), 'batch 3');
  ok(repo.shadow(['undo']), 'undo batch 3 (auto-2 keeps it)');
  ok(repo.shadow(['write', 'side.txt', '--draft', 'side'], { input: 'side\n' }), 'draft side');
  ok(repo.shadow(['checkpoint', 'side-cp', '--draft', 'side']), 'checkpoint on side');

  const refsBefore = repo.git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/shadow');
  const reflogCommits = ['default', 'side'].flatMap((d) =>
    repo.git('reflog', 'show', '--format=%H', `refs/shadow/drafts/${d}`).trim().split('\n'),
  );
  const tip = repo.ref(DRAFT)!;
  const bigAtTip = repo.git('show', `${tip}:src/big.txt`);

  const gc = repo.gitResult('gc', '--prune=now', '--quiet');
  assert.is(gc.status, 0, gc.stderr);
  repo.git('pack-refs', '--all');
  assert.equal(looseRefs(join(repo.dir, '.git', 'refs', 'shadow')), [], 'every shadow ref is packed');
  assert.match(repo.git('count-objects', '-v'), /^count: 0$/m, 'every object is packed');
  assert.is(repo.git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/shadow'), refsBefore);
  for (const c of reflogCommits)
    assert.is(repo.gitResult('cat-file', '-e', `${c}^{commit}`).status, 0, `commit ${c} survived gc`);
  fsckClean(repo);

  // Reads, from packed refs and delta-compressed objects.
  assert.is(repo.shadow(['cat', 'src/big.txt']).stdout, bigAtTip);
  assert.match(ok(repo.shadow(['diff', '--name-status']), 'diff'), /^M\tsrc\/big\.txt\n$/);
  assert.match(
    ok(repo.shadow(['diff', 'one..auto-1']), 'diff of two checkpoints'),
    /^-line 300: .*\n\+line three hundred: /m,
  );
  assert.equal(
    ok(repo.shadow(['log', '--json']), 'log').batches.map((b: any) => b.batch),
    [1],
  );
  assert.equal(
    ok(repo.shadow(['checkpoints', '--json']), 'checkpoints')
      .checkpoints.map((c: any) => c.name)
      .sort(),
    ['auto-1', 'auto-2', 'one'],
  );
  assert.equal(
    ok(repo.shadow(['draft', 'list', '--json']), 'draft list').drafts.map((d: any) => [d.name, d.tip]),
    [
      ['default', tip],
      ['side', repo.ref('refs/shadow/drafts/side')],
    ],
  );
  assert.is(ok(repo.shadow(['status', '--json']), 'status').tip, tip);
  assert.equal(
    ok(repo.shadow(['ls', 'src', '--json']), 'ls').entries.map((e: any) => [e.name, e.source]),
    [['big.txt', 'draft']],
  );

  // Writes: compare-and-swap against a packed ref, new checkpoints, moves, undo, drop.
  const b4 = ok(repo.shadow(['write', 'after-gc.txt', '--json'], { input: 'x\n' }), 'batch after gc');
  assert.is(b4.batch, 4);
  assert.is(repo.git('rev-parse', `${b4.commit}^`).trim(), tip);
  assert.is(repo.ref(DRAFT), b4.commit);
  ok(repo.shadow(['checkpoint', 'after']), 'checkpoint after gc');
  const back = ok(repo.shadow(['rollback', 'auto-2', '--json']), 'rollback to a packed checkpoint');
  assert.is(back.to, repo.git('rev-parse', 'refs/shadow/checkpoints/default/auto-2^{commit}').trim());
  assert.is(ok(repo.shadow(['undo', '--json']), 'undo after gc').to, b4.commit);
  const sideTip = repo.ref('refs/shadow/drafts/side');
  const dropped = ok(repo.shadow(['draft', 'drop', 'side', '--json']), 'drop a packed draft');
  assert.is(repo.ref('refs/shadow/drafts/side'), undefined);
  assert.is(repo.ref('refs/shadow/checkpoints/side/side-cp'), undefined);
  assert.is(repo.ref(dropped.archive), sideTip);
  assert.is(repo.git('show', `${dropped.archive}:side.txt`), 'side\n');
  assert.not.match(repo.git('for-each-ref', '--format=%(refname)'), /refs\/shadow\/(drafts|checkpoints)\/side/);
  fsckClean(repo);

  // And git gc once more: still nothing lost.
  repo.git('gc', '--prune=now', '--quiet');
  for (const c of [...reflogCommits, b4.commit])
    assert.is(repo.gitResult('cat-file', '-e', `${c}^{commit}`).status, 0, `commit ${c} survived the second gc`);
  assert.is(repo.shadow(['cat', 'after-gc.txt']).stdout, 'x\n');
  fsckClean(repo);
});

Maintenance(
  'a draft moved back by git update-ref while draft.json lags: batch numbers are not given again',
  ({ repo }) => {
    const file = join(repo.dir, '.git/shadow/drafts/default/draft.json');
    const tips: string[] = [];
    let first = '';
    for (const n of ['a', 'b', 'c']) {
      tips.push(ok(repo.shadow(['write', `${n}.txt`, '--json'], { input: `${n}\n` }), `batch ${n}`).commit as string);
      if (n === 'a') first = nodeFs.readFileSync(file, 'utf8');
    }
    // draft.json as a server that keeps it lagging leaves it: naming batch 1, not the two after.
    nodeFs.writeFileSync(file, first);
    assert.is(JSON.parse(first).bases_tip, tips[0]);
    repo.git('update-ref', '-m', 'back by hand', DRAFT, tips[0]!);
    const next = ok(repo.shadow(['write', 'd.txt', '--json'], { input: 'd\n' }), 'batch after the move');
    assert.is(next.batch, 4, 'batches 2 and 3 still count, from the reflog');
    assert.equal(
      history(repo, `${tips[0]}..${DRAFT}`).map((h) => h.trailers['Shadow-Batch']),
      ['4'],
    );
    fsckClean(repo);
  },
);

Maintenance('git gc on a repository with checkpoints reports no errors', ({ repo }) => {
  ok(repo.shadow(['write', 'a.txt'], { input: 'a\n' }), 'batch');
  ok(repo.shadow(['checkpoint', 'c1']), 'checkpoint');
  const batchCommit = repo.ref('refs/shadow/drafts/default')!;
  ok(repo.shadow(['rollback', 'HEAD']), 'rollback (c1 already keeps the tip it leaves)');
  const gc = repo.gitResult('gc', '--prune=now', '--quiet');
  assert.is(gc.status, 0);
  assert.is(gc.stderr, '', "git gc must not complain about shadow's refs or reflogs");
  const expire = repo.gitResult('reflog', 'expire', '--all', '--expire=now');
  assert.is(expire.stderr, '', 'git reflog expire must not complain either');
  assert.is(repo.git('rev-parse', 'refs/shadow/checkpoints/default/c1^{commit}').trim(), batchCommit);
  assert.is(repo.git('cat-file', '-t', batchCommit).trim(), 'commit', 'the batch survived gc --prune=now');
});

Maintenance.run();

// ---------------------------------------------------------------- locks

/** A native `git update-ref --stdin` transaction holding the lock on `ref` until released. */
async function gitHoldsLock(
  repo: DiskRepo,
  ref: string,
): Promise<{ child: ChildProcessWithoutNullStreams; release(): Promise<{ status: number | null; stdout: string }> }> {
  const value = repo.ref(ref)!;
  const child = spawn('git', ['update-ref', '--stdin'], { cwd: repo.dir, env: repo.env });
  let stdout = '';
  let stderr = '';
  const closed = new Promise<number | null>((done) => child.on('close', done));
  await new Promise<void>((ready, fail) => {
    child.stdout.on('data', (d) => {
      stdout += d;
      if (stdout.includes('prepare: ok\n')) ready();
    });
    child.stderr.on('data', (d) => (stderr += d));
    void closed.then((status) =>
      fail(new Error(`git update-ref --stdin ended (${status}) before it held the lock: ${stderr}`)),
    );
    child.stdin.write(`start\nupdate ${ref} ${value} ${value}\nprepare\n`);
  });
  return {
    child,
    release: async () => {
      child.stdin.end('abort\n');
      const status = await closed;
      return { status, stdout };
    },
  };
}

/** One batch through the library, in this process, on the file system `fs`. */
async function batchInProcess(repo: DiskRepo, fs: FileSystem, input: unknown): Promise<BatchResult> {
  const sh = await openShadow({ dir: repo.dir, fs, env: repo.env });
  try {
    return await sh.batch(input);
  } finally {
    sh.close();
  }
}

const Locks = suite<Ctx>('git interop: ref locks, both ways');
Locks.before.each((ctx) => {
  fresh(ctx);
  ok(ctx.repo.shadow(['write', 'first.txt'], { input: 'first\n' }), 'the draft exists');
});
Locks.after.each((ctx) => ctx.repo.cleanup());

Locks(
  'a lock held by native git: shadow waits shadow.lockTimeout, then fails with LOCKED and moves nothing',
  async ({ repo }) => {
    repo.git('config', 'shadow.lockTimeout', '300');
    const tip = repo.ref(DRAFT)!;
    const lock = await gitHoldsLock(repo, DRAFT);
    const lockPath = join(repo.dir, '.git', 'refs', 'shadow', 'drafts', 'default.lock');
    try {
      assert.ok(nodeFs.existsSync(lockPath), 'git holds the lock file');
      const r = repo.shadow(['write', 'second.txt', '--json'], { input: 'second\n' });
      assert.is(r.status, 1, `${r.stdout}${r.stderr}`);
      const error = r.json().error;
      assert.is(error.code, 'LOCKED');
      assert.is(
        error.message,
        `${lockPath} exists and no shadow process recorded it: git (or another tool) is updating it`,
      );
      assert.is(error.data.holder, null);
      assert.match(error.hint, /retry/);
      assert.is(error.data.lock, lockPath);
      assert.ok(error.data.waitedMs >= 300, `shadow waited ${error.data.waitedMs} ms`);
      assert.is(repo.ref(DRAFT), tip);
      assert.ok(nodeFs.existsSync(lockPath), "shadow never removes git's lock");
      const text = repo.shadow(['rollback', '~1']);
      assert.is(text.status, 1);
      assert.match(
        text.stderr,
        /^error: .*default\.lock exists and no shadow process recorded it: .*\nhint: .*if no git process is running, remove /,
      );
      assert.is(repo.ref(DRAFT), tip);
    } finally {
      const done = await lock.release();
      assert.is(done.status, 0);
      assert.match(done.stdout, /abort: ok/);
    }
    assert.is(repo.ref(DRAFT), tip);
    assert.ok(!nodeFs.existsSync(lockPath));
    const again = ok(repo.shadow(['write', 'second.txt', '--json'], { input: 'second\n' }), 'write once git is done');
    assert.is(repo.git('rev-parse', `${again.commit}^`).trim(), tip);
    fsckClean(repo);
  },
);

Locks('a lock native git releases while shadow waits: shadow then succeeds', async ({ repo }) => {
  repo.git('config', 'shadow.lockTimeout', '20000');
  const tip = repo.ref(DRAFT)!;
  const lock = await gitHoldsLock(repo, DRAFT);
  let waits = 0;
  let released: Promise<{ status: number | null; stdout: string }> | undefined;
  const fs = {
    ...nodeFs,
    openSync: ((path: nodeFs.PathLike, flags?: nodeFs.OpenMode, mode?: nodeFs.Mode | null) => {
      try {
        return nodeFs.openSync(path, flags ?? 'r', mode);
      } catch (e) {
        if (
          String(path).endsWith('refs/shadow/drafts/default.lock') &&
          (e as NodeJS.ErrnoException).code === 'EEXIST'
        ) {
          waits++;
          released ??= lock.release();
        }
        throw e;
      }
    }) as typeof nodeFs.openSync,
  } as FileSystem;
  const result = await batchInProcess(repo, fs, {
    intent: 'while git held the lock',
    operations: [{ operation: 'write', path: 'waited.txt', content: 'w\n' }],
  });
  assert.ok(waits >= 1, 'shadow found the lock taken and waited');
  assert.ok(released, 'the lock was released while shadow waited');
  const done = await released!;
  assert.is(done.status, 0);
  assert.match(done.stdout, /abort: ok/);
  assert.is(result.success, true, JSON.stringify(result.error));
  assert.is(repo.ref(DRAFT), result.commit);
  assert.is(repo.git('rev-parse', `${result.commit}^`).trim(), tip);
  assert.is(repo.git('show', `${DRAFT}:waited.txt`), 'w\n');
  fsckClean(repo);
});

Locks('while shadow holds the ref lock, native git update-ref fails cleanly, and shadow succeeds', async ({ repo }) => {
  const head = repo.ref('HEAD')!;
  const tip = repo.ref(DRAFT)!;
  const attempts: Array<{ status: number | null; stderr: string }> = [];
  const fs = {
    ...nodeFs,
    openSync: ((path: nodeFs.PathLike, flags?: nodeFs.OpenMode, mode?: nodeFs.Mode | null) => {
      const fd = nodeFs.openSync(path, flags ?? 'r', mode);
      if (String(path).endsWith('refs/shadow/drafts/default.lock') && flags === 'wx') {
        const r = spawnSync('git', ['update-ref', DRAFT, head], { cwd: repo.dir, env: repo.env, encoding: 'utf8' });
        attempts.push({ status: r.status, stderr: r.stderr });
      }
      return fd;
    }) as typeof nodeFs.openSync,
  } as FileSystem;
  const result = await batchInProcess(repo, fs, {
    intent: 'holding the lock',
    operations: [{ operation: 'write', path: 'mine.txt', content: 'mine\n' }],
  });
  assert.is(attempts.length, 1, 'one ref update, one lock');
  const git = attempts[0]!;
  assert.is.not(git.status, 0);
  assert.match(git.stderr, /cannot lock ref 'refs\/shadow\/drafts\/default'/);
  assert.match(git.stderr, /File exists/);
  assert.is(result.success, true, JSON.stringify(result.error));
  assert.is(repo.ref(DRAFT), result.commit, "git's update did not land; shadow's did");
  assert.is(repo.git('rev-parse', `${result.commit}^`).trim(), tip);
  const reflog = repo.git('reflog', 'show', '--format=%H %gs', DRAFT).trim().split('\n');
  assert.equal(reflog.slice(0, 2), [
    `${result.commit} shadow: batch 2: holding the lock`,
    `${tip} shadow: batch 1: write first.txt`,
  ]);
  assert.ok(!nodeFs.existsSync(join(repo.dir, '.git', 'refs', 'shadow', 'drafts', 'default.lock')), 'the lock is gone');
  // And git can move the ref again now.
  repo.git('update-ref', DRAFT, result.commit!, result.commit!);
  fsckClean(repo);
});

Locks.run();

// ---------------------------------------------------------------- layouts

const Layouts = suite<Ctx>('git interop: linked worktree, bare repositories');
Layouts.before.each(fresh);
Layouts.after.each((ctx) => ctx.repo.cleanup());

Layouts('a linked worktree: drafts live in the common git dir; the lower layer is that worktree', ({ repo }) => {
  const wt = join(repo.root, 'wt');
  repo.git('worktree', 'add', '-q', wt, '-b', 'feature');
  nodeFs.writeFileSync(join(wt, 'README.md'), 'Hello from the worktree\n');
  nodeFs.writeFileSync(join(wt, 'wt-only.txt'), 'only here\n');

  const r = repo.shadow(['batch', '-', '--draft', 'wtd', '--json'], {
    cwd: wt,
    input: ops(
      { operation: 'edit', path: 'README.md', old_content: 'from the worktree', content: 'from the agent' },
      { operation: 'write', path: 'a.txt', content: 'a\n' },
    ),
  });
  const out = ok(r, 'batch in the linked worktree');
  assert.equal(out.captured, ['README.md']);
  // The main worktree's git sees the draft: refs live in the common dir.
  assert.is(repo.ref('refs/shadow/drafts/wtd'), out.commit);
  assert.ok(nodeFs.existsSync(join(repo.dir, '.git', 'refs', 'shadow', 'drafts', 'wtd')));
  assert.is(
    repo.git('show', `${out.commit}^:README.md`),
    'Hello from the worktree\n',
    "the capture is the linked worktree's file",
  );
  assert.is(repo.git('show', `${out.commit}:README.md`), 'Hello from the agent\n');
  assert.is(repo.git('rev-parse', `${out.commit}~2`).trim(), repo.git('-C', wt, 'rev-parse', 'HEAD').trim());

  assert.is(repo.shadow(['cat', 'README.md', '--draft', 'wtd'], { cwd: wt }).stdout, 'Hello from the agent\n');
  assert.is(
    repo.shadow(['cat', 'wt-only.txt', '--draft', 'wtd'], { cwd: wt }).stdout,
    'only here\n',
    "untouched paths come from the linked worktree's files",
  );
  // The main worktree has drafts of its own, and will not write through the other's.
  ok(repo.shadow(['write', 'main.txt'], { input: 'main\n' }), 'a draft of the main worktree');
  const clash = repo.shadow(['write', 'x.txt', '--draft', 'wtd', '--json'], { input: 'x' });
  assert.is(clash.status, 1);
  assert.is(clash.json().error.code, 'DRAFT_WORKTREE_MISMATCH');
  assert.is(repo.ref('refs/shadow/drafts/wtd'), out.commit);
  assert.equal(
    ok(repo.shadow(['draft', 'list', '--json'], { cwd: wt }), 'draft list in wt').drafts.map((d: any) => d.name),
    ['default', 'wtd'],
  );
  assert.is(
    nodeFs.readFileSync(join(wt, 'README.md'), 'utf8'),
    'Hello from the worktree\n',
    'the working tree is untouched',
  );
  fsckClean(repo);
});

Layouts("a bare repository: the lower layer is the draft's root commit", ({ repo }) => {
  const bare = join(repo.root, 'bare.git');
  repo.git('clone', '-q', '--bare', repo.dir, bare);
  repo.git('--git-dir', bare, 'config', 'user.name', 'Test User');
  const head = repo.git('--git-dir', bare, 'rev-parse', 'HEAD').trim();
  const inBare = (args: string[], input?: string): CliResult => repo.shadow(args, { cwd: bare, input });

  assert.equal(
    ok(inBare(['ls', '--json']), 'ls').entries.map((e: any) => [e.name, e.type, e.source]),
    [
      ['README.md', 'file', 'lower'],
      ['old.txt', 'file', 'lower'],
      ['src', 'dir', 'lower'],
    ],
  );
  assert.is(inBare(['cat', 'README.md']).stdout, 'Hello\n');
  const b = ok(
    inBare(
      ['batch', '-', '--json'],
      ops(
        { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, bare' },
        { operation: 'delete', path: 'old.txt' },
        { operation: 'write', path: 'src/new.txt', content: 'new\n' },
      ),
    ),
    'batch in a bare repository',
  );
  assert.is(b.captured, undefined, 'nothing to capture: the root is the lower layer');
  assert.is(repo.git('--git-dir', bare, 'rev-parse', `${b.commit}^`).trim(), head);
  assert.is(repo.git('--git-dir', bare, 'show', `${b.commit}:README.md`), 'Hello, bare\n');
  assert.is(inBare(['cat', 'README.md']).stdout, 'Hello, bare\n');
  assert.is(inBare(['cat', 'src/big.txt']).stdout, BIG);
  assert.is(inBare(['diff', '--name-status']).stdout, 'M\tREADME.md\nD\told.txt\nA\tsrc/new.txt\n');
  const s = ok(inBare(['status', '--json']), 'status');
  assert.equal(s.drifted, []);
  assert.is(s.batches, 1);
  assert.match(
    repo.git('--git-dir', bare, 'log', '-1', '--format=%(trailers:only,unfold)', 'refs/shadow/drafts/default'),
    /^Shadow-Draft: default\nShadow-Batch: 1\nShadow-Actor: Test User\nShadow-Actor-Type: human\n/,
  );
  fsckClean(repo, ['--git-dir', bare]);
});

Layouts('an empty bare repository: the first batch makes an empty root commit; HEAD stays unborn', ({ repo }) => {
  const bare = new DiskRepo(null, { bare: true });
  try {
    const w = ok(bare.shadow(['write', 'a.txt', '--json'], { input: 'a\n' }), 'write in an empty bare repository');
    assert.is(w.batch, 1);
    const root = bare.git('rev-parse', `${w.commit}^`).trim();
    assert.is(
      bare.git('rev-parse', `${root}^{tree}`).trim(),
      '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
      'the root holds the empty tree',
    );
    assert.is(bare.gitResult('rev-parse', '-q', '--verify', `${root}^`).status, 1, 'the root has no parent');
    assert.is(bare.ref('HEAD'), undefined, 'HEAD stays unborn');
    assert.is(bare.shadow(['cat', 'a.txt']).stdout, 'a\n');
    assert.equal(
      ok(bare.shadow(['log', '--json']), 'log').batches.map((b: any) => b.batch),
      [1],
    );
    const second = ok(bare.shadow(['write', 'b.txt', '--json'], { input: 'b\n' }), 'second write');
    assert.is(bare.git('rev-parse', `${second.commit}~2`).trim(), root);
    fsckClean(bare);
  } finally {
    bare.cleanup();
  }
});

Layouts.run();
