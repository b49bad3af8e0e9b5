import { INTERRUPT, type AnswerReader } from './answer-reader.js';
import { knownBase, notApplying } from './base-check.js';
import { editText, recountEdited, takeEdit } from './edit-hunk.js';
import type { FileDiff, Hunk } from './parse-diff.js';
import type { PromptColours } from './prompt-colours.js';
import { EDIT_AGAIN, HELP_PATCH, HELP_REMAINDER, promptFor, type PromptKind } from './prompt-text.js';
import { reassemble, renderHead, renderHunk } from './reassemble.js';
import { splitHunk } from './split-hunk.js';

/**
 * One file walked hunk by hunk with git's keys, as `git add -p` walks it
 * (add-patch.c, patch_update_file): the head once, then each hunk and the
 * question, until every hunk is decided or the person quits.
 */

export interface WalkIO {
  colours: PromptColours;
  /** Whether the diff is shown in colour (its coloured lines). */
  colourDiff: boolean;
  out(s: string): void;
  err(s: string): void;
  reader: AnswerReader;
  /** The edited text, or undefined when the editor failed. */
  edit(text: string): Promise<string | undefined>;
  commentChar: string;
}

/** How the walk of a file ended: on to the next file, `q`, or Ctrl-C (nothing is applied then). */
export type WalkEnd = 'next' | 'quit' | 'interrupt';

class Interrupted extends Error {}

/** A git-style error line: in the error colour, on stderr. */
const complain = (io: WalkIO, message: string): void => io.err(`${io.colours.error}${message}${io.colours.reset}\n`);

async function answer(io: WalkIO): Promise<string | undefined> {
  const a = await io.reader.answer(io.out);
  if (a === INTERRUPT) throw new Interrupted();
  return a;
}

/** y or n (git's prompt_yesno): 1, 0, or -1 at the end of the input. */
async function yesNo(io: WalkIO, prompt: string): Promise<number> {
  for (;;) {
    io.reader.ready();
    io.out(`${io.colours.prompt}${prompt}${io.colours.reset}`);
    const a = await answer(io);
    if (a === undefined) return -1;
    const c = a[0]?.toLowerCase();
    if (c === 'n') return 0;
    if (c === 'y') return 1;
  }
}

/** `e` until the edit applies, or the person gives up (git's edit_hunk_loop): true when edited. */
async function editLoop(io: WalkIO, file: FileDiff, hunk: Hunk, known: ReturnType<typeof knownBase>): Promise<boolean> {
  const saved = file.plain.length;
  const backup: Hunk = { ...hunk, header: { ...hunk.header } };
  const restore = (): void => {
    Object.assign(hunk, { ...backup, header: { ...backup.header } });
    file.plain.length = saved;
    file.coloured.length = saved;
  };
  for (;;) {
    const edited = await io.edit(editText(file, hunk, io.commentChar));
    const taken = edited === undefined ? 'failed' : takeEdit(file, hunk, edited, io.commentChar, io.colours);
    if (taken === 'abandoned') {
      restore();
      return false;
    }
    if (taken === 'bad-header') io.err('error: could not parse hunk header\n');
    if (taken === 'edited') {
      hunk.delta += recountEdited(file, hunk, backup.header.oldCount, backup.header.newCount);
      const failed = notApplying(reassemble(file, true), known);
      if (failed === undefined) return true;
      // git apply's own words, then add -p's.
      io.err(`error: patch failed: ${file.path}:${failed}\nerror: ${file.path}: patch does not apply\n`);
      io.err("error: 'git apply --cached' failed\n");
    }
    restore();
    if ((await yesNo(io, EDIT_AGAIN)) < 1) return false;
  }
}

/** `g`'s list: a line for each hunk, from `start`, at most 20 (display_hunks); where it stopped. */
function listHunks(io: WalkIO, file: FileDiff, start: number): number {
  const end = Math.min(start + 20, file.hunks.length);
  for (let i = start; i < end; i++) {
    const h = file.hunks[i]!;
    const mark = h.use === 'use' ? '+' : h.use === 'skip' ? '-' : ' ';
    let line = ` -${h.header.oldOffset},${h.header.oldCount} +${h.header.newOffset},${h.header.newCount} `.padEnd(20);
    let first = h.start;
    while (first < h.end && file.plain[first]![0] === ' ') first++;
    if (first < h.end) line += file.plain[first];
    if (line.length > 80) line = line.slice(0, 80);
    if (!line.endsWith('\n')) line += '\n';
    io.out(`${mark}${String(i + 1).padStart(2)}: ${line}`);
  }
  return end;
}

async function goTo(io: WalkIO, file: FileDiff, at: number, typed: string): Promise<number | 'eof'> {
  let reply = typed.trim();
  let shown = Math.max(at - 10, file.modeChange ? 1 : 0);
  while (reply === '') {
    shown = listHunks(io, file, shown);
    io.out(shown < file.hunks.length ? 'go to which hunk (<ret> to see more)? ' : 'go to which hunk? ');
    const line = await io.reader.line();
    if (line === undefined) break;
    reply = line.trim();
  }
  if (!/^\d+$/.test(reply)) complain(io, `Invalid number: '${reply}'`);
  else if (Number(reply) > 0 && Number(reply) <= file.hunks.length) return Number(reply) - 1;
  else complain(io, `Sorry, only ${file.hunks.length} hunk${file.hunks.length === 1 ? '' : 's'} available.`);
  return at;
}

