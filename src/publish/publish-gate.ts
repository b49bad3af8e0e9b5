import { commitThatBrought, doubledOnPath, gateEntries, unsafePath } from '../drafts/path-gate.js';
import type { PublishEntry } from '../drafts/publish-set.js';
import type { Oid } from '../git/format/git-objects.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * The path gate (drafts/path-gate.ts) on what a publish is about to write:
 * UNSAFE_PATH, before any write, for a path git would refuse to check out
 * or one beyond a symlink; the error names the commit of `tip`'s history
 * that brought the path. `touched`: the draft's paths, each read from the
 * tip's tree, which must read as git would check it out (no doubled name
 * on the way).
 */
export function gatePublish(ws: Workspace, entries: readonly PublishEntry[], tip: Oid, draft: string, touched: readonly string[] = []): void {
  const origin = (path: string): { commit: Oid | null; draft: string } => ({ commit: broughtBy(ws, tip, path), draft });
  gateEntries(entries, origin);
  if (touched.length === 0) return;
  const tree = ws.repo.objects.readCommit(tip).tree;
  const dups = new Map<Oid, Set<string>>();
  for (const path of touched) {
    const problem = doubledOnPath(ws.repo.objects, tree, path, dups);
    if (problem) throw unsafePath(problem.path, problem.reason, origin(problem.path));
  }
}

function broughtBy(ws: Workspace, tip: Oid, path: string): Oid | null {
  try {
    return commitThatBrought(ws.repo, tip, path);
  } catch {
    // The refusal stands even when the history cannot be read (a missing object).
    return ws.repo.objects.has(tip) ? tip : null;
  }
}
