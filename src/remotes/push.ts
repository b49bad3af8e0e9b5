/**
 * `shadow push`: a draft's refs (its tip, checkpoints, proposal and the
 * snapshot of its files) sent with one `git push --atomic`, each under a
 * lease: the remote's ref must still hold what the last fetch (or push)
 * saw, recorded in `refs/shadow/remotes/<remote>/…`, or be absent when
 * nothing was seen. A remote that moved meanwhile refuses the whole push
 * (STALE_REMOTE, with both tips); a push that went through moves the
 * tracking refs to what it sent.
 */
import { ShadowError } from '../errors.js';
import type { Oid } from '../git/format/git-objects.js';
import { checkpointsPrefix, draftRef, proposalRef } from '../drafts/ref-names.js';
import { requireDraft } from '../drafts/drafts.js';
import { draftEvents } from '../drafts/ledger-events.js';
import type { Workspace } from '../drafts/workspace.js';
import { checkRemote, gitSays, lsRemote, parsePushPorcelain, runGit, trackingRef } from './remote-git.js';
import { guardIgnored } from './local-only.js';
import { snapshotMeta } from './meta-snapshot.js';
import { pushNotes, type NotesTransfer } from './notes-transfer.js';
import { metaRef } from '../drafts/ref-names.js';

/** One ref as a push left it. */
export interface PushedRefResult {
  ref: string;
  oid: Oid;
  /** What the remote held before, as last seen here (null: nothing). */
  was: Oid | null;
  status: 'new' | 'updated' | 'forced' | 'up-to-date';
}

export interface PushResult {
  remote: string;
  drafts: Array<{ draft: string; tip: Oid; refs: PushedRefResult[] }>;
  /** The Agent Trace notes, pushed after the drafts (notes-transfer.ts); absent when turned off. */
  notes?: NotesTransfer;
}

/** Why git refused a ref because the remote is not what the lease expected. */
const STALE =
  /stale info|fetch first|non-fast-forward|failed to update ref|failed to lock|incorrect old value|cannot lock ref/;

/**
 * A pushed draft's commits leave the machine as they are: a secret a batch
 * added (even one a later batch took out) is in them. So a draft whose
 * diff or commits add a secret is pushed only once its secrets_override
 * approvals are given, as `apply --commit` would need; a deny refuses it.
 */
async function guardSecrets(ws: Workspace, name: string): Promise<void> {
  const draft = requireDraft(ws, name);
  const { readPolicy, reviewDraft } = await import('../review/review.js');
  const { draftApprovalStates, deniedError } = await import('../review/approvals.js');
  const { guardBranchCommits } = await import('../review/commit-guard.js');
  const review = await reviewDraft(ws, draft, readPolicy(ws));
  // Scope `any` reads all a push sends: the draft's commits, the commits only a checkpoint or the proposal
  // holds (past a rollback), and the checkpoints' tags; commits whole (files, paths, messages, names).
  const required = [...review.required, ...guardBranchCommits(ws, draft, review.entries, 'any').required];
  const seen = new Set<string>();
  const secrets = required.filter((r) => r.kind === 'secrets_override' && !seen.has(r.id) && seen.add(r.id));
  if (secrets.length === 0) return;
  const states = draftApprovalStates(ws, draftEvents(ws, name), secrets);
  const denied = states.find((s) => s.status === 'denied');
  if (denied) throw deniedError(denied);
  const pending = states.filter((s) => s.status !== 'approved');
  if (pending.length > 0) {
    throw new ShadowError(
      'APPROVALS_PENDING',
      `draft "${name}" adds a secret (${pending[0]!.reason}); it is not pushed until that is approved: nothing was pushed`,
      {
        hint: `\`shadow review --draft ${name}\` shows it; \`shadow approve ${pending[0]!.id} --draft ${name}\` lets it leave, or take the secret out (and roll back past the batch that added it)`,
        data: {
          draft: name,
          pendingApprovals: pending.map((p) => ({
            id: p.id,
            kind: p.kind,
            fingerprint: p.fingerprint,
            reason: p.reason,
            ...(p.commit ? { commit: p.commit } : {}),
          })),
        },
      },
    );
  }
}

