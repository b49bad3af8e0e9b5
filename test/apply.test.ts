import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { Volume, createFsFromVolume } from 'memfs';
import { openShadow, type ApplyResult, type FileOperation, type FileSystem, type PathConflict, type Processes, type Shadow } from '../src/index.js';
import * as git from 'isomorphic-git';
import { memRepo as plainMemRepo, type MemRepo } from './helpers/mem-repo.js';
import { FsSeam, type FsOp } from './helpers/fs-seam.js';

/*
 * `shadow apply`, `unapply` and `recover` on memfs, through the library:
 * the publish set, the guard, apply/unapply semantics, injected I/O
 * failures, and crashes at (nearly) every fs call of an apply.
 */

const ROOT = '/repo';
const SHADOW = `${ROOT}/.git/shadow`;
const HOST = 'memhost';

// ---------------------------------------------------------------- helpers

/**
 * A memfs repository that trusts the executable bit, as git does on Linux
 * (isomorphic-git's init writes core.filemode = false).
 */
async function memRepo(files: Record<string, string>): Promise<MemRepo> {
  const repo = await plainMemRepo(files);
  await git.setConfig({ fs: repo.fs, dir: ROOT, path: 'core.filemode', value: true });
  return repo;
}

function blobOid(content: string | Buffer): string {
  const body = typeof content === 'string' ? Buffer.from(content) : content;
  return createHash('sha1').update(`blob ${body.length}\0`).update(body).digest('hex');
}

/** A process table in which only `self` (and `alsoAlive`) is alive. */
function processes(self: number, alsoAlive: number[] = []): Processes {
  return { self, host: HOST, isAlive: (pid) => pid === self || alsoAlive.includes(pid) };
}

/** Open shadow on `fs` (default the repository's own) as process `pid`. */
function openAs(repo: MemRepo, fs: FileSystem = repo.fs, pid = 100): Promise<Shadow> {
  const { clock, ids, env } = repo.ctx;
  return openShadow({ dir: ROOT, fs, clock, ids, env, processes: processes(pid) });
}

/** What the working tree holds at a path, in a comparable form. */
type Node = string | null;

function nodeAt(fs: FileSystem, path: string, root = ROOT): Node {
  let st;
  try {
    st = fs.lstatSync(`${root}/${path}`);
  } catch {
    return null;
  }
  if (st.isDirectory()) return 'dir';
  if (st.isSymbolicLink()) return `link:${String(fs.readlinkSync(`${root}/${path}`))}`;
  const content = String(fs.readFileSync(`${root}/${path}`, 'utf8'));
  return `${(Number(st.mode) & 0o100) !== 0 ? 'x' : '-'}:${content}`;
}

const file = (content: string, exec = false): Node => `${exec ? 'x' : '-'}:${content}`;

/** Every entry of the working tree outside .git (or of any tree `root`): path -> node. */
function worktree(fs: FileSystem, root = ROOT, dir = ''): Record<string, Node> {
  const out: Record<string, Node> = {};
  for (const name of listNames(fs, dir === '' ? root : `${root}/${dir}`)) {
    if (dir === '' && name === '.git') continue;
    const path = dir === '' ? name : `${dir}/${name}`;
    const n = nodeAt(fs, path, root);
    out[path] = n;
    if (n === 'dir') Object.assign(out, worktree(fs, root, path));
  }
  return out;
}

/** inode and mtime: a path rewritten (even with the same bytes) changes them. */
function identity(fs: FileSystem, path: string): string {
  const st = fs.lstatSync(`${ROOT}/${path}`);
  return `${st.ino}:${st.mtimeMs}:${st.size}`;
}

function listNames(fs: FileSystem, dir: string): string[] {
  try {
    return (fs.readdirSync(dir) as string[]).map(String).sort();
  } catch {
    return [];
  }
}

function journals(fs: FileSystem): string[] {
  return listNames(fs, `${SHADOW}/journal`).filter((n) => n.endsWith('.json'));
}

/** Journals whose creation finished (a crash can cut one short: it then lacks its final newline). */
function completeJournals(fs: FileSystem): string[] {
  return journals(fs).filter((n) => String(fs.readFileSync(`${SHADOW}/journal/${n}`, 'utf8')).endsWith('\n'));
}

/**
 * In a log of fs calls: the journal's creation (`made`: its file opened) and
 * the call that makes it durable (`durable`: the last of its own fsync and
 * its directory's, whichever comes second).
 */
function journalCalls(log: ReadonlyArray<{ n: number; op: FsOp; path: string | undefined }>): { made: number; durable: number } {
  const made = log.find((c) => c.op === 'openSync' && c.path?.startsWith(`${SHADOW}/journal/`) && c.path.endsWith('.json'))!;
  const fileSync = log.find((c) => c.n > made.n && c.op === 'fsyncSync' && c.path === made.path)!;
  const dirSync = log.find((c) => c.n > made.n && c.op === 'fsyncSync' && c.path === `${SHADOW}/journal`)!;
  return { made: made.n, durable: Math.max(fileSync.n, dirSync.n) };
}

function records(fs: FileSystem, draft = 'default'): string[] {
  return listNames(fs, `${SHADOW}/drafts/${draft}/applies`).filter((n) => n.endsWith('.json'));
}

function temps(fs: FileSystem): string[] {
  return Object.keys(worktree(fs)).filter((p) => p.includes('.shadow-tmp-'));
}

function lockHeld(fs: FileSystem): boolean {
  return fs.existsSync(`${SHADOW}/apply.lock`);
}

async function codeOf(f: () => Promise<unknown>): Promise<{ code: string; data: any; message: string }> {
  try {
    await f();
  } catch (e) {
    const err = e as { code?: string; data?: unknown; message: string };
    return { code: err.code ?? 'NO_CODE', data: err.data, message: err.message };
  }
  assert.unreachable('expected an error');
  throw new Error('unreachable');
}

async function batch(sh: Shadow, operations: FileOperation[], intent = 'change'): Promise<void> {
  const r = await sh.batch({ intent, operations });
  assert.ok(r.success, JSON.stringify(r.error));
}

/** fs operations that change state; a check that must write nothing makes none of them. */
const MUTATING: ReadonlySet<FsOp> = new Set<FsOp>(['writeSync', 'writeFileSync', 'appendFileSync', 'mkdirSync', 'renameSync', 'unlinkSync', 'rmdirSync', 'symlinkSync']);

/**
 * The changing calls a command made, but for the review cache (a check may
 * save what its review found: see review-cache.ts).
 */
function mutations(seam: FsSeam): string[] {
  const cache = (op: FsOp, p = ''): boolean => /\/drafts\/[^/]+\/review\.cache(\.tmp-[^/]*)?$/.test(p) || (op === 'mkdirSync' && /\/shadow\/drafts\/[^/]+$/.test(p));
  return seam.log.filter((c) => MUTATING.has(c.op) && !cache(c.op, c.path)).map((c) => `${c.op} ${c.path}`);
}

// ---------------------------------------------------------------- the standard fixture

const FILES: Record<string, string> = {
  '.gitignore': '.env\nbuild/\n',
  'README.md': 'Hello\n',
  'a.txt': 'a\n',
  'src/app.ts': 'export {}\n',
  'src/lib/util.ts': 'export const u = 1\n',
  'old/gone.txt': 'gone\n',
  'run.sh': '#!/bin/sh\n',
  'docs/guide.md': 'guide\n',
  'move/me.txt': 'moving\n',
};

/** The user's own state: untracked, ignored and dirty files, none of them in the publish set. */
const USER_FILES: Record<string, string> = {
  'notes.txt': 'my notes\n',
  '.env': 'TOKEN=secret\n',
  'build/out.js': 'built\n',
  'docs/guide.md': 'guide\nmy edit\n',
};
const UNTOUCHED = ['.gitignore', 'README.md', 'src/lib/util.ts', ...Object.keys(USER_FILES)];

/** The draft: a captured dirty edit, a modify, a create in a new directory, a delete that empties a directory, a rename, a mode change. */
const DRAFT_OPS: FileOperation[] = [
  { operation: 'edit', path: 'a.txt', old_content: 'local', content: 'LOCAL' },
  { operation: 'write', path: 'src/app.ts', content: 'export const app = 1\n' },
  { operation: 'write', path: 'src/new/feature.ts', content: 'export const f = 1\n' },
  { operation: 'delete', path: 'old/gone.txt' },
  { operation: 'rename', path: 'move/me.txt', to: 'moved/me.txt' },
  { operation: 'chmod', path: 'run.sh', mode: '100755' },
];

const EXPECTED_SET = [
  { path: 'a.txt', action: 'modify' },
  { path: 'move/me.txt', action: 'delete' },
  { path: 'moved/me.txt', action: 'create' },
  { path: 'old/gone.txt', action: 'delete' },
  { path: 'run.sh', action: 'mode' },
  { path: 'src/app.ts', action: 'modify' },
  { path: 'src/new/feature.ts', action: 'create' },
];

