import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FileSystem } from '../src/index.js';
import {
  AFTER,
  batch,
  blobOid,
  codeOf,
  EXPECTED_SET,
  standardFixture,
  USER_FILES,
  type Fixture,
} from './helpers/apply-fixture.js';
import { journalCalls, journals, lockHeld, MUTATING, records, SHADOW, temps } from './helpers/apply-state.js';
import { assertPaths, nodeAt, ROOT, worktree } from './helpers/working-tree.js';

/*
 * `shadow apply` and `unapply` on memfs, through the library: what the
 * publish set holds, and the order of the writes and fsyncs that make it
 * durable.
 */

const UNTOUCHED = ['.gitignore', 'README.md', 'src/lib/util.ts', ...Object.keys(USER_FILES)];

/** inode and mtime: a path rewritten (even with the same bytes) changes them. */
function identity(fs: FileSystem, path: string): string {
  const st = fs.lstatSync(`${ROOT}/${path}`);
  return `${st.ino}:${st.mtimeMs}:${st.size}`;
}

// ---------------------------------------------------------------- the publish set

const PublishSet = suite<Fixture>('apply: the publish set');
PublishSet.before.each(standardFixture);

PublishSet(
  'writes, deletes, both sides of a rename and a mode change are published; emptied directories go, new ones come',
  async ({ repo, sh }) => {
    const r = await sh.apply();
    assert.is(r.applied, true);
    assert.is(r.dry_run, false);
    assert.equal(
      r.paths.map((p) => ({ path: p.path, action: p.action })),
      EXPECTED_SET,
    );
    const a = r.paths.find((p) => p.path === 'a.txt')!;
    assert.is(a.old, blobOid('a\nlocal\n'), 'the base of a captured dirty file is its working-tree content');
    assert.is(a.new, blobOid('a\nLOCAL\n'));
    assert.equal(r.conflicts, []);
    assertPaths(repo.fs, AFTER);
    assert.is(repo.exists('old'), false, 'a directory the publish emptied is removed');
    assert.is(repo.exists('move'), false);
    assert.is(nodeAt(repo.fs, 'src/new'), 'dir');
    assert.is(nodeAt(repo.fs, 'src'), 'dir');
    assert.equal(temps(repo.fs), []);
    assert.equal(journals(repo.fs), [], 'the journal is gone once the apply is recorded');
    assert.is(records(repo.fs).length, 1);
    assert.ok(records(repo.fs)[0]!.endsWith(`-${r.id}.json`));
    assert.is(lockHeld(repo.fs), false);
  },
);

PublishSet(
  'the write protocol: the journal is durable before the first write; each file is a temp in its directory, fsynced, renamed; directories are fsynced; the record comes last',
  async ({ seam, viaSeam }) => {
    seam.arm();
    await viaSeam.apply();
    const log = seam.log;
    const inWorktree = (p: string | undefined): boolean =>
      p !== undefined && p.startsWith(`${ROOT}/`) && !p.startsWith(`${ROOT}/.git/`);
    const dirOf = (p: string): string => p.slice(0, p.lastIndexOf('/'));
    const at = (pred: (c: (typeof log)[number]) => boolean): number => log.findIndex(pred);

    const journalOpen = at((c) => c.op === 'openSync' && c.path!.startsWith(`${SHADOW}/journal/`));
    const journalPath = log[journalOpen]!.path!;
    assert.match(journalPath, /\/journal\/[0-9a-f-]+\.json$/, 'the journal is made under its own name');
    const firstWorktreeWrite = at((c) => MUTATING.has(c.op) && inWorktree(c.path));
    assert.ok(journalOpen > 0 && firstWorktreeWrite > journalOpen, 'the journal exists before the first write');
    const journalWrite = log.findIndex((c, i) => i > journalOpen && c.op === 'writeSync' && c.path === journalPath);
    const journalSync = log.findIndex((c, i) => i > journalWrite && c.op === 'fsyncSync' && c.path === journalPath);
    assert.ok(
      journalWrite > journalOpen && journalSync > journalWrite && journalSync < firstWorktreeWrite,
      'the journal is written and fsynced before the first write',
    );
    const journalDirSync = log.findIndex(
      (c, i) => i > journalOpen && c.op === 'fsyncSync' && c.path === `${SHADOW}/journal`,
    );
    assert.ok(
      journalDirSync > journalOpen && journalDirSync < firstWorktreeWrite,
      'the journal directory is fsynced before the first write',
    );

    const renames = log.filter((c) => c.op === 'renameSync' && inWorktree(c.path));
    assert.equal(
      renames.map((c) => c.path!.slice(ROOT.length + 1)),
      Object.keys(AFTER).filter((p) => AFTER[p] !== null),
      'one rename per written path',
    );
    for (const r of renames) {
      assert.is(dirOf(r.from!), dirOf(r.path!), `${r.path}: the temp file is in the same directory`);
      assert.match(r.from!, /\/\.[^/]+\.shadow-tmp-[^/]+$/);
      const opened = at((c) => c.op === 'openSync' && c.path === r.from);
      const synced = at((c) => c.op === 'fsyncSync' && c.path === r.from);
      assert.ok(
        opened >= 0 && opened < synced && synced < r.n - 1,
        `${r.path}: temp written and fsynced before the rename`,
      );
    }
    const changedDirs = new Set(log.filter((c) => MUTATING.has(c.op) && inWorktree(c.path)).map((c) => dirOf(c.path!)));
    const record = at((c) => c.op === 'renameSync' && c.path!.includes('/applies/'));
    assert.is(
      log[record]!.from,
      `${SHADOW}/journal/${log[record]!.path!.split('-').slice(-5).join('-')}`,
      'the journal itself becomes the record',
    );
    const lastWorktreeChange =
      log.length - 1 - [...log].reverse().findIndex((c) => MUTATING.has(c.op) && inWorktree(c.path));
    for (const dir of changedDirs) {
      if (!seam.inner.existsSync(dir)) continue; // removed: its parent is in the set too
      const synced = log.findIndex((c, i) => i > lastWorktreeChange && c.op === 'fsyncSync' && c.path === dir);
      assert.ok(
        synced > lastWorktreeChange && synced < record,
        `${dir} is fsynced after the last change and before the record`,
      );
    }
    assert.ok(changedDirs.has(ROOT) && changedDirs.has(`${ROOT}/src/new`), [...changedDirs].join(', '));
  },
);

