import { applyPatch, parsePatch, reversePatch } from 'diff';
import type { StructuredPatch, StructuredPatchHunk } from 'diff';
import { ShadowError } from '../../errors.js';
import { clip } from './text-edit.js';

/**
 * The `patch` op: a unified diff for one file, applied with exact context
 * (jsdiff, fuzz 0). Loaded only by batches that hold a patch op.
 */

/** What a parsed diff does to its file. */
export interface ParsedFilePatch {
  patch: StructuredPatch;
  creates: boolean;
  deletes: boolean;
}

/** Parse the `diff` of a patch op: exactly one file, at least one hunk. */
export function parseFilePatch(diff: string): ParsedFilePatch {
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(diff);
  } catch (e) {
    throw new ShadowError('PATCH_FAILED', `the diff cannot be parsed: ${(e as Error).message}`, {
      hint: 'send a unified diff (`diff -u` or `git diff` output) with @@ hunk headers',
    });
  }
  const withHunks = patches.filter((p) => p.hunks.length > 0 || p.isDelete || p.isCreate);
  if (withHunks.length === 0) {
    throw new ShadowError('PATCH_FAILED', 'the diff has no hunk', {
      hint: 'send a unified diff with at least one "@@ -a,b +c,d @@" hunk',
    });
  }
  if (withHunks.length > 1) {
    throw new ShadowError(
      'PATCH_FAILED',
      `the diff touches ${withHunks.length} files; a patch op takes the diff of one file`,
      {
        hint: 'split it into one patch op per file',
        data: { files: withHunks.map((p) => p.newFileName ?? p.oldFileName) },
      },
    );
  }
  const patch = withHunks[0]!;
  return {
    patch,
    creates: patch.isCreate === true || patch.oldFileName === '/dev/null',
    deletes: patch.isDelete === true || patch.newFileName === '/dev/null',
  };
}

function hunkHeader(h: StructuredPatchHunk): string {
  return `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`;
}

function apply(text: string, patch: StructuredPatch): string | false {
  return applyPatch(text, patch, { fuzzFactor: 0, autoConvertLineEndings: false });
}

/**
 * Apply `parsed` to `text`: the new text. Otherwise PATCH_FAILED names the
 * first hunk that does not fit and why; when the diff's reverse applies, it
 * also says the file already holds what the diff makes. That is never taken
 * for success: only a batch recognised as sent before is `already_applied`
 * (see resolve-batch.ts), since a diff can be in place for other reasons.
 */
export function applyFilePatch(text: string, parsed: ParsedFilePatch): string {
  const out = apply(text, parsed.patch);
  if (out !== false) return out;
  throw diagnose(text, parsed.patch, apply(text, reversePatch(parsed.patch)) !== false);
}

function diagnose(text: string, patch: StructuredPatch, inPlace: boolean): ShadowError {
  const hunks = patch.hunks;
  let failing = hunks.length - 1;
  for (let i = 0; i < hunks.length; i++) {
    if (apply(text, { ...patch, hunks: hunks.slice(0, i + 1) }) === false) {
      failing = i;
      break;
    }
  }
  const hunk = hunks[failing]!;
  const fileLines = text.split('\n');
  if (text.endsWith('\n')) fileLines.pop();
  const expected = hunk.lines.filter((l) => l.startsWith(' ') || l.startsWith('-')).map((l) => l.slice(1));
  let detail = '';
  for (let k = 0; k < expected.length; k++) {
    const lineNo = hunk.oldStart + k;
    const found = fileLines[lineNo - 1];
    if (found !== expected[k]) {
      detail =
        found === undefined
          ? `: expected line ${lineNo} to be "${clip(expected[k]!)}" but the file has ${fileLines.length} lines`
          : `: expected line ${lineNo} to be "${clip(expected[k]!)}" but found "${clip(found)}"`;
      break;
    }
  }
  const already = inPlace ? '; the file already holds what the diff makes' : '';
  return new ShadowError(
    'PATCH_FAILED',
    `hunk ${failing + 1} of ${hunks.length} (${hunkHeader(hunk)}) does not apply${detail}${already}`,
    {
      hint: inPlace
        ? 'the change is in the file already: drop this op (a batch sent again right after it landed is recognised and answered already_applied)'
        : 'the file changed since the diff was made: read it again and send a new diff, or use an edit op',
      data: { hunk: failing + 1, hunks: hunks.length, header: hunkHeader(hunk), in_place: inPlace },
    },
  );
}
