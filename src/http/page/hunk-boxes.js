// A checkbox in each hunk's header row of the diff against the draft's
// bases, for applying part of a file. The hunks are those the diff answer
// lists for the file (`hunks: [{ id, index, header }]`); a file taken whole
// only (`whole`: binary, a type change, not UTF-8, empty), with no hunk (a
// mode change alone), added or deleted (its one hunk is the file) gets no
// box: its box in the list under Apply takes it. Each box is a real
// checkbox whose name says which hunk it is, so the keyboard and a screen
// reader reach it as any other.
import { el } from './dom.js';
import { showTicks, ticksOf } from './ticks.js';

/** Whether a file of the diff answer can be taken hunk by hunk. */
export function cuttable(file) {
  return file.whole === undefined && file.status === 'M' && (file.hunks?.length ?? 0) > 0;
}

/** The header rows diff2html drew, as their gutter cells: one a hunk (side by side, the left side's). */
function headerCells(slot) {
  const cells = slot.querySelectorAll('td.d2h-code-linenumber.d2h-info, td.d2h-code-side-linenumber.d2h-info');
  return [...cells].filter((td) => (td.nextElementSibling?.textContent ?? '').trim() !== '');
}

/**
 * Put a box into each hunk header row of a drawn file. Nothing is added
 * unless the rows drawn are exactly the answer's hunks, header for header:
 * a box must never name another hunk than the one beside it.
 */
export function addHunkBoxes(slot, draft, file) {
  if (!cuttable(file)) return;
  const cells = headerCells(slot);
  const same =
    cells.length === file.hunks.length &&
    cells.every((td, i) => td.nextElementSibling.textContent.trim() === file.hunks[i].header);
  if (!same) return;
  const t = ticksOf(draft);
  cells.forEach((td, i) => {
    const h = file.hunks[i];
    const name = `hunk ${h.index} of ${file.path}, ${h.header}`;
    const box = el('input', {
      type: 'checkbox',
      className: 'hunk-tick',
      checked: t.hunks.has(h.id),
      dataset: { hunk: h.id, path: file.path },
      onchange: () => {
        if (box.checked) t.hunks.set(h.id, { path: file.path, index: h.index });
        else t.hunks.delete(h.id);
        showTicks(draft);
      },
    });
    box.setAttribute('aria-label', name);
    td.replaceChildren(el('label', { className: 'hunk-pick', title: name }, box));
  });
  showTicks(draft);
}
