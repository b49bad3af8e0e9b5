import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DRAFT, failsJson, failsText, fresh, hashOf, OID, ok, seed, type Ctx } from './helpers/cli-repo.js';

/**
 * `shadow checkpoint, rollback, undo, log, diff, status` on a real
 * repository, in text and with --json, checked against native git.
 */

// ---------------------------------------------------------------- history

const History = suite<Ctx & { commits: string[] }>('cli: checkpoint, rollback, undo, log, diff, status');
History.before.each(async (ctx) => {
  fresh(ctx);
  // Four batches, each writing f<i>.txt; before batch 3 the user edits README.md,
  // which batch 3 edits too: its state is captured in a commit of its own first.
  ctx.commits = [];
  for (let i = 1; i <= 4; i++) {
    const ops: unknown[] = [{ operation: 'write', path: `f${i}.txt`, content: `${i}\n` }];
    if (i === 3) {
      ctx.repo.write('README.md', 'Hello user\n');
      ops.push({ operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello three' });
    }
    ctx.commits.push(await seed(ctx.repo, ops, { intent: `step ${i}` }));
  }
});
History.after.each((ctx) => ctx.repo.cleanup());

History(
  'checkpoint and checkpoints in text and --json; names that would be ambiguous are refused',
  ({ repo, commits }) => {
    let r = repo.shadow(['checkpoints']);
    ok(r, 'checkpoints (none)');
    assert.is(r.stdout, 'no checkpoints\n');
    r = repo.shadow(['checkpoint', 'four', '-m', 'all four steps']);
    ok(r, 'checkpoint -m');
    assert.is(r.stdout, `checkpoint four at batch 4 (${commits[3]!.slice(0, 12)})\n`);
    const cp = ok(repo.shadow(['checkpoint', 'again', '--json']), 'checkpoint --json');
    assert.match(cp.tag, OID);
    assert.match(cp.time, /^\d{4}-\d\d-\d\dT/);
    assert.equal(
      { ...cp, tag: 0, time: 0 },
      {
        name: 'again',
        commit: commits[3],
        tag: 0,
        batch: 4,
        time: 0,
        message: 'checkpoint again of draft default',
        auto: false,
      },
    );

    // An annotated tag object, kept out of refs/tags.
    const tag = repo.git('rev-parse', 'refs/shadow/checkpoints/default/four').trim();
    assert.is(repo.git('cat-file', '-t', tag).trim(), 'tag');
    assert.is(repo.git('rev-parse', 'refs/shadow/checkpoints/default/four^{commit}').trim(), commits[3]);
    assert.match(repo.git('cat-file', 'tag', tag), /\n\nall four steps\n$/);
    assert.is(repo.git('tag', '--list'), '');

    const list = ok(repo.shadow(['checkpoints', '--json']), 'checkpoints --json').checkpoints;
    assert.equal(list.map((c: any) => [c.name, c.commit, c.batch, c.auto, c.message]).sort(), [
      ['again', commits[3], 4, false, 'checkpoint again of draft default'],
      ['four', commits[3], 4, false, 'all four steps'],
    ]);
    r = repo.shadow(['checkpoints']);
    ok(r, 'checkpoints');
    assert.match(
      r.stdout,
      new RegExp(
        `^four\\s+${commits[3]!.slice(0, 12)}  batch 4  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  all four steps$`,
        'm',
      ),
    );

    for (const bad of ['12', 'auto-1']) {
      failsJson(repo.shadow(['checkpoint', bad, '--json']), 'INVALID_CHECKPOINT_NAME', `checkpoint ${bad}`);
    }
    failsJson(repo.shadow(['checkpoint', 'four', '--json']), 'CHECKPOINT_EXISTS', 'checkpoint four again');
    assert.is(repo.git('rev-parse', 'refs/shadow/checkpoints/default/four').trim(), tag);
    failsJson(
      repo.shadow(['checkpoints', '--draft', 'nope', '--json']),
      'DRAFT_NOT_FOUND',
      'checkpoints of a missing draft',
    );
    failsJson(
      repo.shadow(['checkpoint', 'x', '--draft', 'nope', '--json']),
      'DRAFT_NOT_FOUND',
      'checkpoint on a missing draft',
    );
  },
);

History(
  'rollback by ~N, batch number, checkpoint and commit; every tip it leaves stays reachable',
  ({ repo, commits }) => {
    const [c1, c2, c3, c4] = commits as [string, string, string, string];
    const root = repo.ref('HEAD')!;
    ok(repo.shadow(['checkpoint', 'four']), 'checkpoint four');

    let r = repo.shadow(['rollback', '~2']);
    ok(r, 'rollback ~2');
    assert.is(
      r.stdout,
      `draft default: ${c4.slice(0, 12)} -> ${c2.slice(0, 12)} (rollback to ~2); the tip it left is kept as checkpoint four\nundo it with \`shadow undo\`\n`,
    );
    assert.is(repo.ref(DRAFT), c2, '~2 takes batch 3 back together with its capture commit');

    const byNumber = ok(repo.shadow(['rollback', '1', '--json']), 'rollback 1');
    assert.equal(byNumber, { draft: 'default', from: c2, to: c1, target: '1', kept: 'auto-1' });
    assert.is(repo.ref(DRAFT), c1);

    // A batch the draft left is still reachable by number, through the checkpoint that keeps it.
    const forward = ok(repo.shadow(['rollback', '3', '--json']), 'rollback 3');
    assert.is(forward.to, c3);
    assert.is(forward.kept, undefined, 'forward along the history: nothing to keep');

    const toCheckpoint = ok(repo.shadow(['rollback', 'four', '--json']), 'rollback <checkpoint>');
    assert.is(toCheckpoint.to, c4);

    const byCommit = ok(repo.shadow(['rollback', c1.slice(0, 10), '--json']), 'rollback <abbreviated commit>');
    assert.is(byCommit.to, c1);
    assert.is(byCommit.kept, 'four', 'the tip it left already had a checkpoint');
    assert.is(ok(repo.shadow(['rollback', c2, '--json']), 'rollback <commit>').to, c2);

    const toRoot = ok(repo.shadow(['rollback', 'HEAD', '--json']), 'rollback to the root');
    assert.is(toRoot.to, root);
    assert.is(toRoot.kept, 'auto-1');
    assert.equal(ok(repo.shadow(['log', '--json']), 'log').batches, []);
    assert.is(repo.shadow(['rollback', 'HEAD']).stdout, `draft default is already at ${root.slice(0, 12)}\n`);

    // Batch numbers are never reused.
    const c5 = ok(repo.shadow(['write', 'f5.txt', '--json'], { input: '5' }), 'write after the rollback');
    assert.is(c5.batch, 5);
    assert.is(ok(repo.shadow(['rollback', '~1', '--json']), 'rollback ~1').kept, 'auto-2');

    const cps = ok(repo.shadow(['checkpoints', '--json']), 'checkpoints').checkpoints;
    assert.equal(
      cps
        .filter((c: any) => c.auto)
        .map((c: any) => [c.name, c.commit, c.batch])
        .sort(),
      [
        ['auto-1', c2, 2],
        ['auto-2', c5.commit, 5],
      ],
    );
    assert.is(
      cps.find((c: any) => c.name === 'auto-1').message,
      'automatic checkpoint: draft default left this tip (rollback to batch 1)',
    );
    r = repo.shadow(['checkpoints']);
    assert.match(
      r.stdout,
      new RegExp(
        `^auto-1\\s+${c2.slice(0, 12)}  batch 2  .*  automatic checkpoint: draft default left this tip \\(rollback to batch 1\\)$`,
        'm',
      ),
    );
    const reachable = repo.git('rev-list', '--glob=refs/shadow/checkpoints/default/*').trim().split('\n');
    for (const c of [c1, c2, c3, c4, c5.commit])
      assert.ok(reachable.includes(c), `${c} stays reachable from a checkpoint`);

    failsJson(repo.shadow(['rollback', '~9', '--json']), 'INVALID_TARGET', 'rollback ~9');
    failsText(
      repo.shadow(['rollback', 'no-such-thing']),
      /^error: cannot roll back to "no-such-thing": it is no checkpoint, batch or commit$/m,
      'rollback (text)',
    );
    failsJson(
      repo.shadow(['rollback', '1', '--draft', 'nope', '--json']),
      'DRAFT_NOT_FOUND',
      'rollback of a missing draft',
    );
    assert.is(repo.ref(DRAFT), root);
    // A commit of the user's branch is no commit of the draft, even on top of its root.
    repo.git('commit', '-q', '--allow-empty', '-m', 'the user commits on main');
    failsJson(repo.shadow(['rollback', 'main', '--json']), 'INVALID_TARGET', 'rollback to a commit outside the draft');
    assert.is(repo.ref(DRAFT), root);
  },
);

History('undo reverses the last move; undo twice is a redo; the reflog shows every move', ({ repo, commits }) => {
  const [c1, , c3, c4] = commits as [string, string, string, string];
  let r = repo.shadow(['undo']);
  ok(r, 'undo');
  assert.is(
    r.stdout,
    `undid "batch 4: step 4": draft default ${c4.slice(0, 12)} -> ${c3.slice(0, 12)}; the tip it left is kept as checkpoint auto-1\n`,
  );
  assert.is(repo.ref(DRAFT), c3);
  assert.is(repo.shadow(['cat', 'f4.txt']).status, 1);
  const redo = ok(repo.shadow(['undo', '--json']), 'undo --json (a redo)');
  assert.equal(redo, { draft: 'default', from: c3, to: c4, target: 'undo', undid: 'undo batch 4: step 4' });
  assert.is(repo.ref(DRAFT), c4);
  assert.is(repo.shadow(['cat', 'f4.txt']).stdout, '4\n');

  ok(repo.shadow(['rollback', '~3']), 'rollback ~3');
  assert.is(repo.ref(DRAFT), c1);
  assert.is(ok(repo.shadow(['undo', '--json']), 'undo the rollback').to, c4);
  assert.is(ok(repo.shadow(['undo', '--json']), 'undo the undo').to, c1);

  const reflog = repo.git('reflog', 'show', '--format=%H %gs', DRAFT).trim().split('\n');
  assert.equal(reflog, [
    `${c1} shadow: undo undo rollback to ~3`,
    `${c4} shadow: undo rollback to ~3`,
    `${c1} shadow: rollback to ~3`,
    `${c4} shadow: undo undo batch 4: step 4`,
    `${c3} shadow: undo batch 4: step 4`,
    `${c4} shadow: batch 4: step 4`,
    `${c3} shadow: batch 3: step 3`,
    `${commits[1]} shadow: batch 2: step 2`,
    `${c1} shadow: batch 1: step 1`,
    `${repo.ref('HEAD')} shadow: draft new default from HEAD`,
  ]);

  ok(repo.shadow(['draft', 'new', 'blank']), 'draft new blank');
  failsJson(repo.shadow(['undo', '--draft', 'blank', '--json']), 'NOTHING_TO_UNDO', 'undo on a new draft');
  failsText(
    repo.shadow(['undo', '--draft', 'blank']),
    /^error: draft "blank" has not moved since it was created$/m,
    'undo (text)',
  );
  failsJson(repo.shadow(['undo', '--draft', 'nope', '--json']), 'DRAFT_NOT_FOUND', 'undo on a missing draft');
});

History('log, diff (patch, --stat, --name-status, ranges) and status in text and --json', ({ repo, commits }) => {
  const log = ok(repo.shadow(['log', '--json']), 'log --json');
  assert.is(log.draft, 'default');
  assert.equal(
    log.batches.map((b: any) => [b.batch, b.commit, b.intent, b.actor, b.captured]),
    [
      [4, commits[3], 'step 4', 'Test User', []],
      [3, commits[2], 'step 3', 'Test User', ['README.md']],
      [2, commits[1], 'step 2', 'Test User', []],
      [1, commits[0], 'step 1', 'Test User', []],
    ],
  );
  assert.equal(log.batches[1].ops, [
    { operation: 'write', path: 'f3.txt' },
    { operation: 'edit', path: 'README.md' },
  ]);
  assert.equal(
    ok(repo.shadow(['log', '-n', '2', '--json']), 'log -n 2').batches.map((b: any) => b.batch),
    [4, 3],
  );
  let r = repo.shadow(['log', '-n', '1']);
  ok(r, 'log -n 1');
  assert.match(
    r.stdout,
    new RegExp(
      `^batch 4 · Test User · \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d · step 4 · 1 op  ${commits[3]!.slice(0, 12)}\\n {4}write   f4\\.txt\\n$`,
    ),
  );
  r = repo.shadow(['log']);
  assert.match(
    r.stdout,
    /^ {4}edit    README\.md\n {4}\(captured first from the working tree: README\.md\)\nbatch 2 /m,
  );

  r = repo.shadow(['diff', '--name-status']);
  ok(r, 'diff --name-status');
  assert.is(r.stdout, 'M\tREADME.md\nA\tf1.txt\nA\tf2.txt\nA\tf3.txt\nA\tf4.txt\n');
  r = repo.shadow(['diff', '--stat']);
  ok(r, 'diff --stat');
  assert.match(r.stdout, /^ README\.md \| 2 \+-$/m);
  assert.match(r.stdout, /^ 5 files changed, 5 insertions\(\+\), 1 deletion\(-\)$/m);
  r = repo.shadow(['diff']);
  ok(r, 'diff');
  assert.match(r.stdout, /^diff --git a\/README\.md b\/README\.md\n/m);
  assert.match(r.stdout, /^-Hello user\n\+Hello three user$/m, 'against the captured base, not HEAD');
  const d = ok(repo.shadow(['diff', '--json']), 'diff --json');
  assert.is(d.to, commits[3]);
  assert.equal(
    d.files.map((f: any) => [f.path, f.status, f.insertions, f.deletions]),
    [
      ['README.md', 'M', 1, 1],
      ['f1.txt', 'A', 1, 0],
      ['f2.txt', 'A', 1, 0],
      ['f3.txt', 'A', 1, 0],
      ['f4.txt', 'A', 1, 0],
    ],
  );
  assert.match(d.files[0].patch, /^diff --git a\/README\.md b\/README\.md/);
  const ns = ok(repo.shadow(['diff', '--name-status', '--json']), 'diff --name-status --json');
  assert.is(ns.files[0].patch, undefined);
  assert.is(ns.files[0].old.oid, hashOf(repo, Buffer.from('Hello user\n')));

  // Ranges: checkpoints, batch numbers, ~N, commits; an open end is the tip (or the root).
  ok(repo.shadow(['checkpoint', 'four']), 'checkpoint');
  assert.is(repo.shadow(['diff', '--name-status', '1..3']).stdout, 'M\tREADME.md\nA\tf2.txt\nA\tf3.txt\n');
  assert.is(repo.shadow(['diff', '--name-status', `..${commits[0]}`]).stdout, 'A\tf1.txt\n');
  assert.is(repo.shadow(['diff', '--name-status', `${commits[2]}..four`]).stdout, 'A\tf4.txt\n');
  const range = ok(repo.shadow(['diff', '--stat', '--json', '2..4']), 'diff --stat --json 2..4');
  assert.is(range.from, commits[1]);
  assert.is(range.to, commits[3]);
  assert.equal(
    range.files.map((f: any) => f.path),
    ['README.md', 'f3.txt', 'f4.txt'],
  );
  failsJson(repo.shadow(['diff', '9..', '--json']), 'INVALID_TARGET', 'diff 9..');

  const s = ok(repo.shadow(['status', '--json']), 'status --json');
  assert.is(s.exists, true);
  assert.is(s.tip, commits[3]);
  assert.is(s.root, repo.ref('HEAD'));
  assert.is(s.batches, 4);
  assert.is(s.checkpoints, 1);
  assert.equal(
    s.changed.map((c: any) => `${c.status} ${c.path}`),
    ['M README.md', 'A f1.txt', 'A f2.txt', 'A f3.txt', 'A f4.txt'],
  );
  assert.equal(s.drifted, []);
  // The user changes a path the draft captured: status says the working tree moved.
  repo.write('README.md', 'Hello from the user\n');
  r = repo.shadow(['status']);
  ok(r, 'status');
  assert.match(
    r.stdout,
    new RegExp(
      `^draft default at ${commits[3]!.slice(0, 12)} · 4 batches · 1 checkpoint\\nchanges \\(5\\):\\n  M README\\.md\\n`,
    ),
  );
  assert.match(r.stdout, /^working tree moved away from the base \(1\):\n {2}README\.md \(modified\)$/m);
  const drifted = ok(repo.shadow(['status', '--json']), 'status --json (drift)').drifted;
  assert.equal(drifted, [
    {
      path: 'README.md',
      expected: hashOf(repo, Buffer.from('Hello user\n')),
      found: hashOf(repo, Buffer.from('Hello from the user\n')),
    },
  ]);
  const none = ok(repo.shadow(['status', '--draft', 'nope', '--json']), 'status of a missing draft');
  assert.equal(none, {
    draft: 'nope',
    exists: false,
    batches: 0,
    checkpoints: 0,
    changed: [],
    in_worktree: [],
    drifted: [],
    conflicts: [],
  });
  assert.is(
    repo.shadow(['status', '--draft', 'nope']).stdout,
    'draft nope does not exist yet; its first batch creates it from HEAD\n',
  );
});

History.run();