/** Each path of the set: before and after the publish. */
const BEFORE: Record<string, Node> = {
  'a.txt': file('a\nlocal\n'),
  'move/me.txt': file('moving\n'),
  'moved/me.txt': null,
  'old/gone.txt': file('gone\n'),
  'run.sh': file('#!/bin/sh\n'),
  'src/app.ts': file('export {}\n'),
  'src/new/feature.ts': null,
};
const AFTER: Record<string, Node> = {
  'a.txt': file('a\nLOCAL\n'),
  'move/me.txt': null,
  'moved/me.txt': file('moving\n'),
  'old/gone.txt': null,
  'run.sh': file('#!/bin/sh\n', true),
  'src/app.ts': file('export const app = 1\n'),
  'src/new/feature.ts': file('export const f = 1\n'),
};

interface Fixture {
  repo: MemRepo;
  /** A handle on the plain fs. */
  sh: Shadow;
  /** A second handle (another process) whose fs calls go through `seam`. */
  seam: FsSeam;
  viaSeam: Shadow;
}

async function standardFixture(ctx: Fixture): Promise<void> {
  ctx.repo = await memRepo(FILES);
  for (const [p, c] of Object.entries(USER_FILES)) ctx.repo.write(p, c);
  ctx.repo.write('a.txt', 'a\nlocal\n'); // a dirty file the draft then edits: its base is this content
  ctx.sh = await openAs(ctx.repo);
  await batch(ctx.sh, DRAFT_OPS, 'the agent works');
  ctx.seam = new FsSeam(ctx.repo.fs);
  ctx.viaSeam = await openAs(ctx.repo, ctx.seam.fs, 101);
  ctx.seam.record = true;
}

function assertPaths(fs: FileSystem, want: Record<string, Node>, label = ''): void {
  for (const [p, n] of Object.entries(want)) assert.is(nodeAt(fs, p), n, `${label}${p}`);
}

/** Every path is exactly its old or its new state: never torn, never anything else. */
function oldOrNew(fs: FileSystem, before: Record<string, Node>, after: Record<string, Node>): string[] {
  const bad: string[] = [];
  for (const p of Object.keys(after)) {
    const n = nodeAt(fs, p);
    if (n !== before[p] && n !== after[p]) bad.push(`${p}=${JSON.stringify(n)}`);
  }
  return bad;
}

// ---------------------------------------------------------------- the publish set

const PublishSet = suite<Fixture>('apply: the publish set');
PublishSet.before.each(standardFixture);

PublishSet('writes, deletes, both sides of a rename and a mode change are published; emptied directories go, new ones come', async ({ repo, sh }) => {
  const r = await sh.apply();
  assert.is(r.applied, true);
  assert.is(r.dry_run, false);
  assert.equal(r.paths.map((p) => ({ path: p.path, action: p.action })), EXPECTED_SET);
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
});

PublishSet('the write protocol: the journal is durable before the first write; each file is a temp in its directory, fsynced, renamed; directories are fsynced; the record comes last', async ({ seam, viaSeam }) => {
  seam.arm();
  await viaSeam.apply();
  const log = seam.log;
  const inWorktree = (p: string | undefined): boolean => p !== undefined && p.startsWith(`${ROOT}/`) && !p.startsWith(`${ROOT}/.git/`);
  const dirOf = (p: string): string => p.slice(0, p.lastIndexOf('/'));
  const at = (pred: (c: (typeof log)[number]) => boolean): number => log.findIndex(pred);

  const journalOpen = at((c) => c.op === 'openSync' && c.path!.startsWith(`${SHADOW}/journal/`));
  const journalPath = log[journalOpen]!.path!;
  assert.match(journalPath, /\/journal\/[0-9a-f-]+\.json$/, 'the journal is made under its own name');
  const firstWorktreeWrite = at((c) => MUTATING.has(c.op) && inWorktree(c.path));
  assert.ok(journalOpen > 0 && firstWorktreeWrite > journalOpen, 'the journal exists before the first write');
  const journalWrite = log.findIndex((c, i) => i > journalOpen && c.op === 'writeSync' && c.path === journalPath);
  const journalSync = log.findIndex((c, i) => i > journalWrite && c.op === 'fsyncSync' && c.path === journalPath);
  assert.ok(journalWrite > journalOpen && journalSync > journalWrite && journalSync < firstWorktreeWrite, 'the journal is written and fsynced before the first write');
  const journalDirSync = log.findIndex((c, i) => i > journalOpen && c.op === 'fsyncSync' && c.path === `${SHADOW}/journal`);
  assert.ok(journalDirSync > journalOpen && journalDirSync < firstWorktreeWrite, 'the journal directory is fsynced before the first write');

  const renames = log.filter((c) => c.op === 'renameSync' && inWorktree(c.path));
  assert.equal(renames.map((c) => c.path!.slice(ROOT.length + 1)), Object.keys(AFTER).filter((p) => AFTER[p] !== null), 'one rename per written path');
  for (const r of renames) {
    assert.is(dirOf(r.from!), dirOf(r.path!), `${r.path}: the temp file is in the same directory`);
    assert.match(r.from!, /\/\.[^/]+\.shadow-tmp-[^/]+$/);
    const opened = at((c) => c.op === 'openSync' && c.path === r.from);
    const synced = at((c) => c.op === 'fsyncSync' && c.path === r.from);
    assert.ok(opened >= 0 && opened < synced && synced < r.n - 1, `${r.path}: temp written and fsynced before the rename`);
  }
  const changedDirs = new Set(log.filter((c) => MUTATING.has(c.op) && inWorktree(c.path)).map((c) => dirOf(c.path!)));
  const record = at((c) => c.op === 'renameSync' && c.path!.includes('/applies/'));
  assert.is(log[record]!.from, `${SHADOW}/journal/${log[record]!.path!.split('-').slice(-5).join('-')}`, 'the journal itself becomes the record');
  const lastWorktreeChange = log.length - 1 - [...log].reverse().findIndex((c) => MUTATING.has(c.op) && inWorktree(c.path));
  for (const dir of changedDirs) {
    if (!seam.inner.existsSync(dir)) continue; // removed: its parent is in the set too
    const synced = log.findIndex((c, i) => i > lastWorktreeChange && c.op === 'fsyncSync' && c.path === dir);
    assert.ok(synced > lastWorktreeChange && synced < record, `${dir} is fsynced after the last change and before the record`);
  }
  assert.ok(changedDirs.has(ROOT) && changedDirs.has(`${ROOT}/src/new`), [...changedDirs].join(', '));
});

PublishSet('fsyncs an apply spends in .git: the journal (file and directory), one for the ledger; apply/start rides on the completion\'s fsync, the record on none; a first apply also makes its directories durably', async ({ repo, seam, viaSeam }) => {
  seam.arm();
  await viaSeam.apply();
  const log = seam.log;
  const ledger = `${SHADOW}/drafts/default/events.jsonl`;
  const inGit = log.filter((c) => c.op === 'fsyncSync' && c.path!.startsWith(`${ROOT}/.git/`)).map((c) => c.path!.slice(SHADOW.length + 1));
  const journal = log.find((c) => c.op === 'openSync' && c.path!.startsWith(`${SHADOW}/journal/`))!.path!;
  // The first apply makes journal/ (fsynced into shadow/) and the draft's applies/ (into drafts/default).
  assert.equal(inGit, ['', journal.slice(SHADOW.length + 1), 'journal', 'drafts/default/events.jsonl', 'drafts/default']);
  // The start event is written while the journal's fsyncs run, before any
  // change in the work tree; the completion after the files; one fsync takes both.
  const ledgerWrites = log.filter((c) => c.op === 'writeSync' && c.path === ledger).map((c) => c.n);
  assert.is(ledgerWrites.length, 2);
  const firstWorktreeChange = log.find((c) => MUTATING.has(c.op) && c.path!.startsWith(`${ROOT}/`) && !c.path!.startsWith(`${ROOT}/.git/`))!.n;
  assert.ok(log.find((c) => c.path === journal)!.n < ledgerWrites[0]! && ledgerWrites[0]! < firstWorktreeChange);
  assert.ok(journalCalls(log).durable < firstWorktreeChange, 'the journal is durable before the first change');
  const types = String(repo.fs.readFileSync(ledger, 'utf8')).trim().split('\n').map((l) => JSON.parse(l).type as string);
  const start = types.indexOf('apply/start');
  assert.equal(types.slice(start), ['apply/start', 'tx/status', 'apply/complete', 'tx/status', 'tx/close']);
});

