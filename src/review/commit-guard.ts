import { createHash } from 'node:crypto';
import { ShadowError } from '../errors.js';
import { scanChanges, type ChangeSecrets } from './change-secrets.js';
import { summaryOf } from '../drafts/commit-message.js';
import type { Oid } from '../git/format/git-objects.js';
import { sameEntry, type PublishEntry } from '../drafts/publish-set/publish-set.js';
import { maskSecrets, scanText, type SecretFinding } from '../core/secret-scan.js';
import { diffTrees, type FileChange } from '../git/format/tree-diff.js';
import { lookupPath } from '../git/format/tree-lookup.js';
import { commitScanCacheOf } from '../state/commit-scan-cache.js';
import type { Draft } from '../drafts/drafts.js';
import { historySince } from '../drafts/history.js';
import { parseTrailers } from '../drafts/commit-message.js';
import { checkpointsPrefix, proposalRef } from '../drafts/ref-names.js';
import { approvalId, SCAN_KEY, type RequiredApproval } from './review.js';
import { findingPlace, scanCommitFields, scanTagFields } from './metadata-secrets.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * The secret guard for what a publish puts on a branch, or a push on a
 * remote. The review guards the final diff; `apply --commit` also
 * publishes every commit of the draft (fast-forwarded or replayed), and a
 * secret added in one commit and removed in a later one is in the
 * branch's history all the same. So each published commit is scanned
 * against its parent, and each that adds a secret asks for its own
 * `secrets_override`, bound to the commit. A commit is read whole: the
 * lines and the paths it adds, and its message (the batch's intent, the
 * trailers naming actor and model), author and committer.
 *
 * Capture commits are scanned too. They hold the user's own uncommitted
 * work, not the agent's, but `--commit` puts them on the branch like any
 * other, and a key is no less leaked for being the user's.
 *
 * `--squash` makes one commit: HEAD's tree with the published paths. When
 * HEAD holds the draft's bases for those paths, its diff is the final diff,
 * which the review guards; otherwise (the user's uncommitted state was
 * captured) that commit's own diff against HEAD is scanned. Its message
 * and author are the person's `-m` and `--actor`: one holding a secret is
 * refused (SECRET_IN_MESSAGE) before anything is written, as there is
 * nothing to approve that a new message would not fix.
 *
 * A push also sends the draft's checkpoints (annotated tags: name, tagger,
 * message) and its proposal, which may hold commits the draft rolled back
 * past. Scope `any` guards them too (`when: 'push'`).
 */

/** Which publish to guard: `--commit`, `--squash`, or everything (a push, a reviewer, finding an approval by id). */
export type BranchScope = 'commit' | 'squash' | 'any';

export interface CommitSecrets {
  /** The draft's commit, or null for the commit `--squash` would make (and for a checkpoint's tag). */
  commit: Oid | null;
  /** A capture commit: the user's state before a batch. */
  capture: boolean;
  /** The checkpoint whose tag holds the secrets (a push sends it). */
  checkpoint?: string;
  /** What it is, secrets masked. */
  subject: string;
  secrets: SecretFinding[];
}

export interface BranchGuard {
  /** The published commits (and pushed checkpoints) that add secrets, oldest first. */
  commits: CommitSecrets[];
  required: RequiredApproval[];
}

/** The squashed commit's own message and author (`apply --squash -m <message> --actor <actor>`). */
export interface SquashCommit {
  message: string;
  actor: string;
}

function listFindings(secrets: readonly SecretFinding[]): string {
  const where = [...new Set(secrets.map(findingPlace))];
  return `${where.slice(0, 5).join(', ')}${where.length > 5 ? ', …' : ''}`;
}

function secretCount(secrets: readonly SecretFinding[]): string {
  return secrets.length === 1 ? 'a secret' : `${secrets.length} secrets`;
}

/** The files a finding is in (none for a message or a name). */
function filesOf(secrets: readonly SecretFinding[]): string[] {
  return [...new Set(secrets.filter((s) => s.where === 'content' || s.where === 'path').map((s) => s.path))];
}

const SQUASH_HINT = '`shadow apply --squash -m <message>` publishes only the final diff as one commit';

/** A first-parent walk that a corrupt or foreign history cannot make endless. */
const WALK_LIMIT = 1_000_000;

