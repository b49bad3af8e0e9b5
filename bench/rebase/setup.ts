/** bench/rebase's repository at one size: the draft, the person's branch and working tree, and a clone where `git rebase` runs. */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { openShadow } from '../../src/index.js';
import { draftEdit, drawFiles, personEdit, shuffled } from '../helpers/line-edits.js';
import { log } from '../helpers/progress.js';
import { cachedRepo, copyRepo, run, type CachedRepo } from '../helpers/repo.js';
import { thousands } from '../helpers/stats.js';
import { BATCH_DIRS } from '../helpers/workload.js';

export const DRAFT = 'rebase-bench';
export const PERSON = 'person';
/** Paths the draft changes. */
export const DRAFT_PATHS = 200;
/** Files only the person changes. */
export const PERSON_ONLY = 100;
/** The draft's files the person changes too (other lines: they merge). */
export const SHARED = 20;

export interface Sized {
  n: number;
  repo: CachedRepo;
  /** The measured repository (a scratch copy of the cached one). */
  dir: string;
  /** The draft's tip before any rebase: its one batch commit. */
  batch: string;
  /** The person's commit on `person`. */
  person: string;
  /** A clone sharing the measured repository's objects, checked out: git rebase runs there. */
  clone: string;
}

/**
 * The draft edits line 2 of 200 files, drawn from BATCH_DIRS (20) leaf
 * directories; the person commits, on `person` off
 * main, the last line of 20 of those and of 100 others (git plumbing with a
 * temporary index: the working tree is not touched), then makes the same
 * edits in the working tree, uncommitted, for the rebase onto the working
 * tree. The clone (`git clone --shared`, objects borrowed, refs its own)
 * has `person` and the draft's batch commit; its rebases leave the measured
 * repository as it was.
 */
export async function setUp(cacheDir: string, root: string, n: number, env: Record<string, string>): Promise<Sized> {
  const repo = cachedRepo(cacheDir, n, env, log);
  const dir = join(root, `repo-n${n}`);
  log(`N=${thousands(n)}: copying the repository to ${dir}...`);
  copyRepo(repo.dir, dir, env);
  const git = (args: string[], options: { input?: string; env?: Record<string, string>; cwd?: string } = {}): string =>
    run('git', args, { cwd: options.cwd ?? dir, env: options.env ?? env, input: options.input });

  // From the same number of leaf directories at every size, as bench/batch draws its batches: the trees a
  // rebase rewrites are then as many at 5,000 files as at 50,000, and only the repository's size differs.
  const dirs = new Set(shuffled(repo.layout.leafDirs, 7000).slice(0, BATCH_DIRS));
  const candidates = repo.layout.paths.filter((p) => dirs.has(p.slice(0, p.lastIndexOf('/'))));
  const drawn = drawFiles(candidates, dir, DRAFT_PATHS + PERSON_ONLY, 7000 + n);
  const draftFiles = drawn.slice(0, DRAFT_PATHS);
  const personFiles = [...draftFiles.slice(0, SHARED), ...drawn.slice(DRAFT_PATHS)];

  const sh = await openShadow({ dir, env });
  try {
    const b = await sh.batch(
      {
        intent: `rebase bench: ${DRAFT_PATHS} files`,
        operations: draftFiles.map((f) => ({ operation: 'write', path: f.path, content: draftEdit(f.text, f.path) })),
      },
      { draft: DRAFT },
    );
    if (!b.success) throw new Error(`the draft's batch failed: ${JSON.stringify(b.error)}`);
  } finally {
    sh.close();
  }
  const batch = git(['rev-parse', `refs/shadow/drafts/${DRAFT}`]).trim();

  // The person's commit, through a temporary index.
  const blobs = join(root, `person-blobs-n${n}`);
  nodeFs.mkdirSync(blobs, { recursive: true });
  const edited = personFiles.map((f, i) => {
    const file = join(blobs, `b${i}`);
    nodeFs.writeFileSync(file, personEdit(f.text, f.path));
    return file;
  });
  const oids = git(['hash-object', '-w', '--stdin-paths'], { input: `${edited.join('\n')}\n` })
    .trim()
    .split('\n');
  const indexEnv = { ...env, GIT_INDEX_FILE: join(root, `person-n${n}.index`) };
  git(['read-tree', 'main'], { env: indexEnv });
  git(['update-index', '--index-info'], {
    env: indexEnv,
    input: personFiles.map((f, i) => `100644 ${oids[i]}\t${f.path}\n`).join(''),
  });
  const tree = git(['write-tree'], { env: indexEnv }).trim();
  const person = git([
    'commit-tree',
    tree,
    '-p',
    'main',
    '-m',
    `the person's work: ${personFiles.length} files`,
  ]).trim();
  git(['update-ref', `refs/heads/${PERSON}`, person]);
  nodeFs.rmSync(blobs, { recursive: true, force: true });

  // The same edits in the working tree, uncommitted.
  personFiles.forEach((f) => nodeFs.writeFileSync(join(dir, f.path), personEdit(f.text, f.path)));
  git(['update-index', '-q', '--refresh']);

  const clone = join(root, `clone-n${n}`);
  log(`N=${thousands(n)}: cloning for git rebase...`);
  git(['clone', '-q', '--shared', '--no-checkout', dir, clone], { cwd: root });
  git(['config', 'user.name', 'Bench User'], { cwd: clone });
  git(['config', 'user.email', 'bench@example.com'], { cwd: clone });
  git(['config', 'gc.auto', '0'], { cwd: clone });
  git(['branch', '-q', PERSON, person], { cwd: clone });
  git(['checkout', '-q', '-B', 'rb', batch], { cwd: clone });
  return { n, repo, dir, batch, person, clone };
}