PublishSet('unapply drops the apply\'s record durably before its own journal goes, so a crash never brings back a journal whose paths were put back', async ({ seam, sh, viaSeam }) => {
  const applied = await sh.apply();
  seam.arm();
  const u = await viaSeam.unapply();
  assert.is(u.reverted, applied.id);
  const log = seam.log;
  const recordDrop = log.find((c) => c.op === 'unlinkSync' && c.path!.includes('/applies/'))!;
  const appliesSync = log.find((c) => c.n > recordDrop.n && c.op === 'fsyncSync' && c.path === `${SHADOW}/drafts/default/applies`);
  const journalDrop = log.find((c) => c.op === 'unlinkSync' && c.path!.startsWith(`${SHADOW}/journal/`))!;
  assert.ok(appliesSync !== undefined && appliesSync.n < journalDrop.n, 'the applies directory is fsynced between the two unlinks');
  const lastWorktreeChange = [...log].reverse().find((c) => MUTATING.has(c.op) && c.path!.startsWith(`${ROOT}/`) && !c.path!.startsWith(`${ROOT}/.git/`))!;
  assert.ok(recordDrop.n > lastWorktreeChange.n, 'the record goes after the files are back');
});

PublishSet('the checks before a write look at each directory once, however many of the set\'s files it holds', async ({ repo, seam, sh, viaSeam }) => {
  await batch(sh, Array.from({ length: 30 }, (_, i) => ({ operation: 'write' as const, path: `src/lib/f${i}.ts`, content: `${i}\n` })));
  seam.arm();
  const r = await viaSeam.apply({ dryRun: true });
  assert.ok(r.paths.length >= 30);
  const perPath = new Map<string, number>();
  for (const c of seam.log) if (c.op === 'statSync' || c.op === 'accessSync') perPath.set(`${c.op} ${c.path}`, (perPath.get(`${c.op} ${c.path}`) ?? 0) + 1);
  const repeated = [...perPath].filter(([, n]) => n > 1);
  assert.equal(repeated, [], 'no directory is stat()ed or access()ed twice');
  assert.is(perPath.get(`statSync ${ROOT}/src/lib`), 1);
});

/** Does an fs call on `full` touch the working-tree path `p` (itself, below it, or a temp file of it)? */
function touches(full: string, p: string): boolean {
  const slash = p.lastIndexOf('/');
  const temp = `${ROOT}/${p.slice(0, slash + 1)}.${p.slice(slash + 1)}.shadow-tmp-`;
  return full === `${ROOT}/${p}` || full.startsWith(`${ROOT}/${p}/`) || full.startsWith(temp);
}

PublishSet('untracked, ignored and dirty files outside the set are never read or written', async ({ repo, seam, viaSeam }) => {
  const before = worktree(repo.fs);
  const ids = Object.fromEntries(UNTOUCHED.map((p) => [p, identity(repo.fs, p)]));
  for (const step of ['dry run', 'apply', 'unapply'] as const) {
    seam.arm();
    if (step === 'dry run') await viaSeam.apply({ dryRun: true });
    else if (step === 'apply') await viaSeam.apply();
    else await viaSeam.unapply();
    const touched = seam.log.filter((c) => c.path !== undefined && UNTOUCHED.some((p) => touches(c.path!, p)));
    assert.equal(touched.map((c) => `${c.op} ${c.path}`), [], `${step} touched a path outside the set`);
    for (const p of UNTOUCHED) {
      assert.is(nodeAt(repo.fs, p), before[p], `${step}: ${p}`);
      assert.is(identity(repo.fs, p), ids[p], `${step} rewrote ${p}`);
    }
  }
  assert.equal(worktree(repo.fs), before, 'after unapply the whole working tree is as it was');
});

PublishSet('a path brought back to its base is not in the set, whatever the user did to it meanwhile', async ({ repo, sh }) => {
  await batch(sh, [{ operation: 'write', path: 'README.md', content: 'changed\n' }]);
  await batch(sh, [{ operation: 'write', path: 'README.md', content: 'Hello\n' }]);
  repo.write('README.md', 'the user rewrote it\n');
  const r = await sh.apply();
  assert.is(r.paths.some((p) => p.path === 'README.md'), false);
  assert.equal(r.conflicts, []);
  assert.is(repo.read('README.md'), 'the user rewrote it\n');
  assertPaths(repo.fs, AFTER);
});

