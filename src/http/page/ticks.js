// What the person ticked to apply, per draft, kept across refreshes: whole
// files (the list under Apply) and hunks (the boxes in the diff's hunk
// header rows, by hunk id). A ticked file is all of it, its hunks' boxes
// shown ticked and idle; hunks of a file not ticked whole are only those.
// The Apply button's words and the request it sends come from here. What
// an apply took leaves the ticks by itself: its files leave the list, and
// its hunks' ids name a state the draft is no longer in.
import { plural } from './dom.js';

/** Per draft: `files` (paths) and `hunks` (id → { path, index }). */
const state = new Map();

export function ticksOf(draft) {
  if (!state.has(draft)) state.set(draft, { files: new Set(), hunks: new Map() });
  return state.get(draft);
}

/** Forget the files the draft no longer changes. */
export function keepFiles(draft, paths) {
  const { files } = ticksOf(draft);
  for (const p of [...files]) if (!paths.has(p)) files.delete(p);
}

/** Forget the hunks whose ids the draft's diff no longer lists (it moved: each id names one state). */
export function keepHunks(draft, ids) {
  const { hunks } = ticksOf(draft);
  for (const id of [...hunks.keys()]) if (!ids.has(id)) hunks.delete(id);
}

/** The hunks ticked outside the files ticked whole. */
function partHunks(t) {
  return [...t.hunks].filter(([, h]) => !t.files.has(h.path));
}

/** What Apply does, in words. */
export function applyLabel(draft) {
  const t = ticksOf(draft);
  const part = partHunks(t);
  if (part.length === 0) return t.files.size > 0 ? 'Apply the ticked files' : 'Apply all';
  const files = new Set(part.map(([, h]) => h.path)).size;
  const whole = t.files.size > 0 ? ` and ${plural(t.files.size, 'whole file')}` : '';
  return `Apply ${plural(part.length, 'hunk')} of ${plural(files, 'file')}${whole}`;
}

/**
 * The apply request's selection: `hunks` (the ids, and the files ticked
 * whole by path) when any hunk is ticked, else `paths` when files are, else
 * nothing (the whole draft).
 */
export function applySelection(draft) {
  const t = ticksOf(draft);
  const part = partHunks(t);
  if (part.length > 0) return { hunks: [...part.map(([id]) => id), ...t.files] };
  if (t.files.size > 0) return { paths: [...t.files] };
  return {};
}

/** Bring the page in line with the ticks: the Apply button's words, and each hunk box (ticked and idle inside a file ticked whole). */
export function showTicks(draft) {
  const t = ticksOf(draft);
  const button = document.getElementById('apply');
  if (button) button.textContent = applyLabel(draft);
  for (const box of document.querySelectorAll('#diff-body input.hunk-tick')) {
    const whole = t.files.has(box.dataset.path);
    box.disabled = whole;
    box.checked = whole || t.hunks.has(box.dataset.hunk);
  }
}
