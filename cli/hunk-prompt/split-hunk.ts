import { newHunk, type FileDiff, type Hunk } from './parse-diff.js';

/**
 * `s`: a hunk cut into smaller ones at each run of context between its
 * changes, as git's split_hunk cuts it. Neighbours share the context lines
 * between them (each keeps them as its own context); every part but the
 * first has no function name in its header. True when it was split.
 */
export function splitHunk(file: FileDiff, index: number): boolean {
  const whole = file.hunks[index]!;
  let parts = whole.splittableInto;
  if (parts < 2) return false;
  const end = whole.end;
  const remaining = { ...whole.header };
  const made: Hunk[] = [whole];
  for (let k = 1; k < parts; k++) made.push(newHunk(0));
  file.hunks.splice(index, 1, ...made);

  let k = 0;
  let hunk = whole;
  hunk.splittableInto = 1;
  hunk.header.oldCount = 0;
  hunk.header.newCount = 0;
  let current = hunk.start;
  let marker = '';
  let context = 0;
  let first = true;
  while (parts > 1) {
    let ch = file.plain[current]![0]!;
    if ((marker === '-' || marker === '+') && ch === ' ') {
      // The first context line after changes: where the next part starts.
      first = false;
      made[k + 1]!.start = current;
      context = 0;
    }
    if (marker === ' ' && (ch === '-' || ch === '+') && !first) {
      // A change after context: this part ends here, the next one takes the context as its own.
      remaining.oldOffset += hunk.header.oldCount;
      remaining.oldCount -= hunk.header.oldCount;
      remaining.newOffset += hunk.header.newCount;
      remaining.newCount -= hunk.header.newCount;
      const next = made[k + 1]!;
      next.header.oldOffset = hunk.header.oldOffset + hunk.header.oldCount;
      next.header.newOffset = hunk.header.newOffset + hunk.header.newCount;
      hunk.header.oldCount += context;
      hunk.header.newCount += context;
      hunk.end = current;
      next.splittableInto = 1;
      next.use = hunk.use;
      next.header.oldCount = context;
      next.header.newCount = context;
      hunk = next;
      k++;
      context = 0;
      parts--;
      marker = ch;
      continue;
    }
    if (marker === ' ' && (ch === '-' || ch === '+') && first) {
      // Leading context of the first part.
      hunk.header.oldCount = context;
      hunk.header.newCount = context;
      context = 0;
      first = false;
    }
    if (ch === '\\') ch = marker === '' ? ' ' : marker;
    if (ch === ' ') context++;
    else if (ch === '-') hunk.header.oldCount++;
    else if (ch === '+') hunk.header.newCount++;
    else throw new Error(`unhandled diff marker: '${ch}'`);
    marker = ch;
    current++;
  }
  // The last part has the rest.
  hunk.header.oldCount = remaining.oldCount;
  hunk.header.newCount = remaining.newCount;
  hunk.end = end;
  return true;
}