PublishSet('an empty draft, and a draft whose changes cancel out, have nothing to apply: not an error, nothing written', async ({ repo, sh }) => {
  await sh.draftNew('empty');
  const cancelling = 'cancel';
  await sh.draftNew(cancelling);
  for (const content of ['tmp\n', 'Hello\n']) {
    const r = await sh.batch({ intent: 'c', operations: [{ operation: 'write', path: 'README.md', content }] }, { draft: cancelling });
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
});

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

// ---------------------------------------------------------------- the guard

const Guard = suite<Fixture>('apply: the guard');
Guard.before.each(standardFixture);

interface Hostile {
  name: string;
  /** Change the working tree after the draft was made. */
  make(repo: MemRepo): void;
  conflicts: Array<Omit<PathConflict, 'detail'> & { detail?: RegExp }>;
  /** The error, when not STALE_BASE: CONFLICT where both changed the same lines. */
  code?: string;
}

const HOSTILE: Hostile[] = [
  {
    name: 'a file of the set was modified',
    make: (r) => r.write('src/app.ts', 'export {} // mine\n'),
    conflicts: [{ path: 'src/app.ts', expected: blobOid('export {}\n'), found: 'modified' }],
    code: 'CONFLICT',
  },
  {
    name: 'a file of the set was deleted',
    make: (r) => r.fs.unlinkSync(`${ROOT}/src/app.ts`),
    conflicts: [{ path: 'src/app.ts', expected: blobOid('export {}\n'), found: 'deleted' }],
  },
  {
    name: 'a file the draft deletes was modified',
    make: (r) => r.write('old/gone.txt', 'still here\n'),
    conflicts: [{ path: 'old/gone.txt', expected: blobOid('gone\n'), found: 'modified' }],
  },
  {
    name: 'a path the draft creates was created by the user',
    make: (r) => r.write('src/new/feature.ts', 'mine\n'),
    conflicts: [{ path: 'src/new/feature.ts', expected: null, found: 'created' }],
    code: 'CONFLICT',
  },
  {
    name: 'a file of the set is now a directory',
    make: (r) => {
      r.fs.unlinkSync(`${ROOT}/src/app.ts`);
      r.write('src/app.ts/inner.txt', 'x\n');
    },
    conflicts: [{ path: 'src/app.ts', expected: blobOid('export {}\n'), found: 'type changed', detail: /director/ }],
  },
  {
    name: 'a file of the set is now a symlink to /etc',
    make: (r) => {
      r.fs.unlinkSync(`${ROOT}/src/app.ts`);
      r.fs.symlinkSync('/etc', `${ROOT}/src/app.ts`);
    },
    conflicts: [{ path: 'src/app.ts', expected: blobOid('export {}\n'), found: 'type changed' }],
  },
  {
    name: 'a file of the set is now a symlink to a file inside the workspace',
    make: (r) => {
      r.fs.unlinkSync(`${ROOT}/a.txt`);
      r.fs.symlinkSync('README.md', `${ROOT}/a.txt`);
    },
    conflicts: [{ path: 'a.txt', expected: blobOid('a\nlocal\n'), found: 'type changed' }],
  },
  {
    name: 'a path the draft creates is now a symlink',
    make: (r) => {
      r.fs.mkdirSync(`${ROOT}/moved`);
      r.fs.symlinkSync('/etc/passwd', `${ROOT}/moved/me.txt`);
    },
    conflicts: [{ path: 'moved/me.txt', expected: null, found: 'created' }],
  },
  {
    name: 'a parent directory of the set is now a symlink into .git',
    make: (r) => {
      r.fs.renameSync(`${ROOT}/old`, '/old-was-here');
      r.fs.symlinkSync(`${ROOT}/.git`, `${ROOT}/old`);
    },
    conflicts: [{ path: 'old/gone.txt', expected: blobOid('gone\n'), found: 'type changed', detail: /symlink/ }],
  },
  {
    name: 'a parent directory of the set is now a symlink leading outside',
    make: (r) => {
      r.fs.mkdirSync('/outside/lib', { recursive: true });
      r.fs.writeFileSync('/outside/app.ts', 'export {}\n');
      r.fs.renameSync(`${ROOT}/src`, '/outside/src-was-here');
      r.fs.symlinkSync('/outside', `${ROOT}/src`);
    },
    conflicts: [
      { path: 'src/app.ts', expected: blobOid('export {}\n'), found: 'type changed', detail: /symlink/ },
      { path: 'src/new/feature.ts', expected: null, found: 'type changed', detail: /symlink/ },
    ],
  },
];

for (const h of HOSTILE) {
  Guard(`${h.name}: STALE_BASE with path, expected and found, before any write; the dry run reports the same`, async ({ repo, seam, viaSeam }) => {
    h.make(repo);
    const before = worktree(repo.fs);
    const outside = worktree(repo.fs, '/outside');

    seam.arm();
    const dry = await viaSeam.apply({ dryRun: true });
    assert.equal(mutations(seam), [], 'the dry run wrote');
    seam.arm();
    const e = await codeOf(() => viaSeam.apply());
    assert.is(e.code, h.code ?? 'STALE_BASE');
    assert.equal(mutations(seam).filter((m) => !m.includes(`${SHADOW}/`)), [], 'the apply wrote outside its own state (working tree, objects, refs, index)');

    for (const got of [dry.conflicts, e.data.conflicts as PathConflict[]]) {
      assert.equal(
        got.map((c) => ({ path: c.path, expected: c.expected, found: c.found })),
        h.conflicts.map((c) => ({ path: c.path, expected: c.expected, found: c.found })),
      );
      h.conflicts.forEach((c, i) => c.detail && assert.match(got[i]?.detail ?? '', c.detail, 'detail'));
    }
    for (const c of h.conflicts) assert.ok(e.message.includes(c.path), `the message names ${c.path}`);
    assert.is(dry.applied, false);
    assert.is(dry.paths.length, EXPECTED_SET.length, 'the dry run still lists the whole set');
    assert.equal(worktree(repo.fs), before, 'the working tree changed');
    assert.equal(worktree(repo.fs, '/outside'), outside, 'something was written outside the workspace');
    assert.equal(journals(repo.fs), []);
    assert.equal(records(repo.fs), []);
    assert.is(lockHeld(repo.fs), false);
  });
}

Guard('every conflict is reported at once, in path order', async ({ repo, sh }) => {
  repo.write('src/app.ts', 'mine\n');
  repo.fs.unlinkSync(`${ROOT}/move/me.txt`);
  repo.write('moved/me.txt', 'mine too\n');
  const e = await codeOf(() => sh.apply());
  assert.is(e.code, 'CONFLICT');
  assert.equal(
    (e.data.conflicts as PathConflict[]).map((c) => [c.path, c.found]),
    [
      ['moved/me.txt', 'created'],
      ['src/app.ts', 'modified'],
    ],
  );
  assertPaths(repo.fs, { ...BEFORE, 'src/app.ts': file('mine\n'), 'move/me.txt': null, 'moved/me.txt': file('mine too\n') });
});

Guard('an empty directory where the draft creates a file: never a partial apply', async ({ repo, sh }) => {
  repo.fs.mkdirSync(`${ROOT}/src/new/feature.ts`, { recursive: true });
  const before = worktree(repo.fs);
  let r: ApplyResult | undefined;
  let code: string | undefined;
  try {
    r = await sh.apply();
  } catch (e) {
    code = (e as { code?: string }).code;
  }
  if (r) {
    // Removing the empty directory, as git would, is fine too.
    assertPaths(repo.fs, AFTER);
  } else {
    assert.is(code, 'STALE_BASE', 'the guard must catch it before any write');
    assert.equal(worktree(repo.fs), before, 'nothing may be written');
    assert.equal(journals(repo.fs), []);
  }
});

Guard('a dry run of a clean draft lists the set and makes no change anywhere (but its review cache)', async ({ repo, seam, viaSeam }) => {
  const before = worktree(repo.fs);
  seam.arm();
  const r = await viaSeam.apply({ dryRun: true });
  assert.equal(mutations(seam), []);
  assert.is(r.applied, false);
  assert.is(r.dry_run, true);
  assert.equal(r.paths.map((p) => ({ path: p.path, action: p.action })), EXPECTED_SET);
  assert.equal(r.conflicts, []);
  assert.equal(r.unwritable, []);
  assert.equal(worktree(repo.fs), before);
});

Guard.run();

// ---------------------------------------------------------------- apply, unapply, apply again

const Cycle = suite<Fixture>('apply: bases, unapply, apply again');
Cycle.before.each(standardFixture);

Cycle('after apply the bases are the published contents: the agent keeps working on the draft and applies again', async ({ repo, sh }) => {
  const first = await sh.apply();
  const again = await sh.apply({ dryRun: true });
  assert.equal(again.paths, [], 'nothing left to publish');
  assert.equal(again.conflicts, []);

  await batch(sh, [
    { operation: 'edit', path: 'a.txt', old_content: 'LOCAL', content: 'LOCAL 2' },
    { operation: 'write', path: 'old/gone.txt', content: 'back\n' },
  ]);
  const second = await sh.apply();
  assert.equal(
    second.paths.map((p) => [p.path, p.action, p.old, p.new]),
    [
      ['a.txt', 'modify', blobOid('a\nLOCAL\n'), blobOid('a\nLOCAL 2\n')],
      ['old/gone.txt', 'create', null, blobOid('back\n')],
    ],
  );
  assert.is(repo.read('a.txt'), 'a\nLOCAL 2\n');
  assert.is(repo.read('old/gone.txt'), 'back\n');
  assert.is(records(repo.fs).length, 2);

  // The user edits a published file: the draft's next change to it is guarded against the published content.
  repo.write('src/app.ts', 'user after apply\n');
  await batch(sh, [{ operation: 'write', path: 'src/app.ts', content: 'agent again\n' }]);
  const e = await codeOf(() => sh.apply());
  assert.is(e.code, 'CONFLICT');
  assert.equal((e.data.conflicts as PathConflict[]).map((c) => [c.path, c.expected, c.found]), [['src/app.ts', blobOid('export const app = 1\n'), 'modified']]);
  assert.ok(first.id && second.id && first.id !== second.id);
});

Cycle('unapply restores every path of the last apply; applying again publishes the same changes', async ({ repo, sh }) => {
  const before = worktree(repo.fs);
  const first = await sh.apply();
  const applied = worktree(repo.fs);
  const u = await sh.unapply();
  assert.is(u.reverted, first.id);
  assert.equal(u.paths.map((p) => p.path).sort(), EXPECTED_SET.map((p) => p.path));
  assert.equal(worktree(repo.fs), before, 'the working tree is back, emptied directories included');
  assert.equal(records(repo.fs), []);
  assert.equal(journals(repo.fs), []);

  const plan = await sh.apply({ dryRun: true });
  assert.equal(plan.paths, first.paths, 'the same changes are due again');
  const second = await sh.apply();
  assert.equal(second.paths, first.paths);
  assert.equal(worktree(repo.fs), applied);

  const none = await sh.unapply();
  assert.is(none.reverted, second.id);
  const e = await codeOf(() => sh.unapply());
  assert.is(e.code, 'NOTHING_TO_UNDO');
  assert.equal(worktree(repo.fs), before);
});

Cycle('two applies unwind one at a time, newest first', async ({ repo, sh }) => {
  const before = worktree(repo.fs);
  await sh.apply();
  const mid = worktree(repo.fs);
  await batch(sh, [{ operation: 'edit', path: 'src/app.ts', old_content: 'app = 1', content: 'app = 2' }]);
  await sh.apply();
  assert.is(repo.read('src/app.ts'), 'export const app = 2\n');
  await sh.unapply();
  assert.equal(worktree(repo.fs), mid);
  await sh.unapply();
  assert.equal(worktree(repo.fs), before);
});

Cycle('a draft applied many times reads one apply record per command, not all of them, and a handle none again until they change; the fold they make is checked against the records and rebuilt', async ({ repo, sh, seam, viaSeam }) => {
  await sh.apply();
  for (let i = 2; i <= 6; i++) {
    await batch(sh, [{ operation: 'write', path: `step/${i}.txt`, content: `step ${i}\n` }]);
    await sh.apply();
  }
  assert.is(records(repo.fs).length, 6);
  const recordReads = (): number => seam.log.filter((c) => c.op === 'readFileSync' && c.path!.includes('/applies/') && c.path!.endsWith('.json')).length;
  seam.arm();
  const plan = await viaSeam.apply({ dryRun: true });
  assert.equal(plan.paths, []);
  assert.is(recordReads(), 1, 'only the newest record (what unapply reverses) is read');
  await viaSeam.apply({ dryRun: true });
  await viaSeam.status();
  assert.is(recordReads(), 1, 'a handle reads no record again while the applies stay the same');

  // An unapply: the fold of all but the newest was kept, so still one record is read.
  await sh.unapply();
  assert.is(nodeAt(repo.fs, 'step/6.txt'), null);
  seam.log.length = 0;
  const after = await viaSeam.apply({ dryRun: true });
  assert.equal(after.paths.map((p) => p.path), ['step/6.txt'], 'the reverted apply is due again');
  assert.is(recordReads(), 1);

  // A record removed by hand (the documented way to forget an apply): the fold no longer matches and is rebuilt.
  const third = records(repo.fs).find((n) => recordPaths(repo, n).includes('step/3.txt'))!;
  repo.fs.unlinkSync(`${SHADOW}/drafts/default/applies/${third}`);
  const forgot = await sh.apply({ dryRun: true });
  assert.equal(forgot.paths.map((p) => [p.path, p.old]), [['step/3.txt', null], ['step/6.txt', null]], 'its path falls back to its captured base');
  assert.equal(forgot.conflicts, [], 'the working tree holds what the draft has there: nothing to merge');
  assert.equal(forgot.paths.map((p) => p.merge), ['merged', 'clean']);

  // A damaged fold is ignored.
  repo.fs.writeFileSync(`${SHADOW}/drafts/default/applies/fold.cache`, '{"version":1,"key":');
  const again = await sh.apply({ dryRun: true });
  assert.equal(again.paths.map((p) => p.path), ['step/3.txt', 'step/6.txt']);
});

/** The paths an apply record of the default draft lists. */
function recordPaths(repo: MemRepo, name: string): string[] {
  const record = JSON.parse(String(repo.fs.readFileSync(`${SHADOW}/drafts/default/applies/${name}`, 'utf8'))) as { entries: Array<{ path: string }> };
  return record.entries.map((e) => e.path);
}

const UNAPPLY_GUARD: Array<{ name: string; make(r: MemRepo): void; conflict: [string, string | null, string] }> = [
  { name: 'a published file was modified', make: (r) => r.write('src/app.ts', 'user\n'), conflict: ['src/app.ts', blobOid('export const app = 1\n'), 'modified'] },
  { name: 'a created file was deleted', make: (r) => r.fs.unlinkSync(`${ROOT}/src/new/feature.ts`), conflict: ['src/new/feature.ts', blobOid('export const f = 1\n'), 'deleted'] },
  { name: 'a deleted path was created again', make: (r) => r.write('old/gone.txt', 'user\n'), conflict: ['old/gone.txt', null, 'created'] },
];

for (const g of UNAPPLY_GUARD) {
  Cycle(`unapply is guarded (${g.name}): STALE_BASE, nothing written, the apply stays recorded`, async ({ repo, sh }) => {
    await sh.apply();
    g.make(repo);
    const before = worktree(repo.fs);
    const e = await codeOf(() => sh.unapply());
    assert.is(e.code, 'STALE_BASE');
    assert.equal((e.data.conflicts as PathConflict[]).map((c) => [c.path, c.expected, c.found]), [g.conflict]);
    assert.equal(worktree(repo.fs), before);
    assert.is(records(repo.fs).length, 1);
    assert.equal(journals(repo.fs), []);
  });
}

Cycle.run();

// ---------------------------------------------------------------- injected I/O failures

const Failures = suite<Fixture>('apply: I/O failures');
Failures.before.each(standardFixture);

const inWorktreeTemp = (p: string): boolean => p.includes('.shadow-tmp-');
const WRITES = EXPECTED_SET.filter((e) => AFTER[e.path] !== null).length;

for (const after of [0, 1, 3]) {
  for (const finish of ['recover', 'reopen'] as const) {
    Failures(`the disk fills after ${after} writes (ENOSPC): APPLY_FAILED, nothing torn, the journal stays; once there is space, ${finish === 'recover' ? 'recover' : 'the next open'} finishes it`, async ({ repo, seam, viaSeam }) => {
      seam.inject({ op: 'writeSync', path: inWorktreeTemp, after, code: 'ENOSPC' });
      const e = await codeOf(() => viaSeam.apply());
      assert.is(e.code, 'APPLY_FAILED');
      const failures = e.data.failures as Array<{ path: string; code: string }>;
      assert.is(failures.length, WRITES - after);
      assert.ok(failures.every((f) => f.code === 'ENOSPC'), JSON.stringify(failures));
      assert.equal(oldOrNew(repo.fs, BEFORE, AFTER), []);
      for (const f of failures) assert.is(nodeAt(repo.fs, f.path), BEFORE[f.path], `${f.path} is untouched`);
      assert.equal(temps(repo.fs), [], 'no temp file left');
      assert.is(journals(repo.fs).length, 1, 'the journal stays');
      assert.equal(records(repo.fs), []);
      assert.is(lockHeld(repo.fs), false);
      // Until it is finished, publishing again is refused.
      assert.is((await codeOf(() => viaSeam.apply())).code, 'APPLY_PENDING');
      assert.is((await codeOf(() => viaSeam.unapply())).code, 'APPLY_PENDING');

      seam.heal(); // space freed
      const report = finish === 'recover' ? await viaSeam.recover() : (await openAs(repo, repo.fs, 102)).recovered;
      assert.ok(report);
      assert.is(report!.finished.length, 1);
      assert.equal(report!.failed, []);
      assert.equal(report!.finished[0]!.conflicts, []);
      assertPaths(repo.fs, AFTER);
      assert.equal(journals(repo.fs), []);
      assert.is(records(repo.fs).length, 1);
      assert.equal((await viaSeam.apply({ dryRun: true })).paths, [], 'the bases are the published contents');
    });
  }
}

const DENIED: Array<{ name: string; op: FsOp; path: RegExp; code: string; stuck: string }> = [
  { name: 'a read-only file cannot be replaced (EPERM on rename)', op: 'renameSync', path: /\/repo\/src\/app\.ts$/, code: 'EPERM', stuck: 'src/app.ts' },
  { name: 'a directory refuses new files (EACCES on open)', op: 'openSync', path: /\/repo\/src\/\.app\.ts\.shadow-tmp-/, code: 'EACCES', stuck: 'src/app.ts' },
  { name: 'a file cannot be removed (EACCES on unlink)', op: 'unlinkSync', path: /\/repo\/old\/gone\.txt$/, code: 'EACCES', stuck: 'old/gone.txt' },
  { name: 'a new directory cannot be made (EACCES on mkdir)', op: 'mkdirSync', path: /\/repo\/src\/new$/, code: 'EACCES', stuck: 'src/new/feature.ts' },
];

for (const d of DENIED) {
  Failures(`${d.name}: APPLY_FAILED naming the path, which stays old while the rest is new; recovery finishes once fixed`, async ({ repo, seam, viaSeam }) => {
    seam.inject({ op: d.op, path: d.path, code: d.code });
    const e = await codeOf(() => viaSeam.apply());
    assert.is(e.code, 'APPLY_FAILED');
    assert.equal((e.data.failures as Array<{ path: string; code: string }>).map((f) => [f.path, f.code]), [[d.stuck, d.code]]);
    assert.ok(e.message.includes(d.stuck));
    for (const p of Object.keys(AFTER)) assert.is(nodeAt(repo.fs, p), p === d.stuck ? BEFORE[p] : AFTER[p], p);
    assert.equal(temps(repo.fs), []);
    assert.is(journals(repo.fs).length, 1);
    seam.heal();
    const report = await viaSeam.recover();
    assert.is(report.finished.length, 1);
    assertPaths(repo.fs, AFTER);
    assert.equal(journals(repo.fs), []);
    assert.is(records(repo.fs).length, 1);
  });
}

Failures('the ledger cannot take apply/start: the apply fails before any write, and its journal is gone, so nothing carries it out later', async ({ repo, seam, viaSeam }) => {
  seam.inject({ op: 'openSync', path: /events\.jsonl\.lock/, code: 'EIO' });
  const e = await codeOf(() => viaSeam.apply());
  assert.is.not(e.code, 'NO_CODE');
  assertPaths(repo.fs, BEFORE);
  assert.equal(journals(repo.fs), [], 'the journal made alongside is removed');
  assert.equal(temps(repo.fs), []);
  assert.equal(records(repo.fs), []);
  assert.is(lockHeld(repo.fs), false);
  seam.heal();
  assert.is((await viaSeam.recover()).finished.length, 0, 'there is nothing to finish');
  assertPaths(repo.fs, BEFORE);
  await viaSeam.apply();
  assertPaths(repo.fs, AFTER);
});

const UNWRITABLE: Array<{ deny: string; directories: string[] }> = [
  { deny: `${ROOT}/src`, directories: ['src'] },
  { deny: `${ROOT}/old`, directories: ['old'] },
  { deny: ROOT, directories: ['.'] },
];

for (const u of UNWRITABLE) {
  Failures(`${u.deny} is not writable (accessSync): NOT_WRITABLE before any write, not even a journal; the dry run says so`, async ({ repo, seam, viaSeam }) => {
    seam.inject({ op: 'accessSync', path: (p) => p === u.deny, code: 'EACCES' });
    const before = worktree(repo.fs);
    const dry = await viaSeam.apply({ dryRun: true });
    assert.equal(dry.unwritable, u.directories);
    seam.arm();
    const e = await codeOf(() => viaSeam.apply());
    assert.is(e.code, 'NOT_WRITABLE');
    assert.equal(e.data.directories, u.directories);
    assert.match(e.message, /before writing anything/);
    assert.equal(mutations(seam), [], 'nothing written, not even a journal or a lock');
    assert.equal(worktree(repo.fs), before);
    seam.heal();
    await viaSeam.apply();
    assertPaths(repo.fs, AFTER);
  });
}

Failures('another apply holds the lock: LOCKED naming it, nothing written; a lock left by a dead process is taken over', async ({ repo }) => {
  const holder = { pid: 4242, host: HOST, since: '2026-11-22T12:00:00.000Z', what: 'shadow apply' };
  repo.fs.mkdirSync(SHADOW, { recursive: true });
  repo.fs.writeFileSync(`${SHADOW}/apply.lock`, JSON.stringify(holder));
  const before = worktree(repo.fs);
  const { clock, ids, env } = repo.ctx;
  const whileAlive = await openShadow({ dir: ROOT, fs: repo.fs, clock, ids, env, processes: processes(100, [4242]) });
  const e = await codeOf(() => whileAlive.apply());
  assert.is(e.code, 'LOCKED');
  assert.match(e.message, /4242/);
  assert.equal(worktree(repo.fs), before);
  assert.equal(journals(repo.fs), []);
  assert.is(String(repo.fs.readFileSync(`${SHADOW}/apply.lock`, 'utf8')), JSON.stringify(holder), 'a live holder keeps its lock');

  const afterDeath = await openShadow({ dir: ROOT, fs: repo.fs, clock, ids, env, processes: processes(100) });
  const r = await afterDeath.apply();
  assert.is(r.applied, true);
  assertPaths(repo.fs, AFTER);
  assert.is(lockHeld(repo.fs), false);
});

Failures.run();

// ---------------------------------------------------------------- crashes

/** A frozen volume: the files (Buffers) and the modes that differ from memfs's default. */
interface Frozen {
  json: Record<string, Buffer | null>;
  modes: Array<[string, number]>;
}

function freeze(fs: FileSystem): Frozen {
  const json: Record<string, Buffer | null> = {};
  const modes: Array<[string, number]> = [];
  const walk = (dir: string): void => {
    for (const name of listNames(fs, dir)) {
      const p = `${dir}/${name}`;
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) throw new Error('no symlinks in frozen fixtures');
      if (st.isDirectory()) {
        json[p] = null;
        walk(p);
      } else {
        json[p] = fs.readFileSync(p) as Buffer;
        if ((Number(st.mode) & 0o777) !== 0o666) modes.push([p, Number(st.mode) & 0o777]);
      }
    }
  };
  walk(ROOT);
  return { json, modes };
}

