import { ShadowError } from '../../errors.js';
import type { PatchChunk } from './codex-patch.js';
import { seek, trim } from './codex-seek.js';
import { clip, nearMatches } from '../text/text-edit.js';

/**
 * The changes of one `*** Update File` section applied to the file's text,
 * as Codex applies them when it keeps line endings (codex-rs/apply-patch,
 * its PreserveLineEndings mode): each change is found from where the one
 * before it ended (after its `@@` lines when it has some); the lines it
 * removes and adds are replaced, its context lines stay exactly as the file
 * has them (bytes and line end), new lines take the file's first line end
 * (LF in a file with none), and a last line without one gets one. A change
 * with no line to remove is added at the end of the file, before a last
 * empty line.
 *
 * A change whose lines fit several places from where its search starts
 * goes where Codex puts it, at the first. When nothing in the patch settles
 * it (no later change of the file takes the other places), the outcome
 * says so in a note ("matched the first of 2 places"), which the batch's
 * answer and its commit carry for the person who reviews it. A change that
 * matched only with leading indentation ignored is noted too: its added
 * lines keep the patch's indentation, as under Codex.
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

/** Where one change landed, and the other places its lines fit from where its search started. */
interface Placed {
  k: number;
  at: number;
  length: number;
  others: number[];
  indentation: boolean;
}

/** The text `applyChunks` makes, and notes on how its changes were placed. */
export interface AppliedChunks {
  text: string;
  notes: string[];
}

/**
 * `text` with `chunks` applied, as its text only.
 *
 * @example applyChunks('a\nb\n', [{ anchors: [], oldLines: ['b'], newLines: ['B'], contextLines: [], endOfFile: false, line: 3 }], 'f.txt') // 'a\nB\n'
 */
export function applyChunks(text: string, chunks: readonly PatchChunk[], path: string): string {
  return applyChunksNoted(text, chunks, path).text;
}

/**
 * `text` with `chunks` applied, with a note for each change placed at the
 * first of several places nothing else in the patch tells apart, or found
 * only with leading indentation ignored. PATCH_FAILED names the change that
 * does not fit, with Codex's text for it first, then the closest lines of
 * the file.
 */
