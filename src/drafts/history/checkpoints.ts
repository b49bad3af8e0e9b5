import { ShadowError } from '../../errors.js';
import { parseTrailers } from '../commit-message.js';
import { hashObject, serializeTag, ZERO_OID, type Oid } from '../../git/format/git-objects.js';
import {
  AUTO_CHECKPOINT_PREFIX,
  checkpointNameProblem,
  checkpointRef,
  checkpointsPrefix,
  draftRef,
} from '../ref-names.js';
import { writeDraftMeta } from '../../state/draft-meta.js';
import { RefMoved } from '../../git/refs.js';
import { draftStatusWord, requireDraft, type Draft } from '../drafts.js';
import { logEvent } from '../ledger-events.js';
import { isOnHistory } from '../history.js';
import { draftPoints } from '../draft-points.js';
import { resolveCommitish } from '../rev-parse.js';
import type { Workspace } from '../workspace.js';

export interface CheckpointInfo {
  name: string;
  commit: Oid;
  /** The annotated tag object. */
  tag: Oid;
  batch: number | null;
  time: string;
  message: string;
  auto: boolean;
}

function checkpointInfo(ws: Workspace, name: string, tagOid: Oid): CheckpointInfo {
  const repo = ws.repo;
  const obj = repo.objects.read(tagOid);
  const tag = obj.type === 'tag' ? repo.objects.readTag(tagOid) : undefined;
  const commit = tag ? tag.object : tagOid;
  const trailers = parseTrailers(repo.objects.readCommit(commit).message);
  return {
    name,
    commit,
    tag: tagOid,
    batch: trailers.batch ?? null,
    time: new Date((tag?.tagger.timestamp ?? 0) * 1000).toISOString(),
    message: (tag?.message ?? '').trim(),
    auto: name.startsWith(AUTO_CHECKPOINT_PREFIX),
  };
}

/** The checkpoints of a draft, oldest first. */
export function listCheckpoints(ws: Workspace, draftName: string): CheckpointInfo[] {
  const prefix = checkpointsPrefix(draftName);
  return ws.repo.refs
    .list(prefix)
    .map(({ ref, oid }) => checkpointInfo(ws, ref.slice(prefix.length), oid))
    .sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.name < b.name ? -1 : 1));
}

async function writeCheckpoint(
  ws: Workspace,
  draft: Draft,
  name: string,
  commit: Oid,
  message: string,
): Promise<CheckpointInfo> {
  const repo = ws.repo;
  const tagger = repo.committer();
  const content = serializeTag({ object: commit, type: 'commit', tag: name, tagger, message: `${message.trim()}\n` });
  const tag = hashObject('tag', content);
  const pack = repo.objects.write([{ oid: tag, type: 'tag', content }]);
  try {
    await repo.refs.update({
      ref: checkpointRef(draft.name, name),
      expected: null,
      next: tag,
      message: `shadow: checkpoint ${name}`,
      who: tagger,
      reflog: false,
    });
  } catch (e) {
    if (e instanceof RefMoved) throw checkpointExists(draft.name, name);
    throw e;
  } finally {
    repo.objects.releaseKeep(pack);
  }
  return checkpointInfo(ws, name, tag);
}

function checkpointExists(draft: string, name: string): ShadowError {
  return new ShadowError('CHECKPOINT_EXISTS', `draft "${draft}" already has a checkpoint "${name}"`, {
    hint: 'choose another name; `shadow checkpoints` lists the existing ones',
    data: { draft, checkpoint: name },
  });
}

/** Mark the draft's current tip with a named checkpoint (an annotated tag). */
export async function createCheckpoint(
  ws: Workspace,
  draftName: string,
  name: string,
  actor: string,
  message?: string,
): Promise<CheckpointInfo> {
  const problem = checkpointNameProblem(name);
  if (problem || name.startsWith(AUTO_CHECKPOINT_PREFIX)) {
    throw new ShadowError(
      'INVALID_CHECKPOINT_NAME',
      `"${name}" is not a valid checkpoint name: ${problem ?? `the prefix "${AUTO_CHECKPOINT_PREFIX}" is kept for automatic checkpoints`}`,
      {
        hint: 'use letters, digits, "-", "_" and "."; not a plain number',
        data: { name },
      },
    );
  }
  const draft = requireDraft(ws, draftName);
  if (ws.repo.refs.resolve(checkpointRef(draftName, name)) !== undefined) throw checkpointExists(draftName, name);
  const info = await writeCheckpoint(ws, draft, name, draft.tip, message ?? `checkpoint ${name} of draft ${draftName}`);
  await logEvent(ws, draftName, 'checkpoint', actor, { name, commit: info.commit, tag: info.tag, batch: info.batch });
  return info;
}