PublishSet(
  "fsyncs an apply spends in .git: the journal (file and directory), one for the ledger; apply/start rides on the completion's fsync, the record on none; a first apply also makes its directories durably",
  async ({ repo, seam, viaSeam }) => {
    seam.arm();
    await viaSeam.apply();
    const log = seam.log;
    const ledger = `${SHADOW}/drafts/default/events.jsonl`;
    const inGit = log
      .filter((c) => c.op === 'fsyncSync' && c.path!.startsWith(`${ROOT}/.git/`))
      .map((c) => c.path!.slice(SHADOW.length + 1));
    const journal = log.find((c) => c.op === 'openSync' && c.path!.startsWith(`${SHADOW}/journal/`))!.path!;
    // The first apply makes journal/ (fsynced into shadow/) and the draft's applies/ (into drafts/default).
    assert.equal(inGit, [
      '',
      journal.slice(SHADOW.length + 1),
      'journal',
      'drafts/default/events.jsonl',
      'drafts/default',
    ]);
    // The start event is written while the journal's fsyncs run, before any
    // change in the work tree; the completion after the files; one fsync takes both.
    const ledgerWrites = log.filter((c) => c.op === 'writeSync' && c.path === ledger).map((c) => c.n);
    assert.is(ledgerWrites.length, 2);
    const firstWorktreeChange = log.find(
      (c) => MUTATING.has(c.op) && c.path!.startsWith(`${ROOT}/`) && !c.path!.startsWith(`${ROOT}/.git/`),
    )!.n;
    assert.ok(log.find((c) => c.path === journal)!.n < ledgerWrites[0]! && ledgerWrites[0]! < firstWorktreeChange);
    assert.ok(journalCalls(log).durable < firstWorktreeChange, 'the journal is durable before the first change');
    const types = String(repo.fs.readFileSync(ledger, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).type as string);
    const start = types.indexOf('apply/start');
    assert.equal(types.slice(start), ['apply/start', 'tx/status', 'apply/complete', 'tx/status', 'tx/close']);
  },
);

PublishSet(
  "unapply drops the apply's record durably before its own journal goes, so a crash never brings back a journal whose paths were put back",
  async ({ seam, sh, viaSeam }) => {
    const applied = await sh.apply();
    seam.arm();
    const u = await viaSeam.unapply();
    assert.is(u.reverted, applied.id);
    const log = seam.log;
    const recordDrop = log.find((c) => c.op === 'unlinkSync' && c.path!.includes('/applies/'))!;
    const appliesSync = log.find(
      (c) => c.n > recordDrop.n && c.op === 'fsyncSync' && c.path === `${SHADOW}/drafts/default/applies`,
    );
    const journalDrop = log.find((c) => c.op === 'unlinkSync' && c.path!.startsWith(`${SHADOW}/journal/`))!;
    assert.ok(
      appliesSync !== undefined && appliesSync.n < journalDrop.n,
      'the applies directory is fsynced between the two unlinks',
    );
    const lastWorktreeChange = [...log]
      .reverse()
      .find((c) => MUTATING.has(c.op) && c.path!.startsWith(`${ROOT}/`) && !c.path!.startsWith(`${ROOT}/.git/`))!;
    assert.ok(recordDrop.n > lastWorktreeChange.n, 'the record goes after the files are back');
  },
);

