// A draft's diff: against its bases or between any two points (the draft's
// root, checkpoints, batches, its tip), unified or side by side, renames
// paired as git diff -M pairs them, syntax highlighted. diff2html draws it
// (its slim UI with highlight.js); files past diffMaxChanges and binary files
// show collapsed, and every file has its own collapse toggle.
import { Diff2HtmlUI } from 'diff2html/lib-esm/ui/js/diff2html-ui-slim.js';
import { get, draftPath } from './api.js';
import { el, plural } from './dom.js';

/** Lines changed in one file beyond which it shows collapsed. */
const MAX_FILE_CHANGES = 1500;

/** The view's choices, per draft, kept across refreshes. */
const choices = new Map();

function pointOptions(detail, ends) {
  const opts = ends === 'from' ? [['', 'its bases (what apply publishes)'], ['root', 'the draft\'s start']] : [['', 'its tip']];
  for (const c of detail.checkpoints) opts.push([c.name, `checkpoint ${c.name}`]);
  for (const b of [...detail.batches].reverse()) opts.push([String(b.batch), `batch ${b.batch}${b.intent ? `: ${b.intent}` : ''}`]);
  return opts;
}

/** The range the choices name (`from..to`), or '' for the diff against the bases. */
function rangeOf(c) {
  if (c.from === '' && c.to === '') return '';
  const from = c.from === 'root' || c.from === '' ? '' : c.from;
  return `${from}..${c.to}`;
}

function select(id, options, value, onchange) {
  return el('select', { id, onchange }, options.map(([v, label]) => el('option', { value: v, selected: v === value }, label)));
}

async function draw(target, draft, c, summary) {
  const q = new URLSearchParams({ renames: c.renames ? '1' : '0' });
  const range = rangeOf(c);
  if (range) q.set('range', range);
  const d = await get(`${draftPath(draft)}/diff?${q}`);
  const renamed = d.files.filter((f) => f.status === 'R').length;
  summary.textContent = `${plural(d.files.length, 'file')}, ${d.lines} line${d.lines === 1 ? '' : 's'} changed${renamed ? `, ${plural(renamed, 'rename')}` : ''}`;
  if (d.too_large) {
    target.replaceChildren(el('p', {}, `This diff changes ${d.lines} lines: too many to draw here. Read it with shadow diff in a terminal.`));
    return;
  }
  if (d.patch === '') {
    target.replaceChildren(el('p', {}, 'No changes.'));
    return;
  }
  target.replaceChildren();
  const ui = new Diff2HtmlUI(target, d.patch, {
    outputFormat: c.format,
    drawFileList: true,
    fileListStartVisible: false,
    matching: 'lines',
    highlight: true,
    fileContentToggle: true,
    stickyFileHeaders: false,
    synchronisedScroll: true,
    diffMaxChanges: MAX_FILE_CHANGES,
    colorScheme: 'auto',
  });
  ui.draw();
}

/** The section on screen: kept across refreshes of the same draft, so the diff never blanks while a new one loads. */
let current = null;

function controlsFor(detail, c, set) {
  return [
    el('label', {}, 'From ', select('diff-from', pointOptions(detail, 'from'), c.from, (e) => set('from', e.target.value))),
    el('label', {}, ' to ', select('diff-to', pointOptions(detail, 'to'), c.to, (e) => set('to', e.target.value))),
    el('label', {}, ' ', select('diff-format', [['line-by-line', 'unified'], ['side-by-side', 'side by side']], c.format, (e) => set('format', e.target.value))),
    el('label', {}, ' ', el('input', { type: 'checkbox', id: 'diff-renames', checked: c.renames, onchange: (e) => set('renames', e.target.checked) }), ' renames'),
  ];
}

export function diffSection(draft, detail) {
  if (!choices.has(draft)) choices.set(draft, { from: '', to: '', format: 'line-by-line', renames: true });
  const c = choices.get(draft);
  if (current?.draft !== draft) {
    const target = el('div', { id: 'diff-body' });
    const summary = el('span', { className: 'summary', id: 'diff-summary' });
    const controls = el('span', { className: 'choices' });
    // Draws finish in the order they start: a slow one never overwrites a newer one.
    let drawn = Promise.resolve();
    const redraw = () => {
      drawn = drawn.then(() => draw(target, draft, c, summary)).catch((e) => target.replaceChildren(el('p', { className: 'error' }, `${e.code ?? ''} ${e.message}`)));
    };
    const section = el('section', { id: 'diff' }, el('h3', {}, 'Diff'), el('p', { className: 'controls' }, controls, ' ', summary), target);
    current = { draft, section, controls, redraw, key: null, drawn: () => drawn };
  }
  const set = (key, value) => {
    c[key] = value;
    current.redraw();
  };
  // The points may have changed (a checkpoint, a batch, a rollback): the choices are rebuilt around what was chosen.
  current.controls.replaceChildren(...controlsFor(detail, c, set));
  // What the diff stands on: the tip, and the publish set (an apply moves the bases, not the tip).
  const key = `${detail.draft.tip} ${detail.review.fingerprint}`;
  if (current.key !== key) {
    current.key = key;
    current.redraw();
  }
  return current.section;
}

/** The diff's draws so far, finished (the view counts as drawn only then). */
export function diffDrawn() {
  return current ? current.drawn() : Promise.resolve();
}
