/**
 * Trees git's own plumbing writes but git's checkout refuses (`.git/hooks/x`,
 * `..`, `git~1`, a symlink with a file beyond it): made with `git
 * hash-object -w`, `git mktree` and `git commit-tree`, which check nothing,
 * so that tests can hand shadow what a hostile remote or a hand-made
 * commit would.
 */
import { spawnSync } from 'node:child_process';
import type { DiskRepo } from './disk-repo.js';

/** One entry to put in a crafted tree: a blob (or a symlink whose target is `content`). */
export interface CraftedEntry {
  path: string;
  mode?: string;
  content?: string;
}

interface Node {
  files: string[];
  dirs: Map<string, Node>;
}

function node(): Node {
  return { files: [], dirs: new Map() };
}

function place(root: Node, path: string, line: (name: string) => string): void {
  const parts = path.split('/');
  let at = root;
  for (const dir of parts.slice(0, -1)) {
    let next = at.dirs.get(dir);
    if (!next) at.dirs.set(dir, (next = node()));
    at = next;
  }
  at.files.push(line(parts[parts.length - 1]!));
}

function mktree(repo: DiskRepo, lines: readonly string[]): string {
  const r = spawnSync('git', ['mktree', '-z'], {
    cwd: repo.dir,
    env: repo.env,
    input: lines.map((l) => `${l}\0`).join(''),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`git mktree failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** Write a blob with `content`; its id. */
export function blobOf(repo: DiskRepo, content: string): string {
  const r = spawnSync('git', ['hash-object', '-w', '--stdin'], {
    cwd: repo.dir,
    env: repo.env,
    input: content,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`git hash-object failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** A tree of `base`'s entries (a tree-ish, or none) with `entries` added, built level by level with git mktree. */
export function craftTree(repo: DiskRepo, entries: readonly CraftedEntry[], base?: string): string {
  const root = node();
  if (base) {
    const listing = repo.git('ls-tree', '-r', '-z', base);
    for (const rec of listing.split('\0')) {
      if (!rec) continue;
      const tab = rec.indexOf('\t');
      const [mode, type, oid] = rec.slice(0, tab).split(' ');
      const path = rec.slice(tab + 1);
      if (entries.some((e) => e.path === path)) continue;
      place(root, path, (name) => `${mode} ${type} ${oid}\t${name}`);
    }
  }
  for (const e of entries) {
    const oid = blobOf(repo, e.content ?? `crafted ${e.path}\n`);
    place(root, e.path, (name) => `${e.mode ?? '100644'} blob ${oid}\t${name}`);
  }
  return writeTree(repo, root);
}

function writeTree(repo: DiskRepo, n: Node): string {
  const lines = [...n.files];
  for (const [name, sub] of n.dirs) lines.push(`040000 tree ${writeTree(repo, sub)}\t${name}`);
  return mktree(repo, lines);
}

/** A commit of `tree` on `parent` (none: a root commit), with `message`. */
export function craftCommit(repo: DiskRepo, tree: string, parent?: string, message = 'crafted'): string {
  const args = ['commit-tree', tree, '-m', message, ...(parent ? ['-p', parent] : [])];
  return repo.git(...args).trim();
}

/** `craftTree` on `parent`'s tree, committed on `parent`. */
export function craftOn(repo: DiskRepo, parent: string, entries: readonly CraftedEntry[], message = 'crafted'): string {
  return craftCommit(repo, craftTree(repo, entries, parent), parent, message);
}

/**
 * Put `commit` on the draft's ref with plain git, as a commit that reaches
 * a draft by any route but a batch would be (a ref moved by hand, a tool
 * that writes refs): shadow's own rollback takes only the draft's points.
 */
export function moveDraftByHand(repo: DiskRepo, draft: string, commit: string): void {
  repo.git('update-ref', '-m', 'moved by hand', `refs/shadow/drafts/${draft}`, commit);
}