/** What one commit adds (files, paths, message, names), cached by commit id. */
function scanCommit(ws: Workspace, cache: ReturnType<typeof commitScanCacheOf>, oid: Oid): ChangeSecrets {
  let scan = cache.get(oid);
  if (!scan) {
    const repo = ws.repo;
    const commit = repo.objects.readCommit(oid);
    const parent = commit.parents[0];
    const parentTree = parent === undefined ? null : repo.objects.readCommit(parent).tree;
    scan = scanChanges(diffTrees(repo.objects, parentTree, commit.tree), (b) => repo.objects.readBlob(b));
    scan.secrets.push(...scanCommitFields(commit));
    cache.put(oid, scan);
  }
  return scan;
}

function describeCommit(message: string): { capture: boolean; subject: string } {
  const trailers = parseTrailers(message);
  if (trailers.capture !== undefined)
    return { capture: true, subject: `your uncommitted state, captured before batch ${trailers.capture}` };
  return { capture: false, subject: maskSecrets(`batch ${trailers.batch ?? '?'}: ${summaryOf(message)}`) };
}

/**
 * The draft's commits `apply --commit` publishes, oldest first, each with the
 * secrets it adds; with `others`, also the commits those tips hold that the
 * draft's history does not (a checkpoint or proposal past a rollback).
 */
function scanDraftCommits(
  ws: Workspace,
  draft: Draft,
  others: readonly Oid[],
): Array<CommitSecrets & { pushOnly: boolean }> {
  const repo = ws.repo;
  const cache = commitScanCacheOf(ws.ctx, repo.shadowDir, draft.name, SCAN_KEY);
  const out: Array<CommitSecrets & { pushOnly: boolean }> = [];
  const seen = new Set<Oid>([draft.meta.root]);
  const found = (oid: Oid, pushOnly: boolean): void => {
    const scan = scanCommit(ws, cache, oid);
    if (scan.secrets.length > 0)
      out.push({
        commit: oid,
        ...describeCommit(repo.objects.readCommit(oid).message),
        secrets: scan.secrets,
        pushOnly,
      });
  };
  try {
    for (const h of historySince(repo, draft.tip, draft.meta.root).reverse()) {
      seen.add(h.oid);
      found(h.oid, false);
    }
    for (const tip of others) {
      const line: Oid[] = [];
      let oid: Oid | undefined = tip;
      // Down to a commit the draft's history holds, or to one that is no draft's (its root and below, as for the tip).
      for (let i = 0; oid !== undefined && !seen.has(oid) && i < WALK_LIMIT; i++) {
        seen.add(oid);
        const commit = repo.objects.readCommit(oid);
        if (parseTrailers(commit.message).draft === undefined) break;
        line.push(oid);
        oid = commit.parents[0];
      }
      for (const c of line.reverse()) found(c, true);
    }
  } finally {
    cache.flush();
  }
  return out;
}

/** The commit an annotated tag (or a chain of them) points at. */
function peel(ws: Workspace, oid: Oid): Oid {
  for (let i = 0; i < 16 && ws.repo.objects.read(oid).type === 'tag'; i++) oid = ws.repo.objects.readTag(oid).object;
  return oid;
}

/** The draft's checkpoints and proposal as a push sends them: the secrets in their tags, and the commits they point at. */
function pushedExtras(ws: Workspace, draft: Draft): { tips: Oid[]; tags: Array<CommitSecrets & { tag: Oid }> } {
  const repo = ws.repo;
  const refs = repo.refs.list(checkpointsPrefix(draft.name));
  const proposal = repo.refs.resolve(proposalRef(draft.name));
  const tips: Oid[] = [];
  const tags: Array<CommitSecrets & { tag: Oid }> = [];
  for (const r of refs) {
    const name = r.ref.slice(checkpointsPrefix(draft.name).length);
    if (repo.objects.read(r.oid).type === 'tag') {
      const secrets = scanTagFields(repo.objects.readTag(r.oid));
      if (secrets.length > 0)
        tags.push({
          tag: r.oid,
          commit: null,
          capture: false,
          checkpoint: maskSecrets(name),
          subject: `checkpoint ${maskSecrets(name)}`,
          secrets,
        });
    }
    tips.push(peel(ws, r.oid));
  }
  if (proposal !== undefined) tips.push(peel(ws, proposal));
  return { tips, tags };
}

/** The changes of the commit `--squash` would make on the current branch, or undefined without a branch. */
function squashChanges(ws: Workspace, entries: readonly PublishEntry[]): FileChange[] | undefined {
  const target = ws.repo.refs.headTarget();
  if (!target?.startsWith('refs/heads/')) return undefined; // apply refuses it (NO_BRANCH) before any write
  const head = ws.repo.refs.resolve(target);
  const tree = head === undefined ? null : ws.repo.objects.readCommit(head).tree;
  const changes: FileChange[] = [];
  for (const e of entries) {
    const k = tree === null ? null : lookupPath(ws.repo.objects, tree, e.path);
    const old = k?.kind === 'file' ? { mode: k.mode, oid: k.oid } : null;
    if (!sameEntry(old, e.new)) changes.push({ path: e.path, old, new: e.new });
  }
  return changes;
}