export function applyChunksNoted(text: string, chunks: readonly PatchChunk[], path: string): AppliedChunks {
  const { lines, preferred } = sourceLines(text);
  const texts = lines.map((l) => l.text);
  const replacements: Replacement[] = [];
  const placed: Placed[] = [];
  let cursor = 0;
  chunks.forEach((chunk, k) => {
    const where = { path, k, of: chunks.length, chunk };
    for (const anchor of chunk.anchors) {
      const found = seek(texts, [anchor], cursor, false, 1);
      if (!found) throw contextMissing(text, cursor, where, anchor);
      cursor = found.at[0]! + 1;
    }
    if (chunk.oldLines.length === 0) {
      // Codex adds it at the end of the file, before a last empty line if there is one.
      const end = texts.length > 0 && texts[texts.length - 1] === '' ? texts.length - 1 : texts.length;
      replacements.push([end, 0, chunk.newLines]);
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
    const at = found.at[0]!;
    placed.push({ k, at, length: old.length, others: found.at.slice(1), indentation: found.pass === 2 });
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
  const joined = out.map((l) => l.text + (l.end === '' ? preferred : l.end)).join('');
  return { text: joined, notes: placementNotes(placed, chunks.length) };
}

/**
 * The notes on how changes were placed. Another place a change's lines fit
 * does not count when another change of the patch replaces lines there:
 * the patch's own order settled it.
 */
function placementNotes(placed: readonly Placed[], of: number): string[] {
  const notes: string[] = [];
  const taken = (p: Placed, start: number): boolean =>
    placed.some((q) => q !== p && q.length > 0 && start < q.at + q.length && q.at < start + p.length);
  for (const p of placed) {
    const change = of > 1 ? `change ${p.k + 1} of ${of}` : 'the change';
    const open = p.others.filter((start) => !taken(p, start));
    if (open.length > 0) {
      const more = p.others.length + 1 >= MAX_MATCHES ? ' or more' : '';
      const lines = [p.at, ...open].map((i) => i + 1).join(', ');
      notes.push(`${change} matched the first of ${open.length + 1}${more} places (lines ${lines})`);
    }
    if (p.indentation) {
      const kept = "its added lines keep the patch's indentation";
      notes.push(`${change} matched only with leading indentation ignored (line ${p.at + 1}): ${kept}`);
    }
  }
  return notes;
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

const READ_AGAIN =
  'read the file again and send the patch against its current text: context and "-" lines exactly as the file has them, in the order of the file';

function contextMissing(text: string, cursor: number, w: Where, context: string): ShadowError {
  const near = nearMatches(text, context);
  const closest = near.length
    ? `; closest: ${near.map((m) => `line ${m.line}: "${clip(trim(m.text), 80)}"`).join('; ')}`
    : '';
  const after = cursor > 0 ? ` after line ${cursor}` : '';
  const numbers = /^-\d+(,\d+)? \+\d+(,\d+)? @@/.test(context);
  const codex = `Failed to find context '${context}' in ${w.path}`;
  const own = `${label(w)}: its @@ line "${clip(context, 80)}" is no line of the file${after}${closest}`;
  return new ShadowError('PATCH_FAILED', `${codex}\n${own}`, {
    hint: numbers
      ? 'in this format an @@ line names a line of the file (a def or class line above the change), not line numbers: write "@@ <that line>" or a bare "@@"'
      : 'the text after "@@ " must be a line of the file as it reads (a def or class line above the change), or leave it out ("@@")',
    data: { file: w.path, change: w.k + 1, changes: w.of, patch_line: w.chunk.line, context, closest: near, codex },
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
function bestPartial(
  texts: readonly string[],
  old: readonly string[],
  from: number,
): { at: number; score: number } | undefined {
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

/** The first start at or after `from` where `old` matches once all whitespace is dropped; bounded work. */
function whitespaceOnly(texts: readonly string[], old: readonly string[], from: number): number | undefined {
  const squeeze = (s: string): string => s.replace(/\s+/g, '');
  const probe = old.map(squeeze);
  const last = Math.min(texts.length - old.length, from + 20_000);
  for (let i = from; i <= last; i++) {
    let k = 0;
    while (k < probe.length && squeeze(texts[i + k]!) === probe[k]) k++;
    if (k === probe.length) return i;
  }
  return undefined;
}

/**
 * PATCH_FAILED for a change whose lines are not in the file: where the
 * most of them line up after the cursor (and the file from there, as it
 * reads now), else whether they stand before it (changes out of order),
 * else the lines most like its first one, as the edit op reports them.
 */
function linesMissing(
  text: string,
  texts: readonly string[],
  old: readonly string[],
  fresh: readonly string[],
  cursor: number,
  w: Where,
): ShadowError {
  const first = `(${`"${clip(old[0]!, 80)}"`}${old.length > 1 ? ` and ${old.length - 1} more line${old.length > 2 ? 's' : ''}` : ''})`;
  const codex = `Failed to find expected lines in ${w.path}:\n${w.chunk.oldLines.join('\n')}`;
  const data: Record<string, unknown> = {
    file: w.path,
    change: w.k + 1,
    changes: w.of,
    patch_line: w.chunk.line,
    expected: old.slice(0, 20),
    codex,
  };
  let detail: string;
  const best = bestPartial(texts, old, cursor);
  const before = best ? undefined : bestPartial(texts, old, 0);
  const near = best || before ? [] : nearMatches(text, old.join('\n'));
  const spaced = whitespaceOnly(texts, old, cursor);
  if (spaced !== undefined) {
    detail =
      `; at line ${spaced + 1} they differ from the file only in whitespace inside the lines` +
      ' (Codex forgives whitespace at the ends of a line, indentation included, not inside it)';
    data.closest = { line: spaced + 1, whitespace_only: true };
    data.file_lines = quoteLines(texts, spaced);
  } else if (best) {
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
  const inPlace =
    fresh.length > 0 && fresh.join('\n') !== old.join('\n') && seek(texts, fresh, 0, false, 1) !== undefined;
  data.in_place = inPlace;
  const already = inPlace ? '; the file already holds what this change makes' : '';
  const where = cursor > 0 ? ` after line ${cursor}` : '';
  const own = `${label(w)} does not apply: the lines it replaces ${first} are not in the file${where}`;
  return new ShadowError('PATCH_FAILED', `${clip(codex, 2000)}\n${own}${detail}${already}`, {
    hint: inPlace ? 'the change is in the file already: drop it from the patch' : READ_AGAIN,
    data,
  });
}
