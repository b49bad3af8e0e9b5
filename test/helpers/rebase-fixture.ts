import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { Volume, createFsFromVolume } from 'memfs';
import { openShadow, type Clock, type FileSystem, type Shadow } from '../../src/index.js';
import { DiskRepo } from './disk-repo.js';

/*
 * A repository for crashing rebases: a draft that edits, creates and
 * deletes; a person's branch (`person`) and uncommitted working-tree edits
 * that touch some of the same files on other lines (merged), on the same
 * lines (conflicts), the same way (absorbed), and files the draft left
 * alone. Either target (the working tree, or `--onto person`) makes a
 * rebase that writes blobs, trees, a base commit (the working tree's) and
 * the merge commit, then moves the ref.
 */

export const DRAFT = 'rb';
export const ACTOR = 'agent';

/** Twelve numbered lines tagged with the file's name. */
function lines(tag: string): string[] {
  return Array.from({ length: 12 }, (_, i) => `${tag}: line ${i + 1}`);
}

const text = (ls: readonly string[]): string => `${ls.join('\n')}\n`;

/** `tag`'s file with line `n` (1-based) replaced. */
function edited(tag: string, n: number, replacement: string): string {
  const ls = lines(tag);
  ls[n - 1] = replacement;
  return text(ls);
}

const FILES: Record<string, string> = { 'README.md': 'Hello\n', 'gone.txt': 'bye\n' };
for (let i = 0; i < 8; i++) FILES[`src/f${i}.txt`] = text(lines(`f${i}`));
FILES['docs/guide.md'] = text(lines('guide'));

/** The draft's one batch: line 2 of f0..f5 and line 3 of the guide; a file made in a new directory, one deleted. */
const DRAFT_OPS = [
  ...[0, 1, 2, 3, 4, 5].map((i) => ({
    operation: 'write' as const,
    path: `src/f${i}.txt`,
    content: edited(`f${i}`, 2, `f${i}: the draft's line 2`),
  })),
  { operation: 'write' as const, path: 'docs/guide.md', content: edited('guide', 3, 'guide: both wrote this') },
  { operation: 'write' as const, path: 'src/new/made.txt', content: 'made by the draft\n' },
  { operation: 'delete' as const, path: 'gone.txt' },
];

/** The person's commit on `person`: f0, f1 on line 10 (merge), f2 on line 2 (conflict), the guide as the draft has it (absorbed), f6 (not the draft's). */
const PERSON: Record<string, string> = {
  'src/f0.txt': edited('f0', 10, "f0: the person's line 10"),
  'src/f1.txt': edited('f1', 10, "f1: the person's line 10"),
  'src/f2.txt': edited('f2', 2, "f2: the person's line 2"),
  'docs/guide.md': edited('guide', 3, 'guide: both wrote this'),
  'src/f6.txt': edited('f6', 5, "f6: the person's line 5"),
};

/** Uncommitted edits on main: f3 on line 11 (merge), f4 on line 2 (conflict), f7 (not the draft's). */
const WORKTREE: Record<string, string> = {
  'src/f3.txt': edited('f3', 11, "f3: the person's line 11"),
  'src/f4.txt': edited('f4', 2, "f4: the person's line 2"),
  'src/f7.txt': edited('f7', 7, "f7: the person's line 7"),
};

export type Target = 'worktree' | 'person';

/** What each target's rebase leaves in conflict. */
export const CONFLICTS: Record<Target, string[]> = { worktree: ['src/f4.txt'], person: ['src/f2.txt'] };

/** The files committed on main, and the person's branch beside it; the working tree clean, on main. */
export function personRepo(): DiskRepo {
  const repo = new DiskRepo(FILES);
  repo.git('config', 'gc.auto', '0');
  repo.git('checkout', '-q', '-b', 'person');
  for (const [p, c] of Object.entries(PERSON)) repo.write(p, c);
  repo.git('commit', '-q', '-am', "the person's work");
  repo.git('checkout', '-q', 'main');
  return repo;
}

/** The draft and its one batch, made before the person edits the working tree (the draft's bases are HEAD's). */
export async function makeDraft(sh: Shadow): Promise<void> {
  await sh.draftNew(DRAFT);
  const r = await sh.batch({ intent: 'the draft', operations: DRAFT_OPS }, { draft: DRAFT });
  if (!r.success) throw new Error(`the draft's batch failed: ${JSON.stringify(r.error)}`);
}

/** The person's uncommitted edits, through `write`. */
export function editWorktree(write: (path: string, content: string) => void): void {
  for (const [p, c] of Object.entries(WORKTREE)) write(p, c);
}

/** The repository described above, on disk; the draft's tip before any rebase is `tip`. */
export async function rebaseRepo(): Promise<{ repo: DiskRepo; tip: string }> {
  const repo = personRepo();
  const sh = await openShadow({ dir: repo.dir, env: repo.env });
  try {
    await makeDraft(sh);
  } finally {
    sh.close();
  }
  editWorktree((p, c) => repo.write(p, c));
  return { repo, tip: repo.ref(`refs/shadow/drafts/${DRAFT}`)! };
}

/** The rebase of the draft onto `target`, as `sh.rebase` takes it. */
export function rebaseOptions(target: Target): { draft: string; actor: string; onto?: string } {
  return target === 'person' ? { draft: DRAFT, actor: ACTOR, onto: 'person' } : { draft: DRAFT, actor: ACTOR };
}

/**
 * A clock that reads the same at every run (and moves only when code
 * sleeps): two rebases of the same state under it make the same commit, so
 * a crashed run's ref can be held against a whole run's.
 */
export function frozenClock(): Clock {
  let now = Date.UTC(2026, 10, 26, 12, 0, 0);
  return {
    now: () => now,
    tzOffsetMinutes: () => 0,
    sleep: async (ms: number) => {
      now += ms;
      await new Promise<void>((r) => setImmediate(r));
    },
  };
}

/** A repository on disk copied into a new memfs volume at `/repo` (execute bits kept): a power-loss run's starting disk. */
export function intoVolume(from: string): FileSystem {
  const fs = createFsFromVolume(new Volume()) as unknown as FileSystem & { chmodSync(p: string, m: number): void };
  const walk = (src: string, dest: string): void => {
    fs.mkdirSync(dest, { recursive: true });
    for (const e of nodeFs.readdirSync(src, { withFileTypes: true })) {
      const a = join(src, e.name);
      const b = `${dest}/${e.name}`;
      if (e.isDirectory()) walk(a, b);
      else if (e.isFile()) {
        fs.writeFileSync(b, nodeFs.readFileSync(a));
        // Writable by its owner: git's read-only loose objects could not be rebuilt by crash-states.ts's mount, which writes each file with its mode.
        fs.chmodSync(b, (nodeFs.statSync(a).mode & 0o777) | 0o200);
      }
    }
  };
  walk(from, '/repo');
  return fs;
}

/** A memfs repository at `/repo` copied to a directory on disk, for native git to judge. */
export function toDisk(fs: FileSystem, from: string, to: string): void {
  nodeFs.mkdirSync(to, { recursive: true });
  for (const name of (fs.readdirSync(from) as unknown[]).map(String)) {
    const st = fs.lstatSync(`${from}/${name}`);
    if (st.isDirectory()) toDisk(fs, `${from}/${name}`, join(to, name));
    else if (st.isSymbolicLink()) nodeFs.symlinkSync(String(fs.readlinkSync(`${from}/${name}`)), join(to, name));
    else nodeFs.writeFileSync(join(to, name), fs.readFileSync(`${from}/${name}`) as Buffer);
  }
}