/** SECRET_IN_MESSAGE when the squashed commit's own message or author holds a secret. */
function refuseSquashSecrets(squash: SquashCommit): void {
  const found = [...scanText('', squash.message, 'message'), ...scanText('', squash.actor, 'author')];
  if (found.length === 0) return;
  const fields = [...new Set(found.map((f) => (f.where === 'author' ? '--actor' : '-m')))].join(' and ');
  throw new ShadowError(
    'SECRET_IN_MESSAGE',
    `the commit \`apply --squash\` would make holds ${secretCount(found)} in its ${fields} (${listFindings(found)}): nothing was written`,
    {
      hint: `give ${fields} without it: a commit message or author name is no place for a credential`,
      data: { secrets: found },
    },
  );
}

/**
 * The secrets in the commits a publish in `scope` puts on the branch (and,
 * for `any`, in what a push sends), and the `secrets_override` approvals
 * they ask for. `squash`, given for `--squash`, is checked first. Cost: the
 * diffs of the commits not scanned before (each scan is cached by commit
 * id), and a walk of the draft's history.
 */
export function guardBranchCommits(
  ws: Workspace,
  draft: Draft,
  entries: readonly PublishEntry[],
  scope: BranchScope,
  squash?: SquashCommit,
): BranchGuard {
  if (squash && scope !== 'commit') refuseSquashSecrets(squash);
  const guard: BranchGuard = { commits: [], required: [] };
  if (scope !== 'squash') {
    const extras = scope === 'any' ? pushedExtras(ws, draft) : { tips: [], tags: [] };
    for (const c of scanDraftCommits(ws, draft, extras.tips)) {
      const fingerprint = `commit:${c.commit!}`;
      const { pushOnly, ...commit } = c;
      guard.commits.push(commit);
      const reach = pushOnly
        ? '`shadow push` would send it (a checkpoint or the proposal holds it)'
        : `\`apply --commit\` would put it on the branch (${SQUASH_HINT})`;
      guard.required.push({
        id: approvalId(fingerprint, 'secrets_override'),
        kind: 'secrets_override',
        fingerprint,
        reason: `commit ${c.commit!.slice(0, 12)} (${c.subject}) adds ${secretCount(c.secrets)}: ${listFindings(c.secrets)}; ${reach}`,
        paths: filesOf(c.secrets),
        when: pushOnly ? 'push' : 'commit',
        commit: c.commit!,
      });
    }
    for (const { tag, ...t } of extras.tags) {
      const fingerprint = `checkpoint:${tag}`;
      guard.commits.push(t);
      guard.required.push({
        id: approvalId(fingerprint, 'secrets_override'),
        kind: 'secrets_override',
        fingerprint,
        reason: `${t.subject} holds ${secretCount(t.secrets)} in its tag: ${listFindings(t.secrets)}; \`shadow push\` would send it`,
        paths: [],
        when: 'push',
      });
    }
  }
  if (scope !== 'commit') {
    const changes = squashChanges(ws, entries);
    // HEAD holds every base: the squashed commit's diff is the final diff, which the review guards.
    const bases = new Map(entries.map((e) => [e.path, e.old]));
    const own = changes?.some((c) => !sameEntry(c.old, bases.get(c.path) ?? null));
    if (changes && own) {
      const { secrets } = scanChanges(changes, (oid) => ws.repo.objects.readBlob(oid));
      if (secrets.length > 0) {
        const h = createHash('sha256');
        for (const c of changes)
          h.update(`${c.path}\0${c.old?.mode ?? ''} ${c.old?.oid ?? ''}\0${c.new?.mode ?? ''} ${c.new?.oid ?? ''}\n`);
        const fingerprint = `squash:${h.digest('hex')}`;
        guard.commits.push({ commit: null, capture: false, subject: 'the squashed commit', secrets });
        guard.required.push({
          id: approvalId(fingerprint, 'secrets_override'),
          kind: 'secrets_override',
          fingerprint,
          reason:
            `the commit \`apply --squash\` would make adds ${secretCount(secrets)} against HEAD ` +
            `(your uncommitted state goes in with it): ${listFindings(secrets)}`,
          paths: filesOf(secrets),
          when: 'squash',
        });
      }
    }
  }
  return guard;
}