/** Where a rollback goes, and how it was named. */
export interface Target {
  commit: Oid;
  label: string;
}

function invalidTarget(spec: string, why: string, purpose = 'roll back to'): ShadowError {
  return new ShadowError('INVALID_TARGET', `cannot ${purpose} "${spec}": ${why}`, {
    hint: 'give a checkpoint name, a batch number, ~N (N batches back) or a commit of the draft',
    data: { target: spec },
  });
}

/** Walk the first-parent history from `tip` for the commit of batch `n`. */
function findBatch(ws: Workspace, tip: Oid, root: Oid, n: number): Oid | undefined {
  let oid: Oid | undefined = tip;
  while (oid !== undefined && oid !== root) {
    const c = ws.repo.objects.readCommit(oid);
    if (parseTrailers(c.message).batch === n) return oid;
    oid = c.parents[0];
  }
  return undefined;
}

/**
 * Resolve a rollback target: `~N` (N batches back, each with its capture),
 * a batch number, a checkpoint name, or any commit-ish of the draft.
 */
export function resolveTarget(ws: Workspace, draft: Draft, spec: string, purpose = 'roll back to'): Target {
  const repo = ws.repo;
  const root = draft.meta.root;
  const rel = /^~(\d*)$/.exec(spec);
  if (rel) {
    const n = rel[1] === '' ? 1 : Number(rel[1]);
    let oid = draft.tip;
    for (let i = 0; i < n; i++) {
      if (oid === root) throw invalidTarget(spec, `the draft has only ${i} batch${i === 1 ? '' : 'es'}`, purpose);
      let c = repo.objects.readCommit(oid);
      oid = c.parents[0] ?? root;
      // A batch's capture commit goes with it.
      while (oid !== root && parseTrailers((c = repo.objects.readCommit(oid)).message).capture !== undefined)
        oid = c.parents[0] ?? root;
    }
    return { commit: oid, label: spec };
  }
  if (/^\d+$/.test(spec)) {
    const n = Number(spec);
    const inHistory = findBatch(ws, draft.tip, root, n);
    if (inHistory) return { commit: inHistory, label: `batch ${n}` };
    for (const cp of listCheckpoints(ws, draft.name)) {
      const found = findBatch(ws, cp.commit, root, n);
      if (found) return { commit: found, label: `batch ${n} (kept by checkpoint ${cp.name})` };
    }
    // An abbreviated commit id can be all digits (about one in a hundred of
    // ten characters): a number that names no batch is tried as one, as git
    // would read it.
    if (spec.length >= 4) {
      try {
        return { commit: resolveCommitish(repo, spec), label: spec };
      } catch (e) {
        if (!(e instanceof ShadowError && e.code === 'INVALID_TARGET')) throw e;
      }
    }
    throw invalidTarget(spec, `draft "${draft.name}" has no batch ${n}`, purpose);
  }
  const cp = repo.refs.resolve(checkpointRef(draft.name, spec));
  if (cp !== undefined) return { commit: checkpointInfo(ws, spec, cp).commit, label: `checkpoint ${spec}` };
  let commit: Oid;
  try {
    commit = resolveCommitish(repo, spec);
  } catch (e) {
    if (e instanceof ShadowError && e.code === 'INVALID_TARGET')
      throw invalidTarget(spec, 'it is no checkpoint, batch or commit', purpose);
    throw e;
  }
  return { commit, label: spec };
}

/**
 * Keep the draft's tip with a checkpoint: the one it has, or a new
 * automatic one (`auto-N`). Returns its name.
 */
export async function keepTip(ws: Workspace, draft: Draft, message: string): Promise<string> {
  const checkpoints = listCheckpoints(ws, draft.name);
  const existing = checkpoints.find((c) => c.commit === draft.tip);
  if (existing) return existing.name;
  const n =
    1 +
    Math.max(
      0,
      ...checkpoints.filter((c) => c.auto).map((c) => Number(c.name.slice(AUTO_CHECKPOINT_PREFIX.length)) || 0),
    );
  const name = `${AUTO_CHECKPOINT_PREFIX}${n}`;
  await writeCheckpoint(ws, draft, name, draft.tip, message);
  return name;
}

/** The result of moving a draft's ref. */
export interface RefMove {
  draft: string;
  from: Oid;
  to: Oid;
  target: string;
  /** The automatic checkpoint that keeps the tip it left reachable. */
  kept?: string;
}

