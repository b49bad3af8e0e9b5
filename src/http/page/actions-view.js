// Publishing from the page: the draft's files, each with its state (the
// person changed it since the draft captured it: apply merges; in conflict
// since a rebase; partly applied: its hunks applied and not yet), Apply
// (all, the files ticked, or the hunks ticked in the diff: ticks.js),
// Unapply, and Rollback to a checkpoint. Each button is the library call
// the CLI makes, and a refusal shows the same code and hint.
import { post, draftPath } from './api.js';
import { el, plural } from './dom.js';
import { say, sayError } from './message.js';
import { expectOf } from './seen.js';
import { applySelection, applyLabel, keepFiles, showTicks, ticksOf } from './ticks.js';

/** What apply does to a file: from the review's entry (old and new blob, null where absent). */
const change = (f) => (f.old === null ? ['added', 'A'] : f.new === null ? ['deleted', 'D'] : ['modified', 'M']);

function fileRow(draft, f, notes) {
  const set = ticksOf(draft).files;
  const box = el('input', {
    type: 'checkbox',
    checked: set.has(f.path),
    onchange: () => {
      if (box.checked) set.add(f.path);
      else set.delete(f.path);
      showTicks(draft);
    },
  });
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

/** What an apply did: its paths, conflicts, and the paths it took part of. */
function applied(r) {
  const conflicted = r.conflicts?.length ? `, ${plural(r.conflicts.length, 'conflict')}` : '';
  const parts = (r.partial ?? []).map((p) => `${p.chosen} of ${plural(p.hunks, 'hunk')} of ${p.path}`);
  return `applied ${plural(r.paths.length, 'path')}${conflicted}${parts.length > 0 ? ` (${parts.join('; ')})` : ''}`;
}

/** The review's counts over the paths a hunk apply took part of, or null. */
function hunkCounts(counts) {
  if (!counts) return null;
  const text = `partly applied (${plural(counts.paths.length, 'path')}): ${plural(counts.applied, 'hunk')} applied, ${counts.remaining} not yet applied`;
  return el('p', { id: 'hunk-counts' }, text);
}

export function actionsSection(draft, detail, refresh) {
  const files = detail.review.files ?? [];
  keepFiles(draft, new Set(files.map((f) => f.path)));
  const part = new Map((detail.review.hunks?.paths ?? []).map((p) => [p.path, p]));
  const drifted = new Set((detail.drifted ?? []).map((d) => d.path));
  const conflicts = new Map((detail.review.conflicts ?? []).map((c) => [c.path, c.reason]));
  const rows = files.map((f) => {
    const notes = [];
    if (drifted.has(f.path)) notes.push(['drifted', 'changed in the working tree since captured: apply merges']);
    if (conflicts.has(f.path)) notes.push(['conflict', `conflict: ${conflicts.get(f.path)}`]);
    const p = part.get(f.path);
    if (p) notes.push(['hunks', `${p.applied} of ${plural(p.applied + p.remaining, 'hunk')} applied, ${p.remaining} not yet applied`]);
    return fileRow(draft, f, notes);
  });

  const apply = () =>
    act(async () => {
      const expect = expectOf(draft, detail.review);
      const r = await post(`${draftPath(draft)}/apply`, { ...applySelection(draft), expect });
      return applied(r);
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
    hunkCounts(detail.review.hunks),
    files.length === 0 ? el('p', {}, 'The draft changes nothing against its bases.') : el('ul', { className: 'files' }, rows),
    el(
      'p',
      { className: 'buttons' },
      el('button', { type: 'button', id: 'apply', onclick: apply, disabled: files.length === 0 }, applyLabel(draft)),
      el('button', { type: 'button', id: 'unapply', onclick: unapply }, 'Unapply the last apply'),
      detail.checkpoints.length > 0 ? [target, el('button', { type: 'button', id: 'rollback', onclick: rollback }, 'Roll back')] : null,
    ),
  );
}
