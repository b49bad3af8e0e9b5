// Publishing from the page: the draft's files, each with its state (the
// person changed it since the draft captured it: apply merges; in conflict
// since a rebase), Apply (all, or the files ticked), Unapply, and Rollback
// to a checkpoint. Each button is the library call the CLI makes, and a
// refusal shows the same code and hint.
import { post, draftPath } from './api.js';
import { el, plural } from './dom.js';
import { say, sayError } from './message.js';
import { expectOf } from './seen.js';

/** The files ticked for a partial apply, per draft, kept across refreshes. */
const ticked = new Map();

/** What apply does to a file: from the review's entry (old and new blob, null where absent). */
const change = (f) => (f.old === null ? ['added', 'A'] : f.new === null ? ['deleted', 'D'] : ['modified', 'M']);

function fileRow(draft, f, notes) {
  const set = ticked.get(draft);
  const box = el('input', { type: 'checkbox', checked: set.has(f.path), onchange: () => (box.checked ? set.add(f.path) : set.delete(f.path)) });
  box.dataset.path = f.path;
  const [what, letter] = change(f);
  return el(
    'li',
    { dataset: { path: f.path } },
    el('label', {}, box, ' ', el('span', { className: `change ${what}`, title: what }, letter), ` ${f.path}`),
    ...notes.map(([cls, text]) => el('span', { className: `note ${cls}` }, text)),
  );
}

async function act(run, refresh) {
  try {
    say(await run());
  } catch (e) {
    sayError(e);
  }
  await refresh();
}

export function actionsSection(draft, detail, refresh) {
  if (!ticked.has(draft)) ticked.set(draft, new Set());
  const set = ticked.get(draft);
  const files = detail.review.files ?? [];
  for (const p of [...set]) if (!files.some((f) => f.path === p)) set.delete(p);
  const drifted = new Set((detail.drifted ?? []).map((d) => d.path));
  const conflicts = new Map((detail.review.conflicts ?? []).map((c) => [c.path, c.reason]));
  const rows = files.map((f) => {
    const notes = [];
    if (drifted.has(f.path)) notes.push(['drifted', 'changed in the working tree since captured: apply merges']);
    if (conflicts.has(f.path)) notes.push(['conflict', `conflict: ${conflicts.get(f.path)}`]);
    return fileRow(draft, f, notes);
  });

  const apply = () =>
    act(async () => {
      const paths = [...set];
      const expect = expectOf(draft, detail.review);
      const r = await post(`${draftPath(draft)}/apply`, paths.length > 0 ? { paths, expect } : { expect });
      set.clear();
      const conflicted = r.conflicts?.length ? `, ${plural(r.conflicts.length, 'conflict')}` : '';
      return `applied ${plural(r.paths.length, 'path')}${conflicted}`;
    }, refresh);
  const unapply = () => act(async () => `unapplied: ${plural((await post(`${draftPath(draft)}/unapply`)).paths.length, 'path')} put back`, refresh);
  const target = el('select', { id: 'rollback-target' }, detail.checkpoints.map((c) => el('option', { value: c.name }, `${c.name}${c.batch === null ? '' : ` (batch ${c.batch})`}`)));
  const rollback = () =>
    act(async () => {
      const r = await post(`${draftPath(draft)}/rollback`, { target: target.value });
      return `rolled back to ${target.value} (${String(r.to).slice(0, 12)})`;
    }, refresh);

  return el(
    'section',
    { id: 'actions' },
    el('h3', {}, 'Apply'),
    files.length === 0 ? el('p', {}, 'The draft changes nothing against its bases.') : el('ul', { className: 'files' }, rows),
    el(
      'p',
      { className: 'buttons' },
      el('button', { type: 'button', id: 'apply', onclick: apply, disabled: files.length === 0 }, 'Apply (the ticked files, or all)'),
      el('button', { type: 'button', id: 'unapply', onclick: unapply }, 'Unapply the last apply'),
      detail.checkpoints.length > 0 ? [target, el('button', { type: 'button', id: 'rollback', onclick: rollback }, 'Roll back')] : null,
    ),
  );
}
