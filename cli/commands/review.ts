import type { ApprovalState, LedgerEvent, ReviewReport } from '../../src/index.js';
import { EXIT } from '../exit-status.js';
import { pad, plural, short, shortTime } from '../output.js';
import type { CommandContext } from '../command-context.js';

/** `shadow propose [-m msg]` */
export async function propose(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const p = await sh.propose({ draft: ctx.draft, actor: ctx.actor, message: ctx.argv.message as string | undefined });
  ctx.out.result(p, () =>
    [
      `proposed draft ${sh.draftName({ draft: ctx.draft })} at ${short(p.commit)}: ${plural(p.target_files.length, 'path')}`,
      `fingerprint ${p.patch_fingerprint}`,
      p.contains_secret_introductions
        ? `adds ${plural(p.findings.secrets.length, 'secret')}: apply will need a secrets_override approval`
        : 'no secrets in added lines',
      'look at it with `shadow review`',
    ].join('\n'),
  );
}

function whomOf(a: { decided_identity?: string; decided_host?: string; decided_via?: string }): string {
  return [
    a.decided_identity,
    a.decided_host ? `on ${a.decided_host}` : undefined,
    a.decided_via ? `via ${a.decided_via}` : undefined,
  ]
    .filter((x) => x !== undefined)
    .join(' ');
}

/** How this repository knows the decision: made here, signed by a trusted key, or (a deny from elsewhere) not at all. */
function verifiedOf(a: ApprovalState): string {
  if (a.verified === 'signed') return `signed, verified by ${a.verified_by}`;
  if (a.verified === 'here') return a.signed ? 'made here, signed' : 'made here';
  return 'not verified here';
}

function approvalLine(a: ApprovalState): string {
  const whom = whomOf(a);
  const why = a.decision_reason ? `: ${a.decision_reason}` : '';
  const who =
    a.status === 'pending'
      ? ''
      : ` by ${a.decided_by}${whom ? ` (${whom})` : ''} at ${shortTime(a.decided_at ?? '')}${why} [${verifiedOf(a)}]`;
  const only = a.when === 'push' ? ' (shadow push only)' : a.when ? ` (apply --${a.when} only)` : '';
  const lines = [`  ${a.id}  ${pad(a.kind, 16)} ${pad(a.status, 8)} ${a.reason}${only}${who}`];
  for (const u of a.unverified ?? []) {
    const by = whomOf(u);
    lines.push(
      `      approved by ${u.decided_by}${by ? ` (${by})` : ''} at ${shortTime(u.decided_at)}: not verified here, ${u.why}`,
    );
  }
  return lines.join('\n');
}

function describeReview(r: ReviewReport, stat: boolean): string {
  const lines = [
    `draft ${r.draft} (${r.status}) at ${short(r.tip)}: ${plural(r.files.length, 'path')}`,
    `fingerprint ${r.fingerprint}`,
    `review fingerprint ${r.review_fingerprint} (apply, approve and deny --expect it: refused if the draft changes)`,
  ];
  if (r.hunks) {
    lines.push(
      `partly applied (${plural(r.hunks.paths.length, 'path')}): ${r.hunks.applied} hunks applied, ${r.hunks.remaining} not yet applied`,
    );
    for (const p of r.hunks.paths)
      lines.push(`  ${p.path}: ${p.applied} of ${plural(p.applied + p.remaining, 'hunk')} applied`);
  }
  if (r.secrets.length > 0) {
    lines.push(`secrets in added lines and paths (${r.secrets.length}):`);
    for (const s of r.secrets) lines.push(`  ${s.path}:${s.line}  ${pad(s.rule, 26)} ${s.redacted}`);
  }
  if (r.conflicts.length > 0) {
    lines.push(`in conflict since the rebase, refused by apply until resolved (${r.conflicts.length}):`);
    for (const c of r.conflicts) lines.push(`  ${pad(c.reason, 13)} ${c.path}`);
  }
  if (r.placements.length > 0) {
    lines.push(`placed by apply_patch as Codex places them, worth a look (${r.placements.length}):`);
    for (const n of r.placements)
      lines.push(`  ${n.batch === undefined ? short(n.commit) : `batch ${n.batch}`}  ${n.path}: ${n.note}`);
  }
  if (r.protected.length > 0) lines.push(`protected paths: ${r.protected.join(', ')}`);
  if (r.unscanned.length > 0) lines.push(`not scanned (binary): ${r.unscanned.join(', ')}`);
  const none = r.branch_approvals.length > 0 ? 'approvals: none needed to apply the files' : 'approvals: none needed';
  lines.push(r.approvals.length > 0 ? `approvals (${r.approvals.length}):` : none);
  for (const a of r.approvals) lines.push(approvalLine(a));
  if (r.branch_approvals.length > 0) {
    lines.push(`also needed to put commits on the branch (${r.branch_approvals.length}):`);
    for (const a of r.branch_approvals) lines.push(approvalLine(a));
  }
  lines.push('');
  const conflicted = new Set(r.conflicts.map((c) => c.path));
  if (stat)
    for (const f of r.files)
      lines.push(`  ${conflicted.has(f.path) ? 'U' : f.old === null ? 'A' : f.new === null ? 'D' : 'M'} ${f.path}`);
  else lines.push(r.diff);
  return lines.join('\n');
}

