import { createHash } from 'node:crypto';
import { scanChanges } from './change-secrets.js';
import { summaryOf } from '../drafts/commit-message.js';
import type { Oid } from '../git/format/git-objects.js';
import { sameEntry, type PublishEntry } from '../drafts/publish-set.js';
import type { SecretFinding } from '../core/secret-scan.js';
import { diffTrees, type FileChange } from '../git/format/tree-diff.js';
import { lookupPath } from '../git/format/tree-lookup.js';
import { commitScanCacheOf } from '../state/commit-scan-cache.js';
import type { Draft } from '../drafts/drafts.js';
import { historySince } from '../drafts/history.js';
import { approvalId, SCAN_KEY, type RequiredApproval } from './review.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * The secret guard for what a publish puts on a branch. The review guards
 * the final diff; `apply --commit` also publishes every commit of the draft
 * (fast-forwarded or replayed), and a secret added in one commit and
 * removed in a later one is in the branch's history all the same. So each
 * published commit is scanned against its parent, and each that adds a
 * secret asks for its own `secrets_override`, bound to the commit.
 *
 * Capture commits are scanned too. They hold the user's own uncommitted
 * work, not the agent's, but `--commit` puts them on the branch like any
 * other, and a key is no less leaked for being the user's.
 *
 * `--squash` makes one commit: HEAD's tree with the published paths. When
 * HEAD holds the draft's bases for those paths, its diff is the final diff,
 * which the review guards; otherwise (the user's uncommitted state was
 * captured) that commit's own diff against HEAD is scanned.
 */

/** Which publish to guard: `--commit`, `--squash`, or both (for a reviewer, and to find an approval by id). */
export type BranchScope = 'commit' | 'squash' | 'any';

export interface CommitSecrets {
  /** The draft's commit, or null for the commit `--squash` would make. */
  commit: Oid | null;
  /** A capture commit: the user's state before a batch. */
  capture: boolean;
  subject: string;
  secrets: SecretFinding[];
}

export interface BranchGuard {
  /** The published commits that add secrets, oldest first. */
  commits: CommitSecrets[];
  required: RequiredApproval[];
}

function listFindings(secrets: readonly SecretFinding[]): string {
  const where = [...new Set(secrets.map((s) => `${s.path}:${s.line} (${s.rule})`))];
  return `${where.slice(0, 5).join(', ')}${where.length > 5 ? ', …' : ''}`;
}

function secretCount(secrets: readonly SecretFinding[]): string {
  return secrets.length === 1 ? 'a secret' : `${secrets.length} secrets`;
}

const SQUASH_HINT = '`shadow apply --squash -m <message>` publishes only the final diff as one commit';

/** The draft's commits `apply --commit` publishes, oldest first, each with the secrets it adds (scans cached by commit id). */
function scanDraftCommits(ws: Workspace, draft: Draft): CommitSecrets[] {
  const repo = ws.repo;
  const cache = commitScanCacheOf(ws.ctx, repo.shadowDir, draft.name, SCAN_KEY);
  const out: CommitSecrets[] = [];
  try {
    for (const h of historySince(repo, draft.tip, draft.meta.root).reverse()) {
      let scan = cache.get(h.oid);
      if (!scan) {
        const parent = h.commit.parents[0];
        const parentTree = parent === undefined ? null : repo.objects.readCommit(parent).tree;
        scan = scanChanges(diffTrees(repo.objects, parentTree, h.commit.tree), (oid) => repo.objects.readBlob(oid));
        cache.put(h.oid, scan);
      }
      if (scan.secrets.length === 0) continue;
      const capture = h.trailers.capture !== undefined;
      const subject = capture
        ? `your uncommitted state, captured before batch ${h.trailers.capture}`
        : `batch ${h.trailers.batch ?? '?'}: ${summaryOf(h.commit.message)}`;
      out.push({ commit: h.oid, capture, subject, secrets: scan.secrets });
    }
  } finally {
    cache.flush();
  }
  return out;
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

/**
 * The secrets in the commits a publish in `scope` puts on the branch, and
 * the `secrets_override` approvals they ask for. Cost: the diffs of the
 * commits not scanned before (each scan is cached by commit id), and a
 * walk of the draft's history.
 */
export function guardBranchCommits(ws: Workspace, draft: Draft, entries: readonly PublishEntry[], scope: BranchScope): BranchGuard {
  const guard: BranchGuard = { commits: [], required: [] };
  if (scope !== 'squash') {
    for (const c of scanDraftCommits(ws, draft)) {
      const fingerprint = `commit:${c.commit!}`;
      guard.commits.push(c);
      guard.required.push({
        id: approvalId(fingerprint, 'secrets_override'),
        kind: 'secrets_override',
        fingerprint,
        reason:
          `commit ${c.commit!.slice(0, 12)} (${c.subject}) adds ${secretCount(c.secrets)}: ${listFindings(c.secrets)}; ` +
          `\`apply --commit\` would put it on the branch (${SQUASH_HINT})`,
        paths: [...new Set(c.secrets.map((s) => s.path))],
        when: 'commit',
        commit: c.commit!,
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
        for (const c of changes) h.update(`${c.path}\0${c.old?.mode ?? ''} ${c.old?.oid ?? ''}\0${c.new?.mode ?? ''} ${c.new?.oid ?? ''}\n`);
        const fingerprint = `squash:${h.digest('hex')}`;
        guard.commits.push({ commit: null, capture: false, subject: 'the squashed commit', secrets });
        guard.required.push({
          id: approvalId(fingerprint, 'secrets_override'),
          kind: 'secrets_override',
          fingerprint,
          reason:
            `the commit \`apply --squash\` would make adds ${secretCount(secrets)} against HEAD ` +
            `(your uncommitted state goes in with it): ${listFindings(secrets)}`,
          paths: [...new Set(secrets.map((s) => s.path))],
          when: 'squash',
        });
      }
    }
  }
  return guard;
}