function thaw(f: Frozen): FileSystem & { chmodSync(p: string, m: number): void } {
  const fs = createFsFromVolume(Volume.fromJSON(f.json)) as unknown as FileSystem & { chmodSync(p: string, m: number): void };
  for (const [p, m] of f.modes) fs.chmodSync(p, m);
  return fs;
}

/** 200 paths: 110 modified, 30 deleted (emptying del/), 30 created in new/deep/, 10 renamed (20 paths, emptying ren/), 10 made executable. */
function bigFixture(): { files: Record<string, string>; ops: FileOperation[]; before: Record<string, Node>; after: Record<string, Node> } {
  const files: Record<string, string> = { 'README.md': 'Hello\n', 'dirty.txt': 'committed\n' };
  const ops: FileOperation[] = [];
  const before: Record<string, Node> = {};
  const after: Record<string, Node> = {};
  const pad = (i: number): string => String(i).padStart(3, '0');
  for (let i = 0; i < 110; i++) {
    const p = `src/m/${pad(i)}.txt`;
    files[p] = `old ${i}\n`.repeat(1 + (i % 7));
    ops.push({ operation: 'write', path: p, content: `new ${i}\n`.repeat(1 + (i % 5)) });
    before[p] = file(files[p]!);
    after[p] = file(`new ${i}\n`.repeat(1 + (i % 5)));
  }
  for (let i = 0; i < 30; i++) {
    const p = `del/d${pad(i)}.txt`;
    files[p] = `del ${i}\n`;
    ops.push({ operation: 'delete', path: p });
    before[p] = file(files[p]!);
    after[p] = null;
  }
  for (let i = 0; i < 30; i++) {
    const p = `new/deep/n${pad(i)}.txt`;
    ops.push({ operation: 'write', path: p, content: `created ${i}\n` });
    before[p] = null;
    after[p] = file(`created ${i}\n`);
  }
  for (let i = 0; i < 10; i++) {
    const from = `ren/r${pad(i)}.txt`;
    const to = `moved/r${pad(i)}.txt`;
    files[from] = `renamed ${i}\n`;
    ops.push({ operation: 'rename', path: from, to });
    before[from] = file(files[from]!);
    after[from] = null;
    before[to] = null;
    after[to] = file(files[from]!);
  }
  for (let i = 0; i < 10; i++) {
    const p = `bin/x${pad(i)}`;
    files[p] = `#!/bin/sh\necho ${i}\n`;
    ops.push({ operation: 'chmod', path: p, mode: '100755' });
    before[p] = file(files[p]!);
    after[p] = file(files[p]!, true);
  }
  return { files, ops, before, after };
}