/**
 * Move a draft's ref to `to` with compare-and-swap and a reflog line. When
 * the tip it leaves would no longer be reachable from the draft, an
 * automatic checkpoint keeps it, so a rollback never loses anything.
 */
async function moveDraft(
  ws: Workspace,
  draft: Draft,
  to: Oid,
  target: string,
  message: string,
  actor: string,
): Promise<RefMove> {
  const repo = ws.repo;
  // Trailers prove nothing (`git commit-tree` writes any): only what this repository recorded of the draft counts.
  if (
    to !== draft.tip &&
    !isOnHistory(repo, draft.tip, to, draft.meta.root) &&
    !draftPoints(repo, { name: draft.name, ref: draft.ref, tip: draft.tip, root: draft.meta.root }).has(to)
  ) {
    throw new ShadowError(
      'INVALID_TARGET',
      `cannot roll back to "${target}": ${to.slice(0, 12)} is not part of draft "${draft.name}" (not on its history, its reflog or its checkpoints)`,
      {
        hint: `give a checkpoint name, a batch number, ~N (N batches back) or a commit the draft has stood on (\`shadow log\`, \`git reflog ${draft.ref}\`)`,
        data: { target, commit: to, draft: draft.name },
      },
    );
  }
  const move: RefMove = { draft: draft.name, from: draft.tip, to, target };
  if (to === draft.tip) return move;
  if (!isOnHistory(repo, to, draft.tip, draft.meta.root)) {
    move.kept = await keepTip(ws, draft, `automatic checkpoint: draft ${draft.name} left this tip (${message})`);
  }
  // The batch counter never goes back: keep its high-water mark before the ref moves.
  writeDraftMeta(ws.ctx, repo.shadowDir, draft.meta, true);
  try {
    await repo.refs.update({
      ref: draftRef(draft.name),
      expected: draft.tip,
      next: to,
      message: `shadow: ${message}`,
      who: repo.committer(),
    });
  } catch (e) {
    if (e instanceof RefMoved) {
      throw new ShadowError('CONFLICT', `draft "${draft.name}" moved while it was being rolled back`, {
        hint: 'look at `shadow log` and run the command again',
        data: { draft: draft.name, current: e.current },
      });
    }
    throw e;
  }
  const moved = requireDraft(ws, draft.name);
  const data: Record<string, unknown> = { from: move.from, to, target, action: message };
  if (move.kept) data.kept = move.kept;
  await logEvent(ws, draft.name, 'rollback', actor, data);
  const before = draftStatusWord(ws, draft);
  const after = draftStatusWord(ws, moved);
  if (before !== after) await logEvent(ws, draft.name, 'tx/status', actor, { from: before, to: after });
  return move;
}

/** Move the draft back (or forward) to a checkpoint, a batch, `~N` or a commit. */
export async function rollback(ws: Workspace, draftName: string, spec: string, actor: string): Promise<RefMove> {
  const draft = requireDraft(ws, draftName);
  const target = resolveTarget(ws, draft, spec);
  return moveDraft(ws, draft, target.commit, spec, `rollback to ${target.label}`, actor);
}

/** Reverse the draft's last ref move (a batch, a rollback, an undo). */
export async function undo(ws: Workspace, draftName: string, actor: string): Promise<RefMove & { undid: string }> {
  const draft = requireDraft(ws, draftName);
  const log = ws.repo.refs.reflog(draft.ref);
  // The newest line that moved the ref to where it is: a move killed between
  // its reflog line (written first, as git writes it) and its ref leaves a
  // line for a tip the ref never took.
  let at = log.length - 1;
  while (at >= 0 && log[at]!.new !== draft.tip) at--;
  const last = at >= 0 ? log[at] : undefined;
  if (!last) {
    throw new ShadowError('NOTHING_TO_UNDO', `the last move of draft "${draftName}" is not in its reflog`, {
      hint: 'roll back explicitly with `shadow rollback <target>`',
      data: { draft: draftName },
    });
  }
  if (last.old === ZERO_OID) {
    throw new ShadowError('NOTHING_TO_UNDO', `draft "${draftName}" has not moved since it was created`, {
      hint: `drop it with \`shadow draft drop ${draftName}\` if it is not wanted`,
      data: { draft: draftName },
    });
  }
  const undid = last.message.replace(/^shadow: /, '');
  const move = await moveDraft(ws, draft, last.old, 'undo', `undo ${undid}`, actor);
  return { ...move, undid };
}
