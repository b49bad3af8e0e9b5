/**
 * Fixtures for the plan tests: a seeded PRNG, a plan whose batches depend on
 * each other (so a batch applied twice or skipped either fails or changes the
 * tree), the files it expects to start from and the files it ends with, and
 * a reader of the plan commits on a draft's first-parent history.
 */
import type { FileOperation } from '../../src/index.js';
import type { DiskRepo } from './disk-repo.js';

export { prng } from './prng.js';

/** An integer in [lo, hi] from `rand`. */
export function between(rand: () => number, lo: number, hi: number): number {
  return lo + Math.floor(rand() * (hi - lo + 1));
}

/** The files an evolving plan starts from (committed on main). */
export const PLAN_BASE_FILES: Record<string, string> = {
  'README.md': 'Hello\n',
  'counter.txt': 'count: 0\n',
  'journal.md': '# journal\nEND\n',
  'src/config.ts': 'export const level = 0;\n',
};

export interface PlanBatchDoc {
  id: number;
  intent?: string;
  operations: FileOperation[];
}

export interface PlanDoc {
  id?: string;
  intent?: string;
  batches: PlanBatchDoc[];
}

/**
 * A plan of `n` batches that build on each other. Every batch bumps
 * `counter.txt` with an edit of the previous value (a duplicate or a skip
 * fails with EDIT_NO_MATCH), appends to `journal.md`, and writes a file;
 * every 5th renames an earlier file, every 7th deletes one, every 10th
 * edits the config, batch 25 renames the config. `files` is what the plan
 * ends with (simulated, independently of shadow), `after(k)` after batch k.
 * `id` null: a plan without an id (shadow derives one from its fingerprint).
 */
export function evolvingPlan(
  n: number,
  id: string | null = 'evolve',
): { doc: PlanDoc; text: string; files: Record<string, string>; after: (k: number) => Record<string, string> } {
  const states: Array<Map<string, string>> = [];
  const files = new Map(Object.entries(PLAN_BASE_FILES));
  states.push(new Map(files));
  const live: string[] = [];
  let config = 'src/config.ts';
  let level = 0;
  const batches: PlanBatchDoc[] = [];
  for (let i = 1; i <= n; i++) {
    const ops: FileOperation[] = [];
    const apply = (op: FileOperation): void => {
      ops.push(op);
      if (op.operation === 'write') files.set(op.path, op.content);
      else if (op.operation === 'edit') files.set(op.path, files.get(op.path)!.replace(op.old_content, op.content));
      else if (op.operation === 'delete') files.delete(op.path);
      else if (op.operation === 'rename') {
        files.set(op.to, files.get(op.path)!);
        files.delete(op.path);
      }
    };
    apply({ operation: 'edit', path: 'counter.txt', old_content: `count: ${i - 1}\n`, content: `count: ${i}\n` });
    apply({ operation: 'edit', path: 'journal.md', old_content: 'END\n', content: `entry ${i}\nEND\n` });
    const gen = `gen/b${String(i).padStart(3, '0')}.txt`;
    apply({ operation: 'write', path: gen, content: `batch ${i}\n${'x'.repeat(i % 13)}\n` });
    live.push(gen);
    if (i % 5 === 0 && live.length > 1) {
      const from = live.splice(live.length - 2, 1)[0]!;
      apply({
        operation: 'rename',
        path: from,
        to: from.replace(/^gen\//, i % 10 === 0 ? 'archive/deep/' : 'archive/'),
      });
    }
    if (i % 7 === 0 && live.length > 1) apply({ operation: 'delete', path: live.shift()! });
    if (i % 10 === 3) {
      apply({ operation: 'edit', path: config, old_content: `level = ${level};`, content: `level = ${level + 1};` });
      level++;
    }
    if (i === 25) {
      apply({ operation: 'rename', path: config, to: 'src/settings.ts' });
      config = 'src/settings.ts';
    }
    batches.push(i % 4 === 0 ? { id: i, intent: `step ${i}`, operations: ops } : { id: i, operations: ops });
    states.push(new Map(files));
  }
  const doc: PlanDoc = id === null ? { batches } : { id, intent: 'evolve the tree', batches };
  return {
    doc,
    text: `${JSON.stringify(doc, null, 1)}\n`,
    files: Object.fromEntries(files),
    after: (k) => Object.fromEntries(states[k]!),
  };
}

/** A plan of `n` batches of one small write each. */
export function writesPlan(n: number, id = 'writes'): PlanDoc {
  return {
    id,
    batches: Array.from({ length: n }, (_, i) => ({
      id: i + 1,
      operations: [{ operation: 'write', path: `w/f${i + 1}.txt`, content: `${i + 1}\n` }],
    })),
  };
}

/** A plan commit on a draft's first-parent history (oldest first). */
export interface PlanCommit {
  commit: string;
  tree: string;
  plan: string;
  planBatch: number;
  batch: number;
}

/** The commits with a `Shadow-Plan-Batch` trailer on the draft's first-parent history, oldest first ([] when no draft). */
export function planCommits(repo: DiskRepo, draft: string): PlanCommit[] {
  const r = repo.gitResult(
    'log',
    '--first-parent',
    '--reverse',
    '--format=%H%x09%T%x09%(trailers:key=Shadow-Plan,valueonly,separator=%x2C)%x09%(trailers:key=Shadow-Plan-Batch,valueonly,separator=%x2C)%x09%(trailers:key=Shadow-Batch,valueonly,separator=%x2C)',
    `refs/shadow/drafts/${draft}`,
    '--',
  );
  if (r.status !== 0) {
    if (repo.ref(`refs/shadow/drafts/${draft}`) === undefined) return [];
    throw new Error(`git log failed: ${r.stderr}`);
  }
  return r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.split('\t'))
    .filter((f) => f[3] !== undefined && f[3] !== '')
    .map((f) => ({ commit: f[0]!, tree: f[1]!, plan: f[2]!, planBatch: Number(f[3]), batch: Number(f[4]) }));
}

/** Every file of a commit-ish on disk, by path. */
export function treeFiles(repo: DiskRepo, rev: string): Record<string, string> {
  const out: Record<string, string> = {};
  const paths = repo
    .git('ls-tree', '-r', '--name-only', '-z', rev)
    .split('\0')
    .filter((p) => p !== '');
  for (const p of paths) out[p] = repo.git('cat-file', 'blob', `${rev}:${p}`);
  return out;
}