const BIG_UNTOUCHED: Record<string, Node> = {
  'README.md': file('Hello\n'),
  'dirty.txt': file('committed\nmine\n'),
  'notes/untracked.txt': file('untracked\n'),
};

/**
 * One full run of `act` on a thawed copy of `frozen`, every fs call
 * recorded: the calls a crash sweep then stops at, one by one.
 */
async function probeRun<T>(repo: MemRepo, frozen: Frozen, act: (sh: Shadow) => Promise<T>): Promise<{ fs: FileSystem; probe: FsSeam; result: T }> {
  const fs = thaw(frozen);
  const probe = new FsSeam(fs);
  const sh = await openAs(repo, probe.fs, 101);
  probe.record = true;
  probe.arm();
  const result = await act(sh);
  return { fs, probe, result };
}

/**
 * Pick crash points from the fs calls of one full run. Before the first
 * write every crash is alike (a few samples); every call from the first
 * write in .git/shadow to the journal's fsync; a stride over the working
 * tree writes (co-prime with the ~10 calls a file takes, so every step of a
 * file's write is hit), plus the calls around each directory made or
 * removed; every call after the last working-tree change.
 */
function crashPoints(log: ReadonlyArray<{ n: number; op: FsOp; path: string | undefined }>, stride: number): number[] {
  const picked = new Set<number>();
  const add = (from: number, to: number, step = 1): void => {
    for (let i = Math.max(1, from); i <= Math.min(log.length, to); i += step) picked.add(i);
  };
  const inWorktree = (p: string | undefined): boolean => p !== undefined && p.startsWith(`${ROOT}/`) && !p.startsWith(`${ROOT}/.git/`);
  const firstShadowWrite = log.find((c) => MUTATING.has(c.op) && c.path?.startsWith(SHADOW))!.n;
  // Every call from shadow's first write to the first change in the work
  // tree: the journal, and the ledger's start line appended while its fsyncs run.
  const firstWorktreeChange = log.find((c) => MUTATING.has(c.op) && inWorktree(c.path))!.n;
  const lastWorktreeChange = [...log].reverse().find((c) => MUTATING.has(c.op) && inWorktree(c.path))!.n;
  add(1, firstShadowWrite - 1, Math.ceil(firstShadowWrite / 4));
  add(firstShadowWrite - 1, Math.max(journalCalls(log).durable, firstWorktreeChange) + 2);
  add(firstWorktreeChange + 3, lastWorktreeChange, stride);
  // The first mkdir of a directory makes it; the last rmdir of one is the one that removes it.
  const dirCalls = new Map<string, number>();
  for (const c of log) {
    if (c.op === 'mkdirSync' && inWorktree(c.path) && !dirCalls.has(`+${c.path}`)) dirCalls.set(`+${c.path}`, c.n);
    if (c.op === 'rmdirSync' && inWorktree(c.path)) dirCalls.set(`-${c.path}`, c.n);
  }
  for (const n of dirCalls.values()) add(n - 1, n + 1);
  add(lastWorktreeChange, log.length);
  return [...picked].sort((a, b) => a - b);
}

/** "N=12 (op path): what" lines, grouped by what went wrong: one line per kind with the crash points. */
function groupProblems(problems: string[]): string[] {
  const kinds = new Map<string, string[]>();
  for (const p of problems) {
    const m = /^N=(\d+)(?: \([^)]*\))?: (.*)$/.exec(p);
    const what = (m ? m[2]! : p).replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>');
    kinds.set(what, [...(kinds.get(what) ?? []), m ? m[1]! : '?']);
  }
  return [...kinds].map(([what, ns]) => `${what} [at N=${ns.slice(0, 8).join(',')}${ns.length > 8 ? `, … ${ns.length} points` : ''}]`);
}

/** The agent goes on after a recovery: one more batch on the draft. Returns why it failed, if it did. */
async function goOn(sh: Shadow): Promise<string | undefined> {
  try {
    const r = await sh.batch({ intent: 'go on', operations: [{ operation: 'write', path: 'README.md', content: 'next\n' }] });
    return r.success ? undefined : r.error?.message;
  } catch (e) {
    return (e as Error).message;
  }
}

const Crash = suite('apply: crash and recovery');

