import { ShadowError } from '../errors.js';
import type { PatchChunk } from './codex-patch.js';
import { seek, trim } from './codex-seek.js';
import { clip, nearMatches } from './text-edit.js';

/**
 * The changes of one `*** Update File` section applied to the file's text,
 * as Codex applies them when it keeps line endings (codex-rs/apply-patch,
 * its PreserveLineEndings mode): each change is found from where the one
 * before it ended (after its `@@` lines when it has some); the lines it
 * removes and adds are replaced, its context lines stay exactly as the file
 * has them (bytes and line end), new lines take the file's first line end
 * (LF in a file with none), and a last line without one gets one. A change
 * with no line to remove is added at the end of the file.
 *
 * One thing Codex does not do: a first change with neither an `@@` line nor
 * a change before it to start from must match one place only. Codex takes
 * the first; its own instructions ask for context that identifies the
 * place, and shadow refuses to guess (EDIT_AMBIGUOUS), as its edit op does.
 */

type End = '' | '\n' | '\r\n';

interface SourceLine {
  text: string;
  end: End;
}

/** The file's lines, each with its line end; the first line end found is the file's. */
function sourceLines(text: string): { lines: SourceLine[]; preferred: End } {
  const lines: SourceLine[] = [];
  let preferred: End | undefined;
  let start = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
    const crlf = nl > start && text.charCodeAt(nl - 1) === 13;
    const end: End = crlf ? '\r\n' : '\n';
    preferred ??= end;
    lines.push({ text: text.slice(start, crlf ? nl - 1 : nl), end });
    start = nl + 1;
  }
  if (start < text.length) lines.push({ text: text.slice(start), end: '' });
  return { lines, preferred: preferred ?? '\n' };
}

/** Replace `length` lines from `start` by `lines`. */
type Replacement = [start: number, length: number, lines: string[]];

/** How many matches an ambiguous change reports. */
const MAX_MATCHES = 50;

/**
 * `text` with `chunks` applied. PATCH_FAILED names the change that does
 * not fit, with the closest lines of the file; EDIT_AMBIGUOUS one that fits
 * several places with nothing to tell them apart.
 *
 * @example applyChunks('a\nb\n', [{ anchors: [], oldLines: ['b'], newLines: ['B'], contextLines: [], endOfFile: false, line: 3 }], 'f.txt') // 'a\nB\n'
 */
export function applyChunks(text: string, chunks: readonly PatchChunk[], path: string): string {
  const { lines, preferred } = sourceLines(text);
  const texts = lines.map((l) => l.text);
  const replacements: Replacement[] = [];
  let cursor = 0;
  chunks.forEach((chunk, k) => {
    const where = { path, k, of: chunks.length, chunk };
    const anchored = chunk.anchors.length > 0 || cursor > 0;
    for (const anchor of chunk.anchors) {
      const found = seek(texts, [anchor], cursor, false, 1);
      if (!found) throw contextMissing(text, cursor, where, anchor);
      cursor = found.at[0]! + 1;
    }
    if (chunk.oldLines.length === 0) {
      replacements.push([texts.length, 0, chunk.newLines]);
      return;
    }
    let old = chunk.oldLines;
    let fresh = chunk.newLines;
    let found = seek(texts, old, cursor, chunk.endOfFile, MAX_MATCHES);
    // A last empty line of a change may stand for the file's final line end, which is no line here.
    if (!found && old[old.length - 1] === '') {
      old = old.slice(0, -1);
      if (fresh[fresh.length - 1] === '') fresh = fresh.slice(0, -1);
      found = seek(texts, old, cursor, chunk.endOfFile, MAX_MATCHES);
    }
    if (!found) throw linesMissing(text, texts, old, fresh, cursor, where);
    if (!anchored && found.at.length > 1) throw ambiguous(found.at, where);
    const at = found.at[0]!;
    // Context lines are kept as the file has them: only the runs between them are replaced.
    let o = 0;
    let n = 0;
    for (const [oc, nc] of chunk.contextLines) {
      if (oc >= old.length || nc >= fresh.length) break;
      if (o !== oc || n !== nc) replacements.push([at + o, oc - o, fresh.slice(n, nc)]);
      o = oc + 1;
      n = nc + 1;
    }
    if (o !== old.length || n !== fresh.length) replacements.push([at + o, old.length - o, fresh.slice(n)]);
    cursor = at + old.length;
  });
  replacements.sort((a, b) => a[0] - b[0]);

  const out: SourceLine[] = [];
  let next = 0;
  for (const [start, length, added] of replacements) {
    if (start < next) {
      throw new ShadowError('PATCH_FAILED', `the changes of ${path} overlap: two of them replace the same lines`, {
        hint: 'send each place of the file in one change, in the order of the file',
        data: { file: path },
      });
    }
    out.push(...lines.slice(next, start));
    for (const t of added) out.push({ text: t, end: preferred });
    next = start + length;
  }
  out.push(...lines.slice(next));
  // Codex gives a last line without a line end one, in the file's style.
  return out.map((l) => l.text + (l.end === '' ? preferred : l.end)).join('');
}

interface Where {
  path: string;
  k: number;
  of: number;
  chunk: PatchChunk;
}

function label(w: Where): string {
  return `change ${w.k + 1} of ${w.of} of ${w.path} (patch line ${w.chunk.line})`;
}

