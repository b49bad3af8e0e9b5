import { ShadowError } from '../../errors.js';
import type { PatchHunk } from './git-patch.js';

/**
 * Hunks applied to a text exactly, as `git apply` applies them with no
 * offset and no fuzz: each hunk's context and removed lines must be the
 * base's lines at its old start, byte for byte (`\r` and a missing final
 * newline included). The base is the draft's base for the path, so a hunk
 * of the draft's own diff always fits; an edited one that no longer does is
 * refused with git's own words.
 */

/** A text cut into lines, each with its `\n` (the last one may have none). */
export function splitLines(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
    out.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** A hunk's body as whole lines: each line's text with its `\n`, unless git's marker follows it. */
function bodyOf(h: PatchHunk): Array<{ kind: ' ' | '-' | '+'; text: string }> {
  const out: Array<{ kind: ' ' | '-' | '+'; text: string }> = [];
  for (let i = 0; i < h.lines.length; i++) {
    const l = h.lines[i]!;
    if (l.startsWith('\\')) continue;
    const last = h.lines[i + 1]?.startsWith('\\') === true;
    out.push({ kind: l[0] as ' ' | '-' | '+', text: l.slice(1) + (last ? '' : '\n') });
  }
  return out;
}

/** PATCH_DOES_NOT_APPLY, in git's words: `error: patch failed: <path>:<line>`. */
export function patchFailed(path: string, line: number, why: string): ShadowError {
  return new ShadowError('PATCH_DOES_NOT_APPLY', `error: patch failed: ${path}:${line} (${why}); nothing was written`, {
    hint: "edit the hunk again so that its context and removed lines are the base's; shadow diff shows the draft now",
    data: { path, line },
  });
}

/** `base` with `hunks` applied (see the module comment). Hunks may come in any order; they may not overlap. */
export function applyHunks(path: string, base: string, hunks: readonly PatchHunk[]): string {
  const lines = splitLines(base);
  const out: string[] = [];
  let at = 0;
  const sorted = [...hunks].sort((a, b) => a.oldStart - b.oldStart);
  for (const h of sorted) {
    // An empty old range names the line after which the new lines go.
    const start = h.oldLines === 0 ? h.oldStart : h.oldStart - 1;
    if (start < at) throw patchFailed(path, h.oldStart, 'it overlaps the hunk before it');
    if (start > lines.length) throw patchFailed(path, h.oldStart, `the base has ${lines.length} lines`);
    for (; at < start; at++) out.push(lines[at]!);
    for (const b of bodyOf(h)) {
      if (b.kind === '+') {
        out.push(b.text);
        continue;
      }
      if (lines[at] !== b.text) throw patchFailed(path, h.oldStart, `line ${at + 1} of the base differs`);
      if (b.kind === ' ') out.push(b.text);
      at++;
    }
  }
  for (; at < lines.length; at++) out.push(lines[at]!);
  return out.join('');
}