/** Push `drafts` to `remote`, atomically, under leases. */
export async function pushDrafts(ws: Workspace, remoteName: string, drafts: readonly string[]): Promise<PushResult> {
  const remote = checkRemote(ws, remoteName);
  const repo = ws.repo;
  const plan: Array<{ draft: string; tip: Oid; refs: Array<{ ref: string; oid: Oid; was: Oid | null }> }> = [];
  for (const d of drafts) {
    const snap = await snapshotMeta(ws, d);
    const refs: Array<{ ref: string; oid: Oid }> = [
      { ref: draftRef(d), oid: snap.tip },
      { ref: metaRef(d), oid: snap.meta },
    ];
    const proposal = repo.refs.resolve(proposalRef(d));
    if (proposal !== undefined) refs.push({ ref: proposalRef(d), oid: proposal });
    for (const c of repo.refs.list(checkpointsPrefix(d))) refs.push({ ref: c.ref, oid: c.oid });
    const history = refs.filter((r) => r.ref !== metaRef(d));
    guardIgnored(ws, d, history);
    await guardSecrets(ws, d);
    plan.push({
      draft: d,
      tip: snap.tip,
      refs: refs.map((r) => ({ ...r, was: repo.refs.resolve(trackingRef(remote.name, r.ref)) ?? null })),
    });
  }
  const all = plan.flatMap((p) => p.refs);
  const args = [
    'push',
    '--atomic',
    '--porcelain',
    ...all.map((r) => `--force-with-lease=${r.ref}:${r.was ?? ''}`),
    remote.name,
    ...all.map((r) => `${r.oid}:${r.ref}`),
  ];
  const run = runGit(ws, args);
  const report = parsePushPorcelain(run.stdout.toString('utf8'));
  const byRef = new Map(report.map((r) => [r.to, r]));
  if (run.status !== 0 || report.some((r) => r.flag === '!')) {
    const refused = report.filter((r) => r.flag === '!' && r.reason !== 'atomic push failed');
    // Stale is what the remote holds, not git's wording: a lease that failed
    // before sending (stale info) and a compare-and-swap the remote lost to
    // another push meanwhile (its transaction failed) both leave a remote ref
    // that is not what this repository last saw.
    const now =
      refused.length > 0
        ? lsRemote(
            ws,
            remote.name,
            all.map((r) => r.ref),
          )
        : undefined;
    const moved =
      now === undefined
        ? []
        : all.filter((r) => (now.get(r.ref) ?? null) !== r.was && (now.get(r.ref) ?? null) !== r.oid);
    if (moved.length > 0 || refused.some((r) => STALE.test(r.reason ?? r.summary))) {
      const first = moved[0] ?? all.find((r) => refused.some((x) => x.to === r.ref))!;
      const owner = plan.find((p) => p.refs.includes(first))!;
      const found = now?.get(first.ref) ?? null;
      throw new ShadowError(
        'STALE_REMOTE',
        `${remote.name} moved since this repository last saw it: ${first.ref} is ${found?.slice(0, 12) ?? 'absent'} there, not ${first.was?.slice(0, 12) ?? 'absent'} as last fetched; nothing was pushed`,
        {
          hint: `\`shadow fetch ${remote.name}\`, look at ${remote.name}/${owner.draft} (\`shadow log --draft ${remote.name}/${owner.draft}\`), then push again (a push after the fetch replaces what it saw there)`,
          data: {
            remote: remote.name,
            draft: owner.draft,
            ref: first.ref,
            expected: first.was,
            found,
            local: first.oid,
            refs: refused.map((r) => ({ ref: r.to, reason: r.reason })),
          },
        },
      );
    }
    const why =
      refused.map((r) => `${r.to}: ${r.reason ?? r.summary}`).join('; ') ||
      gitSays(run.stderr) ||
      `git push exited ${run.status}`;
    throw new ShadowError('REMOTE_FAILED', `git push to ${remote.name} failed: ${why}; nothing was pushed`, {
      hint:
        refused.length > 0
          ? 'the remote refused the push (a hook, or permissions): ask its owner'
          : `check that ${remote.url} is reachable (\`git ls-remote ${remote.name}\`)`,
      data: {
        remote: remote.name,
        status: run.status,
        stderr: run.stderr,
        refused: refused.map((r) => ({ ref: r.to, reason: r.reason ?? r.summary })),
      },
    });
  }
  // What the remote holds now is what was sent: the next push leases against it.
  const who = repo.committer();
  const drafts_: PushResult['drafts'] = [];
  for (const p of plan) {
    const refs: PushedRefResult[] = [];
    for (const r of p.refs) {
      const flag = byRef.get(r.ref)?.flag ?? '=';
      if (r.was !== r.oid) {
        await repo.refs.update({
          ref: trackingRef(remote.name, r.ref),
          expected: undefined,
          next: r.oid,
          message: `shadow: push ${remote.name}`,
          who,
          reflog: false,
        });
      }
      refs.push({
        ref: r.ref,
        oid: r.oid,
        was: r.was,
        status: flag === '*' ? 'new' : flag === '+' ? 'forced' : flag === '=' ? 'up-to-date' : 'updated',
      });
    }
    drafts_.push({ draft: p.draft, tip: p.tip, refs });
  }
  const notes = pushNotes(ws, remote.name);
  return { remote: remote.name, drafts: drafts_, ...(notes ? { notes } : {}) };
}
