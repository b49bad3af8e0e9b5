import type { FileDiff, Hunk } from './parse-diff.js';

/**
 * The chosen hunks of a file put back together into a patch, as git's
 * reassemble_patch does: headers recounted (each hunk's new offset moved
 * by the lines the skipped and edited hunks before it add or take away),
 * neighbouring chosen hunks that overlap (the parts of a split hunk, an
 * edited one beside them) merged into one, and a mode change left out of
 * the head unless it was chosen.
 */

/** The colours a hunk header is shown in: fraginfo before it, the reset. */
export interface HeaderColours {
  fraginfo: string;
  reset: string;
}

/** One hunk: its header made from its numbers (new offset moved by `delta`), then its lines. */
export function renderHunk(file: FileDiff, hunk: Hunk, delta: number, colours?: HeaderColours): string {
  let out = '';
  const h = hunk.header;
  if (h.oldOffset !== 0 || h.newOffset !== 0) {
    const extra = colours ? h.colouredExtra : h.extra;
    out += colours ? colours.fraginfo : '';
    out += `@@ -${h.oldOffset}${h.oldCount !== 1 ? `,${h.oldCount}` : ''}`;
    out += ` +${h.newOffset + delta}${h.newCount !== 1 ? `,${h.newCount}` : ''} @@`;
    out += extra !== '' ? extra : colours ? `${colours.reset}\n` : '\n';
  }
  const lines = colours ? file.coloured : file.plain;
  for (let i = hunk.start; i < hunk.end; i++) out += lines[i];
  return out;
}

/** The file's head, without its mode change unless that was chosen. */
export function renderHead(file: FileDiff, coloured: boolean): string {
  const lines = coloured ? file.coloured : file.plain;
  const mode = file.modeChange ? file.hunks[0]! : undefined;
  let out = '';
  for (let i = file.head.start; i < file.head.end; i++) {
    if (mode && mode.use !== 'use' && i >= mode.start && i < mode.end) continue;
    out += lines[i];
  }
  return out;
}

/**
 * The chosen hunk at `index` with the chosen ones after it that overlap it,
 * as one (git's merge_hunks); the index of the last one taken. A hunk that
 * was edited is joined to its neighbour on their shared context line, the
 * union of their lines appended to the file's lines for the time being.
 */
function mergeHunks(file: FileDiff, index: number, useAll: boolean): { merged: Hunk; last: number } {
  const first = file.hunks[index]!;
  const merged: Hunk = { ...first, header: { ...first.header } };
  const header = merged.header;
  let i = index;
  for (; i + 1 < file.hunks.length; i++) {
    const hunk = file.hunks[i + 1]!;
    const next = hunk.header;
    if (
      (!useAll && hunk.use !== 'use') ||
      header.newOffset >= next.newOffset + merged.delta ||
      header.newOffset + header.newCount < next.newOffset + merged.delta
    )
      break;
    let delta: number;
    if (merged.start < hunk.start && merged.end > hunk.start) {
      // Parts of one split hunk: their lines overlap where they lie.
      merged.end = hunk.end;
      delta = 0;
    } else {
      const overlapping = header.newOffset + header.newCount - merged.delta - next.newOffset;
      let overlapStart = hunk.start;
      let overlapEnd = hunk.start;
      for (let j = 0; j < overlapping; j++) {
        if (overlapEnd >= hunk.end || file.plain[overlapEnd]![0] !== ' ') return { merged: first, last: index };
        overlapStart = overlapEnd;
        overlapEnd++;
      }
      if (overlapEnd > overlapStart && file.plain[merged.end - 1] !== file.plain[overlapStart])
        return { merged: first, last: index };
      if (merged.end !== file.plain.length) {
        const start = file.plain.length;
        for (let k = merged.start; k < merged.end; k++) append(file, k);
        merged.start = start;
      }
      for (let k = overlapEnd; k < hunk.end; k++) append(file, k);
      merged.end = file.plain.length;
      merged.splittableInto += hunk.splittableInto;
      delta = merged.delta;
      merged.delta += hunk.delta;
    }
    header.oldCount = next.oldOffset + next.oldCount - header.oldOffset;
    header.newCount = next.newOffset + delta + next.newCount - header.newOffset;
  }
  return { merged: i === index ? first : merged, last: i };
}

function append(file: FileDiff, line: number): void {
  file.plain.push(file.plain[line]!);
  file.coloured.push(file.coloured[line]!);
}

/** The patch of the file's chosen hunks (every hunk with `useAll`), in git's format. */
export function reassemble(file: FileDiff, useAll: boolean): string {
  const saved = file.plain.length;
  let out = renderHead(file, false);
  let delta = 0;
  for (let i = file.modeChange ? 1 : 0; i < file.hunks.length; i++) {
    const hunk = file.hunks[i]!;
    if (!useAll && hunk.use !== 'use') {
      delta += hunk.header.oldCount - hunk.header.newCount;
      continue;
    }
    const { merged, last } = mergeHunks(file, i, useAll);
    i = last;
    out += renderHunk(file, merged, delta);
    file.plain.length = saved;
    file.coloured.length = saved;
    delta += merged.delta;
  }
  return out;
}

/** Whether any hunk of the file is chosen (or the file itself, when it has none: an empty new file). */
export function chosen(file: FileDiff): boolean {
  return file.hunks.length > 0 ? file.hunks.some((h) => h.use === 'use') : file.head.use === 'use';
}
