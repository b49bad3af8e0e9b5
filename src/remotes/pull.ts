/**
 * `shadow pull`: fetch, then bring each local draft up to its remote
 * counterpart (the draft of the same name there, as push sends it):
 *
 * - the remote's tip descends from the local one: the local ref is
 *   fast-forwarded (compare-and-swap, a reflog line) and the ledgers joined;
 * - the local tip descends from the remote's (this side is ahead, or both
 *   are the same): only the ledgers are joined;
 * - neither: DIVERGED, and nothing here changes (push refuses it too).
 *
 * Every draft is classified before any is changed, so a refusal leaves all
 * of them as they were. The ledger is joined before the ref moves (a ref
 * never stands on metadata it lacks); a pull stopped between the two is
 * finished by the next one, which joins nothing twice.
 */
import { ShadowError } from '../errors.js';
import { readTextIfExists, writeFileAtomic } from '../durable/durable-file.js';
import type { Oid } from '../git/format/git-objects.js';
import { RefMoved } from '../git/refs.js';
import { splitRemoteDraft } from '../core/remote-draft-name.js';
import { draftDir, writeDraftMeta } from '../state/draft-meta.js';
import { checkpointRef, checkpointsPrefix, draftRef, metaRef, proposalRef } from '../drafts/ref-names.js';
import { listDrafts, requireDraft } from '../drafts/drafts.js';
import { joinLedger } from '../drafts/ledger-join.js';
import type { Workspace } from '../drafts/workspace.js';
import { fetchDrafts, type FetchResult } from './fetch.js';
import { runGit } from './remote-git.js';
import { snapshotMeta } from './meta-snapshot.js';

export interface PulledDraft {
  draft: string;
  /** The local tip before and after. */
  was: Oid;
  tip: Oid;
  /** `fast-forward`: the ref moved to the remote's tip; `ahead`: this side has more; `up-to-date`: the same tip. */
  status: 'fast-forward' | 'ahead' | 'up-to-date';
  /** How many of the remote ledger's events were joined here (0: nothing new, and no join event). */
  joined: number;
  /** The `ledger/join` event's seq, when one was written. */
  join: number | null;
}

export interface PullResult {
  remote: string;
  fetched: FetchResult;
  drafts: PulledDraft[];
}

/** `ancestor` is `descendant` or one of its ancestors (git decides: merges and all). */
function isAncestor(ws: Workspace, ancestor: Oid, descendant: Oid): boolean {
  if (ancestor === descendant) return true;
  const r = runGit(ws, ['merge-base', '--is-ancestor', ancestor, descendant]);
  if (r.status === 0) return true;
  if (r.status === 1) return false;
  throw new ShadowError(
    'INTERNAL',
    `git merge-base --is-ancestor ${ancestor.slice(0, 12)} ${descendant.slice(0, 12)} failed: ${r.stderr.trim()}`,
    { data: { ancestor, descendant } },
  );
}

