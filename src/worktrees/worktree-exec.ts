import type { Stats } from 'node:fs';
import { ShadowError, errnoCode } from '../errors.js';
import { MODE, type Oid } from '../git/format/git-objects.js';
import { diffTrees } from '../git/format/tree-diff.js';
import { isInside } from '../core/path-rules.js';
import { listDir } from '../durable/durable-file.js';
import { takeProcessLock, type HeldLock } from '../durable/process-lock.js';
import { Manifest, statEntry } from '../state/worktree-manifest.js';
import {
  listWorktreeRecords,
  MARKER,
  removeWorktreeRecord,
  writeMarker,
  writeWorktreeRecord,
  type WorktreeRecord,
} from '../state/worktree-state.js';
import { checkWorktree, loadDraft, type Draft } from '../drafts/drafts.js';
import { gateDraftWrite } from '../drafts/path-gate.js';
import type { Workspace } from '../drafts/workspace.js';
import { checkShare, configuredShares, linkShare, type ShareResult } from './worktree-share.js';

/**
 * The directory `shadow exec` runs commands in: one git worktree per draft
 * (`git worktree add --detach` at the draft's tip), kept between calls and
 * brought to the tip by git itself (`git reset --hard <tip>` writes only
 * the files that differ), with the person's dependency directories linked
 * in (worktree-share.ts). It is also a shadow worktree (a record and a
 * manifest), so `exec --record` turns what the command changed into a
 * batch exactly as `worktree record` does.
 *
 * It shows the draft's tip, a commit: what the person has not committed in
 * their own working tree is not in it (a build must be reproducible from
 * the draft, and `git status` there is clean).
 */

export interface ExecWorktree {
  dir: string;
  draft: string;
  tip: Oid;
  /** Made by this call (absent, or deleted by hand). */
  created: boolean;
  /** Files git wrote to bring it to the tip. */
  changed: string[];
  /** What a previous command left there and this call reset (not recorded, so not kept). */
  discarded: string[];
  shares: ShareResult[];
}

/** git's environment, without what would point it at another repository. */
function gitEnv(ws: Workspace): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...ws.ctx.env };
  for (const k of [
    'GIT_DIR',
    'GIT_WORK_TREE',
    'GIT_INDEX_FILE',
    'GIT_COMMON_DIR',
    'GIT_PREFIX',
    'GIT_OBJECT_DIRECTORY',
  ])
    delete env[k];
  return env;
}

/** Run native git in `cwd`; a failure is an IO_ERROR with git's own words. */
export function git(
  ws: Workspace,
  cwd: string,
  args: string[],
  options: { allowFail?: boolean } = {},
): { status: number | null; stdout: string } {
  const runner = ws.ctx.git;
  if (!runner)
    throw new ShadowError('UNSUPPORTED_REPOSITORY', 'an exec worktree needs native git, and this context has none', {
      hint: 'run it with git on the PATH',
    });
  // git checks out with both path protections on here, whatever the system: the tree may be anyone's.
  const r = runner.run(['-c', 'core.protectNTFS=true', '-c', 'core.protectHFS=true', ...args], {
    cwd,
    env: gitEnv(ws),
  });
  if (r.status !== 0 && !options.allowFail) {
    throw new ShadowError('IO_ERROR', `git ${args[0]} failed in ${cwd}: ${r.stderr.trim()}`, {
      data: { args, status: r.status },
    });
  }
  return { status: r.status, stdout: r.stdout.toString('utf8') };
}

