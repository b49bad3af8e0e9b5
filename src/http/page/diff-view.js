// A draft's diff: against its bases or between any two points (the draft's
// root, checkpoints, batches, its tip), unified or side by side, renames
// paired as git diff -M pairs them, syntax highlighted. diff2html draws it
// (its slim UI with highlight.js), one file at a time: the first screenful
// at once, the rest as they come near the viewport or when the browser is
// idle, so a long diff shows as fast as a short one; the first screenful's
// highlighting lands on the next turn. A file of more than
// MAX_FILE_CHANGES changed lines shows collapsed, drawn on request; binary
// files show as such; every file has its own collapse toggle. The diff
// against the bases has a checkbox in each hunk's header row (hunk-boxes.js).
import { parse } from 'diff2html/lib-esm/diff2html.js';
import { Diff2HtmlUI } from 'diff2html/lib-esm/ui/js/diff2html-ui-base.js';
import { get, draftPath } from './api.js';
import { el, plural } from './dom.js';
import { addHunkBoxes } from './hunk-boxes.js';
import { keepHunks } from './ticks.js';

/** Lines changed in one file beyond which it shows collapsed. */
const MAX_FILE_CHANGES = 1500;
/** Lines drawn before the view counts as on screen (about what a screen shows below the draft's header); the rest follow. */
const FIRST_SCREEN_LINES = 60;

/** highlight.js and its grammars, a module of their own (highlighter.js), asked for as the page starts. */
const highlighter = import('/ui/highlighter.js').then(
  (m) => m.default,
  () => undefined, // drawn plain without it
);

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

function diffUrl(draft, c) {
  const q = new URLSearchParams({ renames: c.renames ? '1' : '0' });
  const range = rangeOf(c);
  if (range) q.set('range', range);
  return `${draftPath(draft)}/diff?${q}`;
}

function select(id, options, value, onchange) {
  return el('select', { id, onchange }, options.map(([v, label]) => el('option', { value: v, selected: v === value }, label)));
}

/** The last answer, kept while the diff stands on the same tip: a change of format draws it again without asking. */
let lastAnswer = null;

/** Per draft, the review fingerprint of the diff against the bases on screen (none while a range is shown). */
const drawnReview = new Map();

/** The state the diff on screen was drawn from (undefined when it shows a range, or nothing yet). */
export function drawnFingerprint(draft) {
  return drawnReview.get(draft);
}

/** A request made before the section exists (the first view of a draft): the draw takes it instead of asking again. */
let prefetched = null;

export function prefetchDiff(draft) {
  if (current?.draft === draft) return;
  const c = choicesOf(draft);
  const url = diffUrl(draft, c);
  prefetched = { url, answer: get(url) };
}

function choicesOf(draft) {
  if (!choices.has(draft)) choices.set(draft, { from: '', to: '', format: 'line-by-line', renames: true });
  return choices.get(draft);
}

/**
 * Draw one file into its slot (once): highlighted at once (`later` false),
 * or plain now and highlighted on the next turn (`later` true: the first
 * screenful, since highlight.js compiles a language's grammar on its first
 * use in a page, tens of ms the reader should not wait for). `decorate`
 * adds to the drawn file (the hunks' boxes). The promise settles once the
 * file is highlighted.
 */
function drawFile(slot, file, c, hljs, later = false, decorate = () => {}) {
  if (slot.dataset.drawn) return Promise.resolve();
  slot.dataset.drawn = '1';
  const config = {
    outputFormat: c.format,
    drawFileList: false,
    matching: 'none',
    highlight: hljs !== undefined && !later,
    fileContentToggle: true,
    stickyFileHeaders: false,
    synchronisedScroll: true,
    colorScheme: 'auto',
  };
  const ui = new Diff2HtmlUI(slot, [file], config, hljs);
  ui.draw();
  decorate(slot);
  if (!later || hljs === undefined) return Promise.resolve();
  return new Promise((done) =>
    setTimeout(() => {
      ui.highlightCode();
      done();
    }, 0),
  );
}

/** A large file's slot: its name and size, and a button that draws it. */
function collapsed(slot, file, c, path, hljs, decorate) {
  slot.replaceChildren(
    el(
      'div',
      { className: 'collapsed-file' },
      el('strong', {}, path),
      ` ${file.addedLines + file.deletedLines} lines changed: collapsed `,
      el('button', { type: 'button', className: 'show-file', onclick: () => drawFile(slot, file, c, hljs, false, decorate) }, 'Show'),
    ),
  );
}

