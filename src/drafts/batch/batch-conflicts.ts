import { ShadowError } from '../../errors.js';
import { parseTrailers } from '../commit-message.js';
import type { Oid } from '../../git/format/git-objects.js';
import { opPaths, type BatchInput, type FileOperation } from './ops.js';
import { patchOnlyUpdates } from '../codex-patch/apply-patch-op.js';
import type { Resolution } from './resolve-batch.js';
import { lookupPath } from '../../git/format/tree-lookup.js';
import type { Draft } from '../drafts.js';
import type { Workspace } from '../workspace.js';

const MERGING_OPS = new Set(['edit', 'patch']);

/** Whether `op` changes `path` by its context, so that it merges with another writer's change when it still applies. */
function merges(op: FileOperation, path: string): boolean {
  return MERGING_OPS.has(op.operation) || (op.operation === 'apply_patch' && patchOnlyUpdates(op, path));
}

/**
 * Ops whose path another writer changed between the tip this batch was sent
 * against and the tip it is now resolving on. An edit or patch that still
 * applies merges; any other op assumed the old content, and a failing edit
 * or patch no longer finds it: both are conflicts, never silent overwrites.
 */
export function concurrentConflicts(
  ws: Workspace,
  draft: Draft,
  input: BatchInput,
  baseTip: Oid,
  touched: string[],
  resolution: Resolution,
): Array<{ index: number; error: ShadowError }> {
  const repo = ws.repo;
  const oldTree = repo.objects.readCommit(baseTip).tree;
  const newTree = repo.objects.readCommit(draft.tip).tree;
  const moved = new Set<string>();
  for (const path of touched) {
    const a = lookupPath(repo.objects, oldTree, path);
    const b = lookupPath(repo.objects, newTree, path);
    const same =
      a.kind === b.kind && (a.kind !== 'file' || (b.kind === 'file' && a.oid === b.oid && a.mode === b.mode));
    if (!same) moved.add(path);
  }
  const out: Array<{ index: number; error: ShadowError }> = [];
  input.operations.forEach((op, index) => {
    const path = opPaths(op).find((p) => moved.has(p));
    if (path === undefined) return;
    const stillApplies =
      merges(op, path) &&
      resolution.results[index]?.success !== false &&
      !resolution.problems.some((p) => p.index === index);
    if (stillApplies) return;
    const by = changedBy(ws, draft.tip, baseTip, path);
    out.push({
      index,
      error: new ShadowError('CONFLICT', `${path} was changed by ${by.label} while this batch was being written`, {
        hint: 'read the path again and resend the batch',
        data: { path, commit: by.oid, batch: by.batch, actor: by.actor },
      }),
    });
  });
  return out;
}

/** The newest commit between `from` (exclusive) and `tip` that changed `path`. */
function changedBy(
  ws: Workspace,
  tip: Oid,
  from: Oid,
  path: string,
): { oid: Oid; label: string; batch?: number; actor?: string } {
  const repo = ws.repo;
  let oid: Oid | undefined = tip;
  while (oid && oid !== from) {
    const c = repo.objects.readCommit(oid);
    const parent: Oid | undefined = c.parents[0];
    const before = parent
      ? lookupPath(repo.objects, repo.objects.readCommit(parent).tree, path)
      : { kind: 'absent' as const };
    const after = lookupPath(repo.objects, c.tree, path);
    const differs =
      before.kind !== after.kind ||
      (before.kind === 'file' && after.kind === 'file' && (before.oid !== after.oid || before.mode !== after.mode));
    if (differs) {
      const t = parseTrailers(c.message);
      const who = t.actor ? ` (actor ${t.actor})` : '';
      const what =
        t.batch !== undefined
          ? `batch ${t.batch}`
          : t.capture !== undefined
            ? `the capture before batch ${t.capture}`
            : 'a commit';
      return { oid, label: `${what}, commit ${oid.slice(0, 12)}${who}`, batch: t.batch, actor: t.actor };
    }
    oid = parent;
  }
  return { oid: tip, label: `commit ${tip.slice(0, 12)}` };
}
