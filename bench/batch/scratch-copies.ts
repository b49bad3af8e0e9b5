/**
 * bench/batch's scratch copies for one N: the cached repository copied (and
 * described, with the disk's fsync probe), own copies of its .git for the
 * baselines that interleave with shadow-disk, a memfs volume for
 * shadow-memfs, and how each git dir is put back after each k.
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { Volume, createFsFromVolume } from 'memfs';
import type { FileSystem } from '../../src/index.js';
import { Spawner } from '../helpers/baselines.js';
import { fsyncProbe } from '../helpers/fsync-probe.js';
import { log } from '../helpers/progress.js';
import {
  cachedRepo,
  copyIntoVolume,
  copyRepo,
  countObjects,
  GitDirReset,
  run,
  type CachedRepo,
} from '../helpers/repo.js';
import { ms, thousands } from '../helpers/stats.js';
import type { Options } from './options.js';
import { fsyncMedians } from './results.js';
import type { Env } from './runners.js';

/** The copies of the repository of `n` files under `scratchRoot`, and the note printed above its tables. */
export function scratchCopies(
  o: Options,
  n: number,
  scratchRoot: string,
  env: Record<string, string>,
  gitBaselineEnv: Record<string, string>,
): { e: Env; repo: CachedRepo; note: string } {
  const repo = cachedRepo(o.cacheDir, n, env, log);
  const dir = join(scratchRoot, `repo-n${n}`);
  const t0 = performance.now();
  log(`N=${thousands(n)}: copying the cached repository to ${dir}...`);
  copyRepo(repo.dir, dir, env);
  const copySeconds = (performance.now() - t0) / 1000;
  const objs = countObjects([], dir, env);
  const probe = fsyncProbe(join(dir, '.git'));
  fsyncMedians.set(n, probe.median);
  const note =
    `${thousands(n + 2)} tracked files in ${thousands(repo.layout.leafDirs.length)} leaf directories under ${repo.layout.topDirs} top-level ones; ` +
    `${thousands(objs.inPack)} objects in ${objs.packs} pack (git gc)` +
    (repo.generatedIn !== undefined ? `; generated in ${repo.generatedIn.toFixed(1)} s` : '; from the cache') +
    `; copied in ${copySeconds.toFixed(1)} s` +
    `\n    fsync of a new 4 KB file on this disk, before the cases: median ${ms(probe.median)} ms, p90 ${ms(probe.p90)} ms`;
  const scratch = join(scratchRoot, `scratch-n${n}`);
  nodeFs.mkdirSync(scratch, { recursive: true });
  const pristine = join(repo.dir, '.git');
  const restoreFrom = (rel: string, abs: string): void => nodeFs.copyFileSync(join(pristine, rel), abs);
  const gitDirs = {
    fastImport: join(scratch, 'fast-import.git'),
    plumbing: join(scratch, 'plumbing.git'),
    cli: join(scratch, 'cli.git'),
  };
  for (const d of Object.values(gitDirs)) run('cp', ['-a', join(dir, '.git'), d]);
  const resets = [join(dir, '.git'), ...Object.values(gitDirs)].map(
    (d) => new GitDirReset(nodeFs as never, d, restoreFrom),
  );
  const e: Env = { o, repo, dir, scratch, env, gitEnv: gitBaselineEnv, spawner: new Spawner(scratch), resets, gitDirs };
  if (o.only.has('shadow-memfs')) {
    const vol = new Volume();
    const mfs = createFsFromVolume(vol);
    const files = copyIntoVolume(dir, '/repo', mfs as never);
    log(`N=${thousands(n)}: copied ${thousands(files)} files into a memfs volume`);
    e.memfs = { fs: mfs as unknown as FileSystem };
    resets.push(
      new GitDirReset(mfs as never, '/repo/.git', (rel, abs) =>
        mfs.writeFileSync(abs, nodeFs.readFileSync(join(pristine, rel))),
      ),
    );
  }
  return { e, repo, note };
}

/** Let the memfs volume go, and (unless kept) remove the copies. */
export function dropScratchCopies(e: Env): void {
  e.memfs = undefined;
  if (!e.o.keep) {
    nodeFs.rmSync(e.dir, { recursive: true, force: true });
    nodeFs.rmSync(e.scratch, { recursive: true, force: true });
  }
}
