import { createHash } from 'node:crypto';
import { publishSet, sameEntry, type PublishEntry } from './publish-set.js';
import { lookupPath } from '../../git/format/tree-lookup.js';
import { readPublishSet, savePublishSet } from './publish-set-cache.js';
import type { Draft } from '../drafts.js';
import type { Workspace } from '../workspace.js';

/** Drafts touching at least this many paths keep their publish set in publish.cache (below, finding it is cheaper than the file). */
const CACHE_SETS_FROM = 128;

/** The publish set of a draft: its paths whose tip differs from their bases. */
export function draftPublishSet(ws: Workspace, draft: Draft): PublishEntry[] {
  const compute = (): PublishEntry[] => {
    const tree = ws.repo.objects.readCommit(draft.tip).tree;
    return publishSet(draft.bases, (path) => {
      const k = lookupPath(ws.repo.objects, tree, path);
      return k.kind === 'file' ? { mode: k.mode, oid: k.oid } : null;
    });
  };
  const paths = draft.bases.paths();
  if (paths.length < CACHE_SETS_FROM) return compute();
  paths.sort();
  const h = createHash('sha256').update(`${draft.tip}\n`);
  for (const p of paths) {
    const b = draft.bases.get(p);
    h.update(`${p}\0${b ? `${b.mode} ${b.oid}` : '-'}\n`);
  }
  const key = h.digest('hex');
  const saved = readPublishSet(ws.ctx, ws.repo.shadowDir, draft.name, key);
  // Only `new` is taken on trust from the file: every path must be the draft's, with its own base.
  if (saved && saved.every((e) => draft.bases.has(e.path) && sameEntry(e.old, draft.bases.get(e.path)!))) return saved;
  const set = compute();
  savePublishSet(ws.ctx, ws.repo.shadowDir, draft.name, key, set);
  return set;
}