async function draw(target, draft, c, summary) {
  const url = diffUrl(draft, c);
  const answer = prefetched?.url === url ? prefetched.answer : lastAnswer?.url === url && lastAnswer.key === current?.key ? lastAnswer.answer : get(url);
  prefetched = null;
  lastAnswer = { url, key: current?.key, answer };
  const [d, hljs] = await Promise.all([answer, highlighter]);
  if (d.range === null) drawnReview.set(draft, d.review_fingerprint);
  else drawnReview.delete(draft);
  // Hunks can be taken from the diff against the bases only; a tick whose id is gone named an older state.
  const byPath = new Map(d.range === null ? d.files.map((f) => [f.path, f]) : []);
  if (d.range === null) keepHunks(draft, new Set(d.files.flatMap((f) => (f.hunks ?? []).map((h) => h.id))));
  const decorate = (slot) => {
    const f = byPath.get(slot.dataset.path);
    if (f) addHunkBoxes(slot, draft, f);
  };
  const renamed = d.files.filter((f) => f.status === 'R').length;
  summary.textContent = `${plural(d.files.length, 'file')}, ${d.lines} line${d.lines === 1 ? '' : 's'} changed${renamed ? `, ${plural(renamed, 'rename')}` : ''}`;
  delete target.dataset.complete;
  if (d.too_large) {
    target.replaceChildren(el('p', {}, `This diff changes ${d.lines} lines: too many to draw here. Read it with shadow diff in a terminal.`));
    target.dataset.complete = '1';
    return;
  }
  if (d.patch === '') {
    target.replaceChildren(el('p', {}, 'No changes.'));
    target.dataset.complete = '1';
    return;
  }
  const files = parse(d.patch, {});
  const slots = files.map((f, i) => el('div', { className: 'file-slot', id: `diff-file-${i}`, dataset: { path: f.newName === '/dev/null' ? f.oldName : f.newName } }));
  target.replaceChildren(...slots);
  const left = new Set(slots.map((_, i) => i));
  const highlighting = [];
  // body[data-complete]: every file drawn and highlighted (tests wait on it).
  const finish = (i) => {
    left.delete(i);
    if (left.size === 0) void Promise.all(highlighting).then(() => (target.dataset.complete = '1'));
  };
  const drawAt = (i, later = false) => {
    if (!left.has(i)) return;
    const f = files[i];
    if (f.addedLines + f.deletedLines > MAX_FILE_CHANGES) collapsed(slots[i], f, c, slots[i].dataset.path, hljs, decorate);
    else highlighting.push(drawFile(slots[i], f, c, hljs, later, decorate));
    finish(i);
  };
  // The first screenful now, its highlighting on the next turn.
  let lines = 0;
  for (let i = 0; i < files.length && lines < FIRST_SCREEN_LINES; i++) {
    drawAt(i, true);
    lines += files[i].addedLines + files[i].deletedLines + 4;
  }
  void Promise.all(highlighting).then(() => performance.mark('shadow:highlighted'));
  if (left.size === 0) return;
  // The rest: those near the viewport first, all of them when the browser is idle (find-in-page then sees everything).
  const near = new IntersectionObserver(
    (entries) => {
      for (const e of entries) if (e.isIntersecting) drawAt(Number(e.target.id.slice('diff-file-'.length)));
    },
    { rootMargin: '800px' },
  );
  for (const i of left) near.observe(slots[i]);
  const idle = window.requestIdleCallback ?? ((f) => setTimeout(() => f({ timeRemaining: () => 8 }), 16));
  const step = (deadline) => {
    for (const i of left) {
      drawAt(i);
      if (deadline.timeRemaining() < 4) break;
    }
    if (left.size > 0) idle(step);
    else near.disconnect();
  };
  idle(step);
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
  const c = choicesOf(draft);
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
  // A diff read beside an older state of the draft (it moved between the two reads) is read again.
  const drawn = drawnReview.get(draft);
  const stale = drawn !== undefined && drawn !== detail.review.review_fingerprint;
  if (current.key !== key || stale) {
    current.key = key;
    if (stale) lastAnswer = null;
    current.redraw();
  }
  return current.section;
}

/** The diff's draws so far, finished as far as the first screenful (the view counts as drawn then). */
export function diffDrawn() {
  return current ? current.drawn() : Promise.resolve();
}