/** Pull `drafts` (default: every local draft the remote has too) from `remote`. */
export async function pullDrafts(
  ws: Workspace,
  remoteName: string,
  drafts: readonly string[] | undefined,
  actor: string,
): Promise<PullResult> {
  const repo = ws.repo;
  for (const name of drafts ?? []) {
    if (splitRemoteDraft(name)) {
      throw new ShadowError(
        'INVALID_ARGUMENT',
        `"${name}" is a fetched draft; pull brings a remote's drafts into the local drafts of the same name`,
        {
          hint: `\`shadow pull ${splitRemoteDraft(name)!.remote} ${splitRemoteDraft(name)!.draft}\`, or \`shadow draft new ${splitRemoteDraft(name)!.draft} --from ${name}\` when there is no local one`,
          data: { draft: name },
        },
      );
    }
    requireDraft(ws, name);
  }
  const fetched = fetchDrafts(ws, remoteName);
  const remote = fetched.remote;
  const counterpart = (name: string): Oid | undefined => repo.refs.resolve(draftRef(`${remote}/${name}`));
  const names =
    drafts ??
    listDrafts(ws)
      .map((d) => d.name)
      .filter((n) => counterpart(n) !== undefined);
  const plan: Array<{ draft: string; local: Oid; remote: Oid; status: PulledDraft['status'] }> = [];
  for (const name of names) {
    const local = requireDraft(ws, name).tip;
    const theirs = counterpart(name);
    if (theirs === undefined) {
      throw new ShadowError(
        'DRAFT_NOT_FOUND',
        `${remote} has no draft "${name}" to pull (as of this fetch); nothing changed`,
        {
          hint: `\`shadow push ${remote} ${name}\` sends it there; \`shadow draft list --remote ${remote}\` lists what ${remote} has`,
          data: { draft: name, remote },
        },
      );
    }
    const status =
      theirs === local
        ? 'up-to-date'
        : isAncestor(ws, local, theirs)
          ? 'fast-forward'
          : isAncestor(ws, theirs, local)
            ? 'ahead'
            : undefined;
    if (status === undefined) {
      throw new ShadowError(
        'DIVERGED',
        `draft "${name}" (${local.slice(0, 12)}) and ${remote}/${name} (${theirs.slice(0, 12)}) have diverged: each has commits the other lacks; nothing changed`,
        {
          hint: `look at both (\`shadow log --draft ${remote}/${name}\`); continue theirs under a new name with \`shadow draft new <name> --from ${remote}/${name}\`, or roll this one back to where they part (\`shadow rollback\`) and pull again; push is refused too`,
          data: { draft: name, remote, local, found: theirs },
        },
      );
    }
    plan.push({ draft: name, local, remote: theirs, status });
  }
  const who = repo.committer();
  const out: PulledDraft[] = [];
  for (const p of plan) {
    const remoteDraft = `${remote}/${p.draft}`;
    const snapshot = repo.refs.resolve(metaRef(remoteDraft));
    const joined =
      snapshot === undefined
        ? { join: undefined, imported: 0 }
        : await joinLedger(ws, p.draft, { remote, draft: p.draft, snapshot }, actor);
    if (p.status === 'fast-forward') {
      try {
        await repo.refs.update({
          ref: draftRef(p.draft),
          expected: p.local,
          next: p.remote,
          message: `shadow: pull ${remote}: fast-forward to ${remoteDraft}`,
          who,
        });
      } catch (e) {
        if (e instanceof RefMoved) {
          throw new ShadowError(
            'BUSY',
            `draft "${p.draft}" moved while it was pulled (another writer); it was not fast-forwarded`,
            {
              hint: 'pull again once it is quiet (its ledger already holds what was joined)',
              data: { draft: p.draft, expected: p.local, found: e.current ?? null },
            },
          );
        }
        throw e;
      }
      await takeRemoteRefs(ws, p.draft, remoteDraft, p.remote, snapshot);
      // draft.json is a cache of the commits: its bases, conflicts and batch numbers are rebuilt from the new tip.
      ws.drafts.delete(p.draft);
      writeDraftMeta(ws.ctx, repo.shadowDir, requireDraft(ws, p.draft).meta, true);
    }
    // The other side's snapshot becomes a parent of this side's: the join's snapshot stays reachable, the next push fast-forwards.
    const mine = repo.refs.resolve(metaRef(p.draft));
    if (snapshot !== undefined && (mine === undefined || !isAncestor(ws, snapshot, mine)))
      await snapshotMeta(ws, p.draft, snapshot);
    out.push({
      draft: p.draft,
      was: p.local,
      tip: p.status === 'fast-forward' ? p.remote : p.local,
      status: p.status,
      joined: joined.imported,
      join: joined.join?.seq ?? null,
    });
  }
  return { remote, fetched, drafts: out };
}

/**
 * After a fast-forward: the remote's checkpoints this side lacks (one of
 * the same name here is kept), and its proposal when it proposed the tip
 * now here.
 */
async function takeRemoteRefs(
  ws: Workspace,
  name: string,
  remoteDraft: string,
  tip: Oid,
  snapshot: Oid | undefined,
): Promise<void> {
  const repo = ws.repo;
  const who = repo.committer();
  const prefix = checkpointsPrefix(remoteDraft);
  for (const c of repo.refs.list(prefix)) {
    const ref = checkpointRef(name, c.ref.slice(prefix.length));
    if (repo.refs.resolve(ref) !== undefined) continue;
    try {
      await repo.refs.update({
        ref,
        expected: null,
        next: c.oid,
        message: `shadow: pull from ${remoteDraft}`,
        who,
        reflog: false,
      });
    } catch (e) {
      if (!(e instanceof RefMoved)) throw e;
    }
  }
  const proposal = repo.refs.resolve(proposalRef(remoteDraft));
  if (proposal !== tip || snapshot === undefined) return;
  const entry = repo.objects.readTree(repo.objects.readCommit(snapshot).tree).find((e) => e.name === 'proposal.json');
  if (entry === undefined) return;
  const file = `${draftDir(repo.shadowDir, name)}/proposal.json`;
  const text = repo.objects.readBlob(entry.oid).toString('utf8');
  if (readTextIfExists(ws.ctx.fs, file) !== text)
    writeFileAtomic(ws.ctx.fs, file, text, { token: ws.ctx.ids.token(), durable: true });
  await repo.refs.update({
    ref: proposalRef(name),
    expected: undefined,
    next: proposal,
    message: `shadow: pull from ${remoteDraft}`,
    who,
  });
}
