/** The file systems bench/apply measures through: node's fs counted, and split by where the writes go (the work tree or .git). */
import * as nodeFs from 'node:fs';
import type { FileSystem, Shadow } from '../../src/index.js';
import { countingFs, delta, snapshot, type FsCounters } from '../helpers/counting-fs.js';
import { whereDelta, whereFs, whereSnapshot, type WhereCounters } from '../helpers/where-fs.js';

export const WORK_TREE = 'work tree';
export const GIT_DIR = '.git';

/** node's fs under the two wrappers: counts, and where the writes and fsyncs go. */
export function instrumentedFs(root: string): { fs: FileSystem; counters: FsCounters; where: WhereCounters } {
  const gitPrefix = `${root}/.git/`;
  const w = whereFs(nodeFs as unknown as FileSystem, (p) =>
    p.startsWith(gitPrefix) || p === `${root}/.git` ? GIT_DIR : WORK_TREE,
  );
  const c = countingFs(w.fs);
  return { fs: c.fs, counters: c.counters, where: w.counters };
}

/** A measurement window over both wrappers and shadow's object counters. */
export function mark(
  i: { counters: FsCounters; where: WhereCounters },
  sh?: Shadow,
): () => { c: FsCounters; w: WhereCounters; objectsRead?: number } {
  const c0 = snapshot(i.counters);
  const w0 = whereSnapshot(i.where);
  const o0 = sh?.stats.objectsRead;
  return () => ({
    c: delta(i.counters, c0),
    w: whereDelta(i.where, w0),
    objectsRead: sh && o0 !== undefined ? sh.stats.objectsRead - o0 : undefined,
  });
}
