// What apply needs decided: the findings (secrets masked, protected paths,
// mass deletes) and each approval, with Approve and Deny and a reason. The
// buttons call the same library calls as `shadow approve` and `shadow deny`.
import { post, draftPath } from './api.js';
import { el } from './dom.js';
import { say, sayError } from './message.js';
import { expectOf } from './seen.js';

function findings(review) {
  const items = [];
  for (const s of review.secrets ?? []) items.push(el('li', { className: 'secret' }, `secret: ${s.description} in ${s.path}:${s.line} (${s.redacted})`));
  for (const p of review.protected ?? []) items.push(el('li', {}, `protected path: ${p}`));
  if ((review.deletions ?? 0) > 0) items.push(el('li', {}, `deletes ${review.deletions} file${review.deletions === 1 ? '' : 's'}`));
  for (const p of review.unscanned ?? []) items.push(el('li', {}, `binary, not scanned for secrets: ${p}`));
  for (const c of review.conflicts ?? []) items.push(el('li', { className: 'conflict' }, `conflict since the rebase: ${c.path} (${c.reason})`));
  return items;
}

function approvalRow(draft, review, a, refresh) {
  const reason = el('input', { type: 'text', placeholder: 'reason', className: 'reason', disabled: a.status !== 'pending' });
  const decide = (decision) => async () => {
    try {
      const r = await post(`${draftPath(draft)}/approvals/${encodeURIComponent(a.id)}`, { decision, reason: reason.value, expect: expectOf(draft, review) });
      say(`${r.id} ${r.status}`);
    } catch (e) {
      sayError(e);
    }
    await refresh();
  };
  const decided = a.status === 'pending' ? null : `${a.status}${a.decided_by ? ` by ${a.decided_by}` : ''}${a.decision_reason ? `: ${a.decision_reason}` : ''}`;
  return el(
    'tr',
    { dataset: { approval: a.id, status: a.status } },
    el('td', {}, a.kind),
    el('td', {}, a.reason),
    el('td', {}, (a.paths ?? []).join(', ')),
    el('td', { className: `status ${a.status}` }, decided ?? 'pending'),
    el(
      'td',
      { className: 'decide' },
      a.status === 'pending' ? [reason, el('button', { type: 'button', className: 'approve', onclick: decide('approve') }, 'Approve'), el('button', { type: 'button', className: 'deny', onclick: decide('deny') }, 'Deny')] : null,
    ),
  );
}

export function decisionsSection(draft, review, refresh) {
  const found = findings(review);
  const approvals = review.approvals ?? [];
  return el(
    'section',
    { id: 'decisions' },
    el('h3', {}, 'Decisions'),
    found.length === 0 && approvals.length === 0 ? el('p', {}, 'Nothing to decide: the review found no secrets, protected paths or mass deletes.') : null,
    found.length > 0 ? el('ul', { className: 'findings' }, found) : null,
    approvals.length > 0
      ? el(
          'table',
          { id: 'approvals' },
          el('thead', {}, el('tr', {}, ...['Kind', 'Why', 'Paths', 'State', ''].map((h) => el('th', {}, h)))),
          el('tbody', {}, approvals.map((a) => approvalRow(draft, review, a, refresh))),
        )
      : null,
  );
}