const READ_AGAIN = 'read the file again and send the patch against its current text: context and "-" lines exactly as the file has them, in the order of the file';

function contextMissing(text: string, cursor: number, w: Where, context: string): ShadowError {
  const near = nearMatches(text, context);
  const closest = near.length ? `; closest: ${near.map((m) => `line ${m.line}: "${clip(trim(m.text), 80)}"`).join('; ')}` : '';
  const after = cursor > 0 ? ` after line ${cursor}` : '';
  const numbers = /^-\d+(,\d+)? \+\d+(,\d+)? @@/.test(context);
  return new ShadowError('PATCH_FAILED', `${label(w)}: its @@ line "${clip(context, 80)}" is no line of the file${after}${closest}`, {
    hint: numbers
      ? 'in this format an @@ line names a line of the file (a def or class line above the change), not line numbers: write "@@ <that line>" or a bare "@@"'
      : 'the text after "@@ " must be a line of the file as it reads (a def or class line above the change), or leave it out ("@@")',
    data: { file: w.path, change: w.k + 1, changes: w.of, patch_line: w.chunk.line, context, closest: near },
  });
}

/** Lines of the file quoted back, numbered from 1, bounded. */
function quoteLines(texts: readonly string[], from: number, max = 20, budget = 800): string[] {
  const out: string[] = [];
  for (let i = from; i < texts.length && out.length < max; i++) {
    const line = `${i + 1}: ${texts[i]}`;
    if (line.length > budget) {
      out.push('…');
      break;
    }
    budget -= line.length;
    out.push(line);
  }
  return out;
}

/** The start at or after `from` where the most lines of `old` line up, trimmed; bounded work. */
function bestPartial(texts: readonly string[], old: readonly string[], from: number): { at: number; score: number } | undefined {
  const probe = old.slice(0, 64).map(trim);
  const last = Math.min(texts.length, from + 20_000);
  let best: { at: number; score: number } | undefined;
  for (let i = from; i < last; i++) {
    let score = 0;
    for (let k = 0; k < probe.length && i + k < texts.length; k++) if (trim(texts[i + k]!) === probe[k]) score++;
    if (score > (best?.score ?? 0)) best = { at: i, score };
  }
  return best;
}

/**
 * PATCH_FAILED for a change whose lines are not in the file: where the
 * most of them line up after the cursor (and the file from there, as it
 * reads now), else whether they stand before it (changes out of order),
 * else the lines most like its first one, as the edit op reports them.
 */
function linesMissing(text: string, texts: readonly string[], old: readonly string[], fresh: readonly string[], cursor: number, w: Where): ShadowError {
  const first = `(${`"${clip(old[0]!, 80)}"`}${old.length > 1 ? ` and ${old.length - 1} more line${old.length > 2 ? 's' : ''}` : ''})`;
  const data: Record<string, unknown> = { file: w.path, change: w.k + 1, changes: w.of, patch_line: w.chunk.line, expected: old.slice(0, 20) };
  let detail: string;
  const best = bestPartial(texts, old, cursor);
  const before = best ? undefined : bestPartial(texts, old, 0);
  const near = best || before ? [] : nearMatches(text, old.join('\n'));
  if (best) {
    detail = `; closest: line ${best.at + 1}, where ${best.score} of its ${old.length} lines match (the file from there is in details)`;
    data.closest = { line: best.at + 1, matching: best.score, lines: old.length };
    data.file_lines = quoteLines(texts, best.at);
  } else if (before) {
    detail = `; they stand at line ${before.at + 1}, before the place an earlier change of this patch moved past: changes must come in the order of the file`;
    data.closest = { line: before.at + 1, matching: before.score, lines: old.length };
  } else if (near.length > 0) {
    detail = `; closest: ${near.map((m) => `line ${m.line}: "${clip(trim(m.text), 80)}"`).join('; ')} (the file from there is in details)`;
    data.closest = near;
    data.file_lines = quoteLines(texts, near[0]!.line - 1);
  } else {
    detail = `; no line like them is in the file (${texts.length} lines)`;
  }
  const inPlace = fresh.length > 0 && fresh.join('\n') !== old.join('\n') && seek(texts, fresh, 0, false, 1) !== undefined;
  data.in_place = inPlace;
  const already = inPlace ? '; the file already holds what this change makes' : '';
  return new ShadowError('PATCH_FAILED', `${label(w)} does not apply: the lines it replaces ${first} are not in the file${cursor > 0 ? ` after line ${cursor}` : ''}${detail}${already}`, {
    hint: inPlace ? 'the change is in the file already: drop it from the patch' : READ_AGAIN,
    data,
  });
}

function ambiguous(at: readonly number[], w: Where): ShadowError {
  const lines = at.map((i) => i + 1);
  const more = at.length >= MAX_MATCHES ? ' or more' : '';
  return new ShadowError('EDIT_AMBIGUOUS', `${label(w)} fits ${at.length}${more} places (lines ${lines.join(', ')}); it must fit one`, {
    hint: 'add an @@ line naming the def or class above the change ("@@ def name"), or more context lines, so that it fits one place',
    data: { file: w.path, change: w.k + 1, changes: w.of, patch_line: w.chunk.line, matches: at.length, lines },
  });
}
