/**
 * A draft's own points: the commits a rollback, an undo or `draft new
 * --from` may take from it. A commit's trailers say nothing about where it
 * came from (anyone can write `Shadow-Draft:` lines with `git commit-tree`,
 * and a fetched draft's commits carry them too), so the points are read from
 * what this repository recorded of the draft itself:
 *
 * - its first-parent history, from the tip back to its root;
 * - its reflog: every commit its ref has pointed at here;
 * - its checkpoints (annotated tags under its own checkpoint refs);
 *
 * and, for a commit named by the reflog or a checkpoint, the commits on its
 * first-parent history back to the root (they were the draft's history when
 * that commit was its tip). A walk that ends elsewhere than at the root
 * lends nothing but its start.
 */
import { ZERO_OID, type Oid } from '../git/format/git-objects.js';
import { checkpointsPrefix } from './ref-names.js';
import { peelToCommit } from './rev-parse.js';
import { findRoot } from './history.js';
import type { Repository } from '../git/repository.js';

/** What names a line of commits: a draft's ref and root, or an archive's. */
export interface PointSource {
  /** The ref whose reflog counts (a draft's ref; an archive's tip ref). */
  ref: string;
  /** The commit the line starts from: walks stop there. */
  root: Oid;
  /** Its tip now. */
  tip: Oid;
  /** Commits its checkpoints name (tag objects or commits). */
  checkpoints: readonly Oid[];
}

function commitOrUndefined(repo: Repository, oid: Oid): Oid | undefined {
  if (oid === ZERO_OID || !repo.objects.has(oid)) return undefined;
  try {
    return peelToCommit(repo, oid, oid);
  } catch {
    return undefined;
  }
}

/** Every point of `source` (see the file's comment). Costs one visit of each commit of the line. */
export function pointsOf(repo: Repository, source: PointSource): Set<Oid> {
  const points = new Set<Oid>([source.root]);
  const dead = new Set<Oid>();
  const starts: Oid[] = [source.tip];
  for (const e of repo.refs.reflog(source.ref)) starts.push(e.new, e.old);
  starts.push(...source.checkpoints);
  for (const start of starts) {
    const first = commitOrUndefined(repo, start);
    if (first === undefined) continue;
    const walked: Oid[] = [];
    let oid: Oid | undefined = first;
    while (oid !== undefined && !points.has(oid) && !dead.has(oid) && repo.objects.has(oid)) {
      walked.push(oid);
      oid = repo.objects.readCommit(oid).parents[0];
    }
    const reached = oid !== undefined && points.has(oid);
    for (const w of walked) (reached ? points : dead).add(w);
    points.add(first);
  }
  return points;
}

/** The commits the checkpoints under `prefix` name. */
function checkpointObjects(repo: Repository, prefix: string): Oid[] {
  return repo.refs.list(prefix).map((c) => c.oid);
}

/** The points of a draft as its ref, root, tip and checkpoints give them. */
export function draftPoints(repo: Repository, draft: { name: string; ref: string; tip: Oid; root: Oid }): Set<Oid> {
  return pointsOf(repo, {
    ref: draft.ref,
    root: draft.root,
    tip: draft.tip,
    checkpoints: checkpointObjects(repo, checkpointsPrefix(draft.name)),
  });
}

/**
 * The points of the drafts of line `line` that were dropped and archived
 * (`refs/shadow/archive/<line>/<time>/tip` and its checkpoints): each
 * archive's history back to the root of its line, where the line's own
 * commits end.
 */
export function archivedPoints(repo: Repository, archivePrefix: string, line: string): Set<Oid> {
  const out = new Set<Oid>();
  const base = `${archivePrefix}${line}/`;
  for (const { ref, oid } of repo.refs.list(base)) {
    if (!ref.endsWith('/tip') || ref.slice(base.length, -'/tip'.length).includes('/')) continue;
    const tip = commitOrUndefined(repo, oid);
    if (tip === undefined) continue;
    const root = findRoot(repo, line, tip);
    const checkpoints = checkpointObjects(repo, `${ref.slice(0, -'tip'.length)}checkpoints/`);
    for (const p of pointsOf(repo, { ref, root, tip, checkpoints })) out.add(p);
  }
  return out;
}