// memfs asks process.getuid()/getgid() on every permission check; caching them makes the sweep about a third faster.
const realIds = { getuid: process.getuid, getgid: process.getgid };
Crash.before(() => {
  const uid = process.getuid!();
  const gid = process.getgid!();
  process.getuid = () => uid;
  process.getgid = () => gid;
});
Crash.after(() => {
  process.getuid = realIds.getuid;
  process.getgid = realIds.getgid;
});

Crash('an apply of 200 files crashed at N, for N over its fs calls: every path is old or new, and reopening converges to new', async () => {
  const big = bigFixture();
  const repo = await memRepo(big.files);
  repo.write('dirty.txt', 'committed\nmine\n');
  repo.write('notes/untracked.txt', 'untracked\n');
  const sh = await openAs(repo);
  await batch(sh, big.ops, '200 paths');
  const frozen = freeze(repo.fs);

  // One full run, to count and see its calls.
  const { fs: probeFs, probe, result: full } = await probeRun(repo, frozen, (sh) => sh.apply());
  assert.is(full.paths.length, 200);
  assertPaths(probeFs, big.after);
  const log = [...probe.log];
  assert.ok(log.length > 1000, `an apply of 200 paths makes many fs calls (${log.length})`);
  const points = crashPoints(log, 40);

  const problems: string[] = [];
  let interrupted = 0;
  // Crashing at a call in (journal made, record made] leaves a journal that the next open must finish.
  const journalMade = journalCalls(log).durable;
  const recordMade = log.find((c) => c.op === 'renameSync' && c.path!.includes('/applies/'))!.n;
  let finishedByRecovery = 0;
  for (const n of points) {
    const fs = thaw(frozen);
    const seam = new FsSeam(fs);
    const crashing = await openAs(repo, seam.fs, 201);
    seam.arm(n);
    try {
      await crashing.apply();
      problems.push(`N=${n}: the apply did not reach call ${n}`);
      continue;
    } catch (e) {
      if (!seam.crashed) {
        problems.push(`N=${n}: failed with ${(e as Error).message} instead of crashing`);
        continue;
      }
    }
    interrupted++;
    const torn = oldOrNew(fs, big.before, big.after);
    if (torn.length > 0) problems.push(`N=${n} (${log[n - 1]!.op} ${log[n - 1]!.path}): neither old nor new after the crash: ${torn.slice(0, 3).join(', ')}`);
    const started = completeJournals(fs).length > 0 || records(fs).length > 0;

    const reopened = await openAs(repo, fs, 202); // opening recovers
    if (journals(fs).length > 0) problems.push(`N=${n}: a journal is left after reopening`);
    const report = reopened.recovered;
    if (report && (report.failed.length > 0 || report.unreadable.length > 0 || report.finished.some((f) => f.conflicts.length > 0))) {
      problems.push(`N=${n}: recovery reported ${JSON.stringify(report).slice(0, 300)}`);
    }
    if (report?.finished.length) finishedByRecovery++;
    else if (n > journalMade && n <= recordMade) problems.push(`N=${n} (${log[n - 1]!.op} ${log[n - 1]!.path}): opening did not finish the interrupted apply`);
    if (!started) {
      const notOld = Object.keys(big.before).filter((p) => nodeAt(fs, p) !== big.before[p]);
      if (notOld.length > 0) problems.push(`N=${n}: crashed before the journal, yet ${notOld.slice(0, 3).join(', ')} changed`);
      try {
        await reopened.apply();
      } catch (e) {
        problems.push(`N=${n}: applying again after an early crash failed: ${(e as Error).message}`);
        continue;
      }
    }
    const notNew = Object.keys(big.after).filter((p) => nodeAt(fs, p) !== big.after[p]);
    if (notNew.length > 0) problems.push(`N=${n} (${log[n - 1]!.op} ${log[n - 1]!.path}): not new after recovery: ${notNew.slice(0, 3).join(', ')}`);
    const leftovers = temps(fs);
    if (leftovers.length > 0) problems.push(`N=${n}: temp files left: ${leftovers.slice(0, 3).join(', ')}`);
    for (const dir of ['del', 'ren']) if (fs.existsSync(`${ROOT}/${dir}`)) problems.push(`N=${n} (${log[n - 1]!.op} ${log[n - 1]!.path}): the emptied directory ${dir}/ is left after recovery`);
    for (const [p, want] of Object.entries(BIG_UNTOUCHED)) if (nodeAt(fs, p) !== want) problems.push(`N=${n}: untouched ${p} changed`);
    if (records(fs).length !== 1) problems.push(`N=${n}: ${records(fs).length} apply records`);
    const plan = await reopened.apply({ dryRun: true });
    if (plan.paths.length !== 0) problems.push(`N=${n}: ${plan.paths.length} paths still due after recovery`);
    if (log[n - 1]!.path?.startsWith(SHADOW)) {
      // A crash while shadow's own state was being written must not stop the agent from going on.
      const failure = await goOn(reopened);
      if (failure) problems.push(`N=${n} (${log[n - 1]!.op} ${log[n - 1]!.path}): the next batch failed: ${failure}`);
    }
  }
  assert.equal(groupProblems(problems), [], `${problems.length} problems over ${points.length} crash points`);
  assert.ok(interrupted === points.length && points.length >= 120, `${interrupted} of ${points.length} crash points`);
  assert.ok(finishedByRecovery >= 60, `recovery finished ${finishedByRecovery} applies`);
});

Crash('an unapply crashed at every call: every path is applied or restored, and reopening converges to the state before the apply', async () => {
  const repo = await memRepo(FILES);
  for (const [p, c] of Object.entries(USER_FILES)) repo.write(p, c);
  repo.write('a.txt', 'a\nlocal\n');
  const sh = await openAs(repo);
  await batch(sh, DRAFT_OPS);
  const pristine = worktree(repo.fs);
  await sh.apply();
  const frozen = freeze(repo.fs);

  const { fs: probeFs, probe } = await probeRun(repo, frozen, (sh) => sh.unapply());
  const total = probe.calls;
  const log = [...probe.log];
  assert.equal(worktree(probeFs), pristine);

  const problems: string[] = [];
  for (let n = 1; n <= total; n++) {
    const fs = thaw(frozen);
    const seam = new FsSeam(fs);
    const crashing = await openAs(repo, seam.fs, 201);
    seam.arm(n);
    try {
      await crashing.unapply();
      problems.push(`N=${n}: no crash`);
      continue;
    } catch (e) {
      if (!seam.crashed) {
        problems.push(`N=${n}: ${(e as Error).message}`);
        continue;
      }
    }
    const torn = oldOrNew(fs, AFTER, BEFORE);
    if (torn.length > 0) problems.push(`N=${n}: torn ${torn.join(', ')}`);
    const reopened = await openAs(repo, fs, 202);
    if (records(fs).length === 1) {
      // Crashed before the unapply's journal: the apply stands; unapply again.
      try {
        await reopened.unapply();
      } catch (e) {
        problems.push(`N=${n}: unapplying again after an early crash failed: ${(e as Error).message}`);
        continue;
      }
    }
    const now = worktree(fs);
    if (JSON.stringify(now) !== JSON.stringify(pristine)) {
      const diff = Object.keys({ ...now, ...pristine }).filter((p) => now[p] !== pristine[p]);
      problems.push(`N=${n} (${log[n - 1]!.op} ${log[n - 1]!.path}): not restored after recovery: ${diff.slice(0, 3).join(', ')}`);
    }
    if (records(fs).length !== 0 || journals(fs).length !== 0) problems.push(`N=${n}: records ${records(fs).length}, journals ${journals(fs).length}`);
    if (log[n - 1]!.path?.startsWith(SHADOW)) {
      const failure = await goOn(reopened);
      if (failure) problems.push(`N=${n} (${log[n - 1]!.op} ${log[n - 1]!.path}): the next batch failed: ${failure}`);
    }
  }
  assert.ok(total > 50, `${total} calls`);
  assert.equal(groupProblems(problems), [], `${problems.length} problems over ${total} crash points`);
});