/** `shadow review [--stat]` */
export async function review(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const r = await sh.review({ draft: (ctx.argv.name as string | undefined) ?? ctx.draft });
  ctx.out.result(r, () => describeReview(r, ctx.argv.stat === true));
}

/** `shadow approve <id> [--reason …]` */
export async function approve(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const a = await sh.approve(String(ctx.argv.id), {
    draft: ctx.draft,
    actor: ctx.actor,
    reason: ctx.argv.reason as string | undefined,
    sign: ctx.argv.sign as boolean | undefined,
    expect: ctx.argv.expect as string | undefined,
  });
  const signed = a.signed ? ' (signed)' : '';
  ctx.out.result(a, () =>
    a.commit
      ? `approved ${a.id} (${a.kind}) for commit ${a.commit.slice(0, 12)}${signed}: \`apply --commit\` may publish it`
      : `approved ${a.id} (${a.kind}) for ${a.fingerprint.slice(0, 20)}…${signed}: valid until the draft changes`,
  );
}

/** `shadow deny <id> --reason …` */
export async function deny(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const a = await sh.deny(String(ctx.argv.id), {
    draft: ctx.draft,
    actor: ctx.actor,
    reason: ctx.argv.reason as string | undefined,
    sign: ctx.argv.sign as boolean | undefined,
    expect: ctx.argv.expect as string | undefined,
  });
  ctx.out.result(
    a,
    () => `denied ${a.id} (${a.kind})${a.signed ? ' (signed)' : ''}: apply fails until the draft changes`,
  );
}

function eventLine(e: LedgerEvent): string {
  const d = e.data;
  const what =
    e.type === 'batch/commit'
      ? `batch ${String(d.batch)} ${String(d.intent ?? '')} (${Array.isArray(d.ops) ? d.ops.length : 0} ops)`
      : e.type === 'tx/status'
        ? `${String(d.from)} -> ${String(d.to)}`
        : e.type.startsWith('approval/')
          ? `${String(d.id)} ${String(d.kind)}${d.decision ? ` ${String(d.decision)}` : ''}${d.reason ? `: ${String(d.reason)}` : ''}`
          : Object.entries(d)
              .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
              .slice(0, 3)
              .map(([k, v]) => `${k}=${String(v).length > 40 ? `${String(v).slice(0, 12)}…` : String(v)}`)
              .join(' ');
  return `${String(e.seq).padStart(4)} ${shortTime(e.ts)} ${pad(e.type, 18)} ${pad(e.actor, 14)} ${what}`;
}

/** `shadow events [--follow] [--verify]` */
export async function events(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const draft = ctx.draft;
  if (ctx.argv.verify === true) {
    const v = await sh.verifyEvents({ draft });
    ctx.out.result(v, () =>
      v.ok
        ? `ledger intact: ${plural(v.events, 'event')}${v.sealed ? `, ${plural(v.sealed, 'torn line')} sealed` : ''}`
        : `ledger broken at line ${v.broken!.line}: ${v.broken!.reason}`,
    );
    return v.ok ? EXIT.ok : EXIT.error;
  }
  const print = (list: LedgerEvent[]): void => {
    for (const e of list) ctx.io.stdout(ctx.out.json ? `${JSON.stringify(e)}\n` : `${eventLine(e)}\n`);
  };
  let seen = 0;
  const list = await sh.events({ draft });
  print(list);
  seen = list.length ? list[list.length - 1]!.seq : 0;
  if (ctx.argv.follow !== true) return EXIT.ok;
  // Follow: poll the ledger until interrupted (a signal ends the process).
  for (;;) {
    await new Promise((r) => setTimeout(r, 300));
    const fresh = (await sh.events({ draft })).filter((e) => e.seq > seen);
    if (fresh.length > 0) {
      print(fresh);
      seen = fresh[fresh.length - 1]!.seq;
    }
  }
}