async function search(io: WalkIO, file: FileDiff, at: number, typed: string): Promise<number | 'eof'> {
  let pattern = typed;
  if (pattern === '') {
    io.out('search for regex? ');
    const line = await io.reader.line();
    if (line === undefined) return 'eof';
    if (line === '') return at;
    pattern = line;
  }
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, 'm');
  } catch (e) {
    complain(io, `Malformed search regexp ${pattern}: ${(e as Error).message}`);
    return at;
  }
  for (let i = at; ;) {
    if (regex.test(renderHunk(file, file.hunks[i]!, 0))) return i;
    i = (i + 1) % file.hunks.length;
    if (i === at) {
      complain(io, 'No hunk matches the given pattern');
      return at;
    }
  }
}

/** Walk one file; its hunks' `use` say what was chosen. */
export async function walkFile(io: WalkIO, file: FileDiff): Promise<WalkEnd> {
  try {
    return await walk(io, file);
  } catch (e) {
    if (e instanceof Interrupted) return 'interrupt';
    throw e;
  }
}

async function walk(io: WalkIO, file: FileDiff): Promise<WalkEnd> {
  // An empty new file has no hunks: the file itself is the one question.
  if (file.hunks.length === 0 && !file.added) return 'next';
  const c = io.colours;
  const coloured = io.colourDiff;
  const known = knownBase(file);
  io.out(renderHead(file, coloured));
  let index = 0;
  let quit = false;
  for (;;) {
    if (index >= file.hunks.length) index = 0;
    const hunk = file.hunks.length > 0 ? file.hunks[index]! : file.head;
    let previous = -1;
    let next = -1;
    for (let i = index - 1; i >= 0 && file.hunks.length > 0; i--)
      if (file.hunks[i]!.use === 'undecided') {
        previous = i;
        break;
      }
    for (let i = index + 1; i < file.hunks.length; i++)
      if (file.hunks[i]!.use === 'undecided') {
        next = i;
        break;
      }
    if (previous < 0 && next < 0 && hunk.use !== 'undecided') break;

    let keys = '';
    if (file.hunks.length > 0) {
      io.out(renderHunk(file, hunk, 0, coloured ? { fraginfo: c.fraginfo, reset: c.reset } : undefined));
      if (previous >= 0) keys += ',k';
      if (index > 0) keys += ',K';
      if (next >= 0) keys += ',j';
      if (index + 1 < file.hunks.length) keys += ',J';
      if (file.hunks.length > 1) keys += ',g,/';
      if (hunk.splittableInto > 1) keys += ',s';
      if (index + 1 > (file.modeChange ? 1 : 0) && !file.deleted) keys += ',e';
    }
    const kind: PromptKind = file.deleted
      ? 'deletion'
      : file.added
        ? 'addition'
        : file.modeChange && index === 0
          ? 'mode'
          : 'hunk';
    io.reader.ready();
    io.out(`${c.prompt}(${index + 1}/${Math.max(file.hunks.length, 1)}) ${promptFor(kind, keys)}${c.reset}`);
    const a = await answer(io);
    if (a === undefined) break;
    if (a === '') continue;
    const ch = a[0]!.toLowerCase();
    const allows = (key: string): boolean => keys.split(',').includes(key);
    const softNext = (): void => {
      index = next < 0 ? file.hunks.length : next;
    };
    if (ch === 'y' || ch === 'n') {
      hunk.use = ch === 'y' ? 'use' : 'skip';
      softNext();
    } else if (ch === 'a' || ch === 'd' || ch === 'q') {
      const use = ch === 'a' ? 'use' : 'skip';
      if (file.hunks.length > 0)
        for (; index < file.hunks.length; index++) {
          if (file.hunks[index]!.use === 'undecided') file.hunks[index]!.use = use;
        }
      else if (hunk.use === 'undecided') hunk.use = use;
      if (ch === 'q') {
        quit = true;
        break;
      }
    } else if (a[0] === 'K') {
      if (allows('K')) index--;
      else complain(io, 'No previous hunk');
    } else if (a[0] === 'J') {
      if (allows('J')) index++;
      else complain(io, 'No next hunk');
    } else if (a[0] === 'k') {
      if (allows('k')) index = previous;
      else complain(io, 'No previous hunk');
    } else if (a[0] === 'j') {
      if (allows('j')) index = next;
      else complain(io, 'No next hunk');
    } else if (a[0] === 'g' || a[0] === '/') {
      if (!allows('g')) {
        complain(io, a[0] === 'g' ? 'No other hunks to goto' : 'No other hunks to search');
        continue;
      }
      const to = a[0] === 'g' ? await goTo(io, file, index, a.slice(1)) : await search(io, file, index, a.slice(1));
      if (to === 'eof') break;
      index = to;
    } else if (a[0] === 's') {
      const parts = hunk.splittableInto;
      if (!allows('s')) complain(io, 'Sorry, cannot split this hunk');
      else if (splitHunk(file, index)) io.out(`${c.header}Split into ${parts} hunks.${c.reset}\n`);
    } else if (a[0] === 'e') {
      if (!allows('e')) complain(io, 'Sorry, cannot edit this hunk');
      else if (await editLoop(io, file, hunk, known)) {
        hunk.use = 'use';
        softNext();
      }
    } else {
      io.out(`${c.help}${HELP_PATCH}${c.reset}`);
      for (const line of HELP_REMAINDER) {
        if (line[0] !== '?' && !keys.includes(line[0]!)) continue;
        io.out(`${c.help}${line}${c.reset}\n`);
      }
    }
  }
  io.out('\n');
  return quit ? 'quit' : 'next';
}