PublishSet(
  "the checks before a write look at each directory once, however many of the set's files it holds",
  async ({ repo, seam, sh, viaSeam }) => {
    await batch(
      sh,
      Array.from({ length: 30 }, (_, i) => ({
        operation: 'write' as const,
        path: `src/lib/f${i}.ts`,
        content: `${i}\n`,
      })),
    );
    seam.arm();
    const r = await viaSeam.apply({ dryRun: true });
    assert.ok(r.paths.length >= 30);
    const perPath = new Map<string, number>();
    for (const c of seam.log)
      if (c.op === 'statSync' || c.op === 'accessSync')
        perPath.set(`${c.op} ${c.path}`, (perPath.get(`${c.op} ${c.path}`) ?? 0) + 1);
    const repeated = [...perPath].filter(([, n]) => n > 1);
    assert.equal(repeated, [], 'no directory is stat()ed or access()ed twice');
    assert.is(perPath.get(`statSync ${ROOT}/src/lib`), 1);
  },
);

/** Does an fs call on `full` touch the working-tree path `p` (itself, below it, or a temp file of it)? */
function touches(full: string, p: string): boolean {
  const slash = p.lastIndexOf('/');
  const temp = `${ROOT}/${p.slice(0, slash + 1)}.${p.slice(slash + 1)}.shadow-tmp-`;
  return full === `${ROOT}/${p}` || full.startsWith(`${ROOT}/${p}/`) || full.startsWith(temp);
}

PublishSet(
  'untracked, ignored and dirty files outside the set are never read or written',
  async ({ repo, seam, viaSeam }) => {
    const before = worktree(repo.fs);
    const ids = Object.fromEntries(UNTOUCHED.map((p) => [p, identity(repo.fs, p)]));
    for (const step of ['dry run', 'apply', 'unapply'] as const) {
      seam.arm();
      if (step === 'dry run') await viaSeam.apply({ dryRun: true });
      else if (step === 'apply') await viaSeam.apply();
      else await viaSeam.unapply();
      const touched = seam.log.filter((c) => c.path !== undefined && UNTOUCHED.some((p) => touches(c.path!, p)));
      assert.equal(
        touched.map((c) => `${c.op} ${c.path}`),
        [],
        `${step} touched a path outside the set`,
      );
      for (const p of UNTOUCHED) {
        assert.is(nodeAt(repo.fs, p), before[p], `${step}: ${p}`);
        assert.is(identity(repo.fs, p), ids[p], `${step} rewrote ${p}`);
      }
    }
    assert.equal(worktree(repo.fs), before, 'after unapply the whole working tree is as it was');
  },
);

PublishSet(
  'a path brought back to its base is not in the set, whatever the user did to it meanwhile',
  async ({ repo, sh }) => {
    await batch(sh, [{ operation: 'write', path: 'README.md', content: 'changed\n' }]);
    await batch(sh, [{ operation: 'write', path: 'README.md', content: 'Hello\n' }]);
    repo.write('README.md', 'the user rewrote it\n');
    const r = await sh.apply();
    assert.is(
      r.paths.some((p) => p.path === 'README.md'),
      false,
    );
    assert.equal(r.conflicts, []);
    assert.is(repo.read('README.md'), 'the user rewrote it\n');
    assertPaths(repo.fs, AFTER);
  },
);

PublishSet(
  'an empty draft, and a draft whose changes cancel out, have nothing to apply: not an error, nothing written',
  async ({ repo, sh }) => {
    await sh.draftNew('empty');
    const cancelling = 'cancel';
    await sh.draftNew(cancelling);
    for (const content of ['tmp\n', 'Hello\n']) {
      const r = await sh.batch(
        { intent: 'c', operations: [{ operation: 'write', path: 'README.md', content }] },
        { draft: cancelling },
      );
      assert.ok(r.success, JSON.stringify(r.error));
    }
    const before = worktree(repo.fs);
    for (const draft of ['empty', cancelling]) {
      for (const dryRun of [true, false]) {
        const r = await sh.apply({ draft, dryRun });
        assert.is(r.applied, false, `${draft} dryRun=${dryRun}`);
        assert.equal(r.paths, []);
        assert.equal(r.conflicts, []);
        assert.is(r.id, undefined);
      }
      assert.equal(records(repo.fs, draft), []);
      const u = await codeOf(() => sh.unapply({ draft }));
      assert.is(u.code, 'NOTHING_TO_UNDO');
    }
    assert.equal(worktree(repo.fs), before);
    assert.equal(journals(repo.fs), []);
    assert.is(lockHeld(repo.fs), false);
  },
);

PublishSet('bad options are refused at the boundary', async ({ repo, sh }) => {
  const before = worktree(repo.fs);
  const cases: Array<[string, Record<string, unknown>]> = [
    ['commit and squash', { commit: true, squash: 'msg' }],
    ['an empty squash message', { squash: '   ' }],
    ['a bad draft name', { draft: '../x' }],
  ];
  for (const [label, options] of cases) {
    const e = await codeOf(() => sh.apply(options as never));
    assert.ok(['INVALID_ARGUMENT', 'INVALID_DRAFT_NAME'].includes(e.code), `${label}: ${e.code}`);
  }
  const missing = await codeOf(() => sh.apply({ draft: 'nope' }));
  assert.is(missing.code, 'DRAFT_NOT_FOUND');
  assert.equal(worktree(repo.fs), before);
});

PublishSet.run();