/** Where a draft's exec worktree lives: `shadow.execDir`, else `<working tree>.shadow-exec/` beside the working tree. */
export function execDirOf(ws: Workspace, draft: string): string {
  const wt = ws.repo.layout.worktree;
  if (wt === null)
    throw new ShadowError('UNSUPPORTED_REPOSITORY', 'a bare repository has no working tree to run a command beside', {
      hint: 'run it in a repository with a working tree',
    });
  const configured = ws.repo.config.get('shadow.execdir');
  const base = configured ? (configured.startsWith('/') ? configured : `${wt}/../${configured}`) : `${wt}.shadow-exec`;
  const dir = `${normalize(base)}/${encodeURIComponent(draft)}`;
  // Inside the working tree the person's tools would see a second copy; inside .git, tools that skip /.git/ paths (jest's) would see nothing.
  for (const inner of [wt, ws.repo.layout.commondir]) {
    if (dir === inner || isInside(dir.slice(1), inner.slice(1))) {
      throw new ShadowError('INVALID_TARGET', `shadow.execDir puts ${dir} inside ${inner}`, {
        hint: 'set shadow.execDir to a directory beside the repository',
        data: { dir },
      });
    }
  }
  return dir;
}

function normalize(p: string): string {
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

function exists(ws: Workspace, path: string): boolean {
  try {
    ws.ctx.fs.lstatSync(path);
    return true;
  } catch (e) {
    if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR') return false;
    throw e;
  }
}

/** The marker is shadow's, not the project's: git's shared exclude file keeps it out of every worktree's `git status`. */
function excludeMarker(ws: Workspace): void {
  const file = `${ws.repo.layout.commondir}/info/exclude`;
  let text = '';
  try {
    text = ws.ctx.fs.readFileSync(file, 'utf8') as string;
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw e;
  }
  const line = `/${MARKER}`;
  if (text.split('\n').includes(line)) return;
  ws.ctx.fs.mkdirSync(`${ws.repo.layout.commondir}/info`, { recursive: true });
  ws.ctx.fs.appendFileSync(
    file,
    `${text === '' || text.endsWith('\n') ? '' : '\n'}# shadow's worktree marker\n${line}\n`,
  );
}

/**
 * The path gate on the whole tree git checks out at the draft's tip: every
 * path where it differs from the working tree's HEAD (checked out there
 * already), the whole tree when there is no HEAD. Cost: what differs.
 */
function gateCheckout(ws: Workspace, source: string, draft: Draft): void {
  const head = git(ws, source, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { allowFail: true }).stdout.trim();
  const objects = ws.repo.objects;
  const from = head === '' || !objects.has(head) ? null : objects.readCommit(head).tree;
  const changed = diffTrees(objects, from, objects.readCommit(draft.tip).tree)
    .filter((c) => c.new !== null)
    .map((c) => c.path);
  gateDraftWrite(ws, draft.tip, draft.name, [], changed);
}

/** The exec worktree's record for `dir`, if shadow made one. */
export function execRecordAt(ws: Workspace, dir: string): WorktreeRecord | undefined {
  return listWorktreeRecords(ws.ctx, ws.repo.shadowDir).find((r) => r.dir === dir && r.exec !== undefined);
}

/** After `worktree record` wrote the draft's new tip there: git's HEAD and index to it, so `git status` stays clean. */
export function alignExecHead(ws: Workspace, rec: WorktreeRecord): void {
  if (!rec.exec || rec.synced_tip === null || !exists(ws, `${rec.dir}/.git`)) return;
  git(ws, rec.dir, ['reset', '-q', rec.synced_tip]);
}

/** Delete an exec worktree's directory and unregister it (a dropped draft's, or `worktree remove`). */
export function removeExecWorktree(ws: Workspace, rec: WorktreeRecord): void {
  if (exists(ws, rec.dir)) removeTree(ws, rec.dir);
  dropExecWorktree(ws, rec);
}

/** Unregister an exec worktree from git and forget it (its directory already gone, or going). */
export function dropExecWorktree(ws: Workspace, rec: WorktreeRecord): void {
  if (rec.exec && exists(ws, rec.exec.admin)) {
    // git's own way when the directory is there; when it was deleted by hand, what `git worktree prune` would do for this one entry only.
    const r = exists(ws, `${rec.dir}/.git`)
      ? git(ws, ws.repo.layout.commondir, ['worktree', 'remove', '--force', '--force', rec.dir], { allowFail: true })
      : { status: 1 };
    if (r.status !== 0) git(ws, ws.repo.layout.commondir, ['worktree', 'prune'], { allowFail: true });
  }
  removeWorktreeRecord(ws.ctx, ws.repo.shadowDir, rec.id);
}

/** The manifest of every file git checked out (O(files): the first call only). */
function manifestFromIndex(ws: Workspace, dir: string, id: string): Manifest {
  const out = git(ws, dir, ['ls-files', '-s', '-z'])
    .stdout.split('\0')
    .filter((l) => l !== '');
  const manifest = Manifest.create(ws.ctx, ws.repo.shadowDir, id, out.length);
  for (const line of out) {
    const tab = line.indexOf('\t');
    const [mode, oid] = line.slice(0, tab).split(' ');
    const path = line.slice(tab + 1);
    if (mode === MODE.gitlink) continue;
    try {
      manifest.set(path, statEntry(ws.ctx.fs.lstatSync(`${dir}/${path}`) as Stats, oid!, mode!));
    } catch (e) {
      if (errnoCode(e) !== 'ENOENT') throw e; // sparse, or skipped by a filter: not shadow's to record
    }
  }
  return manifest;
}

/** `git status`'s paths, without its renames' sources (one entry each). */
function dirtyPaths(ws: Workspace, dir: string): string[] {
  const fields = git(ws, dir, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames']).stdout.split(
    '\0',
  );
  return fields.filter((f) => f.length > 3).map((f) => f.slice(3));
}

function create(
  ws: Workspace,
  draft: string,
  dir: string,
  tip: Oid,
  stale: WorktreeRecord | undefined,
): WorktreeRecord {
  if (stale) dropExecWorktree(ws, stale);
  const commondir = ws.repo.layout.commondir;
  ws.ctx.fs.mkdirSync(dir.slice(0, dir.lastIndexOf('/')), { recursive: true });
  // -f: a registration whose directory was deleted by hand does not block the path.
  git(ws, commondir, ['worktree', 'add', '--detach', '-f', '--quiet', dir, tip]);
  const admin = git(ws, dir, ['rev-parse', '--absolute-git-dir']).stdout.trim();
  const id = ws.ctx.ids.uuid();
  const manifest = manifestFromIndex(ws, dir, id);
  const draftObj = loadDraft(ws, draft);
  const now = new Date(ws.ctx.clock.now()).toISOString();
  const rec: WorktreeRecord = {
    version: 1,
    id,
    dir,
    draft,
    synced_tip: tip,
    owned: draftObj ? draftObj.bases.paths() : [],
    manifest_shards: manifest.shardCount,
    exec: { admin, shares: [] },
    created_at: now,
    updated_at: now,
  };
  writeMarker(ws.ctx, dir, { version: 1, repository: ws.repo.layout.worktree!, id, draft });
  manifest.save();
  writeWorktreeRecord(ws.ctx, ws.repo.shadowDir, rec, { durable: true });
  return rec;
}

/**
 * Bring the kept worktree to `tip`: first git's HEAD to what shadow last
 * left there (a `worktree record` moves the files, not HEAD), then what a
 * previous command left is reset (it was not recorded: exec never kept it,
 * as when each call had a new directory; ignored build output stays, which
 * is what makes the next build incremental), then git writes what differs.
 */
function sync(
  ws: Workspace,
  rec: WorktreeRecord,
  tip: Oid,
  resetDirty: boolean,
): { rec: WorktreeRecord; changed: string[]; discarded: string[] } {
  const dir = rec.dir;
  const head = git(ws, dir, ['rev-parse', '--verify', '-q', 'HEAD'], { allowFail: true }).stdout.trim();
  if (rec.synced_tip !== null && head !== rec.synced_tip) git(ws, dir, ['reset', '-q', rec.synced_tip]);
  const from = rec.synced_tip ?? head;
  const discarded = dirtyPaths(ws, dir);
  // A git worktree someone works in keeps their changes: they are recorded (or put back) first.
  if (discarded.length > 0 && !resetDirty) {
    throw new ShadowError(
      'WORKTREE_DIRTY',
      `${dir} holds ${discarded.length} change${discarded.length === 1 ? '' : 's'} not recorded: ${discarded.slice(0, 5).join(', ')}`,
      {
        hint: `record them first (\`shadow worktree record ${dir}\`), or put them back with git there (\`git -C ${dir} checkout -- .\`)`,
        data: { dir, paths: discarded },
      },
    );
  }
  git(ws, dir, ['reset', '-q', '--hard', tip]);
  if (discarded.length > 0) git(ws, dir, ['clean', '-q', '-f', '-d']);
  const objects = ws.repo.objects;
  const changed =
    from === tip
      ? []
      : diffTrees(objects, objects.readCommit(from).tree, objects.readCommit(tip).tree).map((c) => c.path);
  if (changed.length > 0 || discarded.length > 0) {
    const manifest = Manifest.open(ws.ctx, ws.repo.shadowDir, rec);
    const index = new Map<string, { mode: string; oid: string }>();
    const paths = [...new Set([...changed, ...discarded])];
    const listed = git(ws, dir, ['ls-files', '-s', '-z', '--', ...paths.map((p) => `:(literal)${p}`)]).stdout.split(
      '\0',
    );
    for (const line of listed) {
      if (line === '') continue;
      const tab = line.indexOf('\t');
      const [mode, oid] = line.slice(0, tab).split(' ');
      index.set(line.slice(tab + 1), { mode: mode!, oid: oid! });
    }
    for (const p of paths) {
      const k = index.get(p);
      if (!k || k.mode === MODE.gitlink || !exists(ws, `${dir}/${p}`)) manifest.delete(p);
      else manifest.set(p, statEntry(ws.ctx.fs.lstatSync(`${dir}/${p}`) as Stats, k.oid, k.mode));
    }
    manifest.save();
  }
  const draftObj = loadDraft(ws, rec.draft);
  const next: WorktreeRecord = {
    ...rec,
    synced_tip: tip,
    owned: draftObj ? draftObj.bases.paths() : [],
    conflicts: [],
    updated_at: new Date(ws.ctx.clock.now()).toISOString(),
  };
  return { rec: next, changed, discarded };
}

/** The draft's exec worktree at its tip: made the first time (or when deleted by hand), else synced by what changed. */
export function prepareExecWorktree(ws: Workspace, draftName: string): ExecWorktree {
  return prepareGitWorktree(ws, draftName, execDirOf(ws, draftName), true);
}

/** True when `dir` is the draft's own exec worktree (as opposed to one `worktree add --git` made elsewhere). */
export function isExecDir(ws: Workspace, draftName: string, dir: string): boolean {
  return ws.repo.layout.worktree !== null && execDirOf(ws, draftName) === dir;
}

/**
 * A git worktree of the draft at `dir`, at the draft's tip, with the
 * working tree's dependency directories linked in: made the first time,
 * else synced by what changed. Changes left there and not recorded are
 * reset when `resetDirty` (exec's own directory, which never kept them),
 * else refused (WORKTREE_DIRTY: `worktree add --git`, where a person works).
 */
export function prepareGitWorktree(ws: Workspace, draftName: string, dir: string, resetDirty: boolean): ExecWorktree {
  const source = ws.repo.layout.worktree;
  if (source === null)
    throw new ShadowError('UNSUPPORTED_REPOSITORY', 'a bare repository has no working tree to share from', {
      hint: 'run it in a repository with a working tree',
    });
  for (const inner of [source, ws.repo.layout.commondir]) {
    if (dir === inner || isInside(dir.slice(1), inner.slice(1))) {
      throw new ShadowError(
        'INVALID_TARGET',
        `${dir} is inside ${inner}: a git worktree of the draft goes beside the repository`,
        { hint: 'give a directory outside the working tree and .git, e.g. ../app-draft', data: { dir } },
      );
    }
  }
  const draft = loadDraft(ws, draftName);
  if (draft) checkWorktree(ws, draft, 'shadow exec');
  // A draft with no batch yet shows HEAD: the draft's tip once it has one.
  const tip = draft?.tip ?? git(ws, source!, ['rev-parse', '--verify', 'HEAD']).stdout.trim();
  if (draft) gateCheckout(ws, source!, draft);
  excludeMarker(ws);
  const known = execRecordAt(ws, dir);
  const alive =
    known !== undefined &&
    exists(ws, `${dir}/.git`) &&
    exists(ws, known.exec!.admin) &&
    git(ws, dir, ['rev-parse', '--git-dir'], { allowFail: true }).status === 0;
  if (!alive && exists(ws, dir)) {
    // Shadow's own, broken (its .git file or git's registration removed by hand): made again. Anything else is not shadow's to delete.
    if (!known) {
      if (listDir(ws.ctx.fs, dir).length > 0)
        throw new ShadowError('ALREADY_EXISTS', `${dir} exists and is not a worktree shadow made for the draft`, {
          hint: 'remove it or choose another directory (for exec: set shadow.execDir)',
          data: { dir },
        });
      ws.ctx.fs.rmdirSync(dir);
    } else removeTree(ws, dir);
  }
  let rec: WorktreeRecord;
  let changed: string[] = [];
  let discarded: string[] = [];
  let created = false;
  if (alive) {
    ({ rec, changed, discarded } = sync(ws, known, tip, resetDirty));
  } else {
    rec = create(ws, draftName, dir, tip, known);
    created = true;
  }
  const shares = configuredShares(ws).map((p) => {
    checkShare(ws, source!, p.replace(/\/+$/, ''));
    const ours = rec.exec!.shares.includes(p.replace(/\/+$/, ''));
    // A directory the project does not ignore would show in `git status` and be recorded into the draft: not shared.
    if (
      !ours &&
      git(ws, dir, ['check-ignore', '-q', '--', `${p.replace(/\/+$/, '')}/`], { allowFail: true }).status !== 0
    ) {
      return { path: p, status: 'skipped' as const, entries: 0 };
    }
    return linkShare(ws, source!, dir, p, ours);
  });
  rec = {
    ...rec,
    exec: { admin: rec.exec!.admin, shares: shares.filter((s) => s.status === 'linked').map((s) => s.path) },
  };
  writeWorktreeRecord(ws.ctx, ws.repo.shadowDir, rec, { durable: false });
  return { dir, draft: draftName, tip, created, changed, discarded, shares };
}

/**
 * The draft's exec worktree held for one command: two commands on one
 * draft would share the directory (and the second's sync would reset what
 * the first is writing), so the second is BUSY until the first calls
 * `release()`. A holder that died (SIGKILL) leaves a lock the next exec
 * takes over.
 */
export function holdExecWorktree(ws: Workspace, draftName: string): ExecWorktree & { release(): void } {
  const dir = `${ws.repo.shadowDir}/exec`;
  ws.ctx.fs.mkdirSync(dir, { recursive: true });
  let lock: HeldLock;
  try {
    lock = takeProcessLock(ws.ctx, `${dir}/${encodeURIComponent(draftName)}.lock`, 'shadow exec');
  } catch (e) {
    if (!(e instanceof ShadowError && e.code === 'LOCKED')) throw e;
    throw new ShadowError('BUSY', `another shadow exec runs in draft "${draftName}"'s worktree: ${e.message}`, {
      hint: "wait for it to finish; one command runs in a draft's exec worktree at a time",
      data: { draft: draftName, ...(e.data ?? {}) },
    });
  }
  try {
    return { ...prepareExecWorktree(ws, draftName), release: () => lock.release() };
  } catch (e) {
    lock.release();
    throw e;
  }
}

/** rm -r, never following a symlink (a shared entry is unlinked, never what it points at). */
export function removeTree(ws: Workspace, dir: string): void {
  const fs = ws.ctx.fs;
  for (const name of listDir(fs, dir)) {
    const path = `${dir}/${name}`;
    let st: Stats;
    try {
      st = fs.lstatSync(path) as Stats;
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') continue;
      throw e;
    }
    if (st.isDirectory()) removeTree(ws, path);
    else fs.unlinkSync(path);
  }
  fs.rmdirSync(dir);
}