Crash('an apply --commit crashed at each call from its journal on: reopening finishes the files, the branch (one reflog line in its log and one in HEAD\'s) and the index (the dead apply\'s own locks are taken over)', async () => {
  const repo = await memRepo({ 'README.md': 'Hello\n', 'a.txt': 'a\n', 'old/gone.txt': 'gone\n', 'src/app.ts': 'export {}\n' });
  const sh = await openAs(repo);
  await batch(sh, [
    { operation: 'write', path: 'a.txt', content: 'A\n' },
    { operation: 'delete', path: 'old/gone.txt' },
    { operation: 'write', path: 'src/new/f.ts', content: 'f\n' },
  ]);
  repo.write('README.md', 'staged by the user\n');
  await git.add({ fs: repo.fs, dir: ROOT, filepath: 'README.md' });
  const tip = await git.resolveRef({ fs: repo.fs, dir: ROOT, ref: 'refs/shadow/drafts/default' });
  const root = await git.resolveRef({ fs: repo.fs, dir: ROOT, ref: 'main' });
  const frozen = freeze(repo.fs);
  // Lines of a log that record the apply's move (the memfs repository has no reflog before it).
  const moves = (fs: FileSystem, log: string): number =>
    (fs.existsSync(`${ROOT}/.git/logs/${log}`) ? String(fs.readFileSync(`${ROOT}/.git/logs/${log}`, 'utf8')) : '')
      .split('\n')
      .filter((l) => l.startsWith(`${root} ${tip} `)).length;
  const expectedStatus = [
    ['README.md', 1, 2, 2],
    ['a.txt', 1, 1, 1],
    ['src/app.ts', 1, 1, 1],
    ['src/new/f.ts', 1, 1, 1],
  ];

  const { fs: probeFs, probe, result: r } = await probeRun(repo, frozen, (sh) => sh.apply({ commit: true }));
  assert.is(r.branch?.how, 'fast-forward');
  assert.equal(await git.statusMatrix({ fs: probeFs as never, dir: ROOT }), expectedStatus);
  const log = [...probe.log];
  const from = journalCalls(log).durable;

  const problems: string[] = [];
  let sawGitLock = 0;
  const GIT_LOCKS = [`${ROOT}/.git/index.lock`, `${ROOT}/.git/refs/heads/main.lock`, `${ROOT}/.git/HEAD.lock`];
  for (let n = from; n <= log.length; n++) {
    const fs = thaw(frozen);
    const seam = new FsSeam(fs);
    const crashing = await openAs(repo, seam.fs, 201);
    seam.arm(n);
    try {
      await crashing.apply({ commit: true });
      problems.push(`N=${n}: no crash`);
      continue;
    } catch (e) {
      if (!seam.crashed) {
        problems.push(`N=${n}: ${(e as Error).message}`);
        continue;
      }
    }
    const where = `(${log[n - 1]!.op} ${log[n - 1]!.path})`;
    const staleGitLocks = GIT_LOCKS.filter((l) => fs.existsSync(l));
    const reopened = await openAs(repo, fs, 202);
    if (staleGitLocks.length > 0) {
      sawGitLock++;
      // The dead apply's own locks record it as their holder: recovery takes them over, nobody removes a file.
      const failed = reopened.recovered?.failed ?? [];
      if (failed.length > 0) problems.push(`N=${n} ${where}: recovery failed with ${staleGitLocks.join(', ')} left: ${failed[0]!.error}`);
    }
    if (journals(fs).length > 0) problems.push(`N=${n} ${where}: a journal is left after reopening: ${JSON.stringify(reopened.recovered?.failed ?? []).slice(0, 200)}`);
    if (records(fs).length === 0 && journals(fs).length === 0) {
      try {
        await reopened.apply({ commit: true });
      } catch (e) {
        problems.push(`N=${n} ${where}: applying again failed: ${(e as Error).message}`);
        continue;
      }
    }
    const main = await git.resolveRef({ fs: fs as never, dir: ROOT, ref: 'main' });
    if (main !== tip) problems.push(`N=${n} ${where}: main is not at the draft tip`);
    for (const l of ['refs/heads/main', 'HEAD']) if (moves(fs, l) !== 1) problems.push(`N=${n} ${where}: logs/${l} records the move ${moves(fs, l)} times`);
    const st = await git.statusMatrix({ fs: fs as never, dir: ROOT });
    if (JSON.stringify(st) !== JSON.stringify(expectedStatus)) problems.push(`N=${n} ${where}: status ${JSON.stringify(st)}`);
    if (fs.existsSync(`${ROOT}/old`)) problems.push(`N=${n} ${where}: the emptied directory old/ is left`);
    if (temps(fs).length > 0) problems.push(`N=${n} ${where}: temp files left`);
    if (GIT_LOCKS.some((l) => fs.existsSync(l))) problems.push(`N=${n} ${where}: a git lock is left after recovery`);
  }
  assert.equal(groupProblems(problems), [], `${problems.length} problems over ${log.length - from + 1} crash points`);
  assert.ok(sawGitLock > 0, 'some crash points fell while the index or the branch was locked');
});

Crash('a path the user changed between the crash and the recovery is reported and kept; leftover temp files are removed', async () => {
  const repo = await memRepo(FILES);
  const sh = await openAs(repo);
  await batch(sh, [
    { operation: 'write', path: 'a.txt', content: 'A\n' },
    { operation: 'write', path: 'src/app.ts', content: 'export const app = 2\n' },
    { operation: 'write', path: 'src/lib/util.ts', content: 'export const u = 2\n' },
  ]);
  const seam = new FsSeam(repo.fs);
  const crashing = await openAs(repo, seam.fs, 201);
  // Crash at the rename of src/app.ts: a.txt is renamed into place; src/app.ts and
  // src/lib/util.ts (staged in the same window of writes) have complete temp files.
  seam.onCall = (_n, op, path) => {
    if (op === 'renameSync' && path === `${ROOT}/src/app.ts`) seam.die(op);
  };
  seam.arm();
  try {
    await crashing.apply();
    assert.unreachable('the apply should crash');
  } catch (e) {
    assert.ok(seam.crashed, (e as Error).message);
  }
  assert.is(repo.read('a.txt'), 'A\n');
  assert.is(repo.read('src/app.ts'), 'export {}\n');
  assert.is(temps(repo.fs).length, 2, 'the crash left the temp files of the window');
  repo.write('src/lib/util.ts', 'the user meanwhile\n');

  const reopened = await openAs(repo, repo.fs, 202);
  const report = reopened.recovered!;
  assert.is(report.finished.length, 1);
  assert.equal(
    report.finished[0]!.conflicts.map((c) => [c.path, c.expected, c.found]),
    [['src/lib/util.ts', blobOid('export const u = 1\n'), 'modified']],
  );
  assert.ok(report.finished[0]!.written.includes('src/app.ts'));
  assert.is(repo.read('src/app.ts'), 'export const app = 2\n');
  assert.is(repo.read('src/lib/util.ts'), 'the user meanwhile\n', 'not overwritten');
  assert.equal(temps(repo.fs), []);
  assert.equal(journals(repo.fs), []);
  // The path left alone keeps its old base: publishing it now is a conflict, the rest is published.
  const plan = await reopened.apply({ dryRun: true });
  assert.equal(plan.paths.map((p) => p.path), ['src/lib/util.ts']);
  assert.equal(plan.conflicts.map((c) => [c.path, c.found]), [['src/lib/util.ts', 'modified']]);
  // Recovery with nothing interrupted is a no-op.
  const again = await reopened.recover();
  assert.equal(again, { finished: [], failed: [], unreadable: [], elsewhere: [] });
});

Crash('a journal a crash cut short while it was made is dropped by recovery; one damaged later is reported and kept; without the apply lock nothing is removed', async () => {
  const repo = await memRepo(FILES);
  const sh = await openAs(repo);
  await batch(sh, [{ operation: 'write', path: 'a.txt', content: 'A\n' }]);
  const dir = `${SHADOW}/journal`;
  repo.fs.mkdirSync(dir, { recursive: true });
  repo.fs.writeFileSync(`${dir}/11111111-0000-4000-8000-000000000001.json`, ''); // created, never written
  repo.fs.writeFileSync(`${dir}/11111111-0000-4000-8000-000000000002.json`, '{"version":1,"id":"11111111-0000-4000-8000-0000'); // torn mid-write
  repo.fs.writeFileSync(`${dir}/11111111-0000-4000-8000-000000000003.json`, '{"version":1,"id":"x","kind":"apply",\u0000\u0000}\n'); // whole, then damaged
  repo.fs.writeFileSync(`${dir}/11111111-0000-4000-8000-000000000004.json.tmp-abc`, '{"version":1'); // a rewrite cut short

  // A reader that does not hold the apply lock (another process may be making its journal) removes nothing.
  const { readJournals } = await import('../src/state/journal.js');
  const seen = readJournals({ ...repo.ctx, fs: repo.fs }, SHADOW);
  assert.equal(seen.journals, []);
  assert.is(seen.unreadable.length, 3);
  assert.is(listNames(repo.fs, dir).length, 4);

  const reopened = await openAs(repo, repo.fs, 202);
  assert.equal(reopened.recovered!.unreadable, [`${dir}/11111111-0000-4000-8000-000000000003.json`]);
  assert.equal(reopened.recovered!.finished, []);
  assert.equal(listNames(repo.fs, dir), ['11111111-0000-4000-8000-000000000003.json']);
  assert.is(repo.read('a.txt'), FILES['a.txt'], 'nothing was written');
  // A damaged journal is reported, not in the way: the draft still applies.
  const r = await reopened.apply();
  assert.is(r.applied, true);
  assert.is(repo.read('a.txt'), 'A\n');
});

Crash.run();
