import { ShadowError } from '../../errors.js';
import { readCQuoted, cUnquote } from '../../git/format/c-quote.js';

/**
 * A patch in git's format (`diff --git` headers, mode lines, `---`/`+++`,
 * `@@` hunks, `\ No newline at end of file`), parsed into files and hunks
 * as `git apply` reads it: a hunk's header counts say how many lines it
 * holds. Lines are kept as they are, `\r` included, so a CRLF file's bytes
 * come back exactly. Pure text: the caller decides what a file of the patch
 * may do.
 */

/** One hunk: its header line, its ranges, and its body lines (prefix ' ', '-' or '+', and git's "\ No newline" marker). */
export interface PatchHunk {
  header: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** One file of a patch. */
export interface FilePatch {
  /** The path before (`a/…`, or the `rename from`); null for a file the patch creates. */
  oldPath: string | null;
  /** The path after; null for a file the patch deletes. */
  newPath: string | null;
  oldMode?: string;
  newMode?: string;
  /** `Binary files … differ` or `GIT binary patch`: the file is taken whole. */
  binary: boolean;
  hunks: PatchHunk[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

function corrupt(line: number, why: string): ShadowError {
  return new ShadowError('INVALID_PATCH', `corrupt patch at line ${line}: ${why}`, {
    hint: "give a patch in git's format, as shadow diff prints it (diff --git, ---/+++, @@ hunks whose counts match their lines)",
    data: { line },
  });
}

/** The path of a `--- a/x` or `+++ b/x` line: the prefix dropped, `/dev/null` as null, a quoted name read back. */
function stripPrefix(name: string): string | null {
  const field = name.startsWith('"') ? name : name.replace(/\t.*$/, '');
  const unquoted = field.startsWith('"') ? (readCQuoted(field)?.value ?? field) : field;
  if (unquoted === '/dev/null') return null;
  return /^[ab]\//.test(unquoted) ? unquoted.slice(2) : unquoted;
}

/**
 * The two paths of a `diff --git a/x b/y` line, either of them quoted as
 * git quotes an unusual path (`"a/caf\303\251.txt"`); undefined when they
 * cannot be told apart.
 */
function gitHeaderPaths(rest: string): { a: string; b: string } | undefined {
  const pair = (a: string | undefined, b: string | undefined): { a: string; b: string } | undefined =>
    a?.startsWith('a/') && b?.startsWith('b/') ? { a: a.slice(2), b: b.slice(2) } : undefined;
  if (rest.startsWith('"')) {
    const first = readCQuoted(rest);
    if (!first || rest[first.end] !== ' ') return undefined;
    return pair(first.value, cUnquote(rest.slice(first.end + 1)));
  }
  if (rest.endsWith('"')) {
    // `a/plain "b/caf\303\251"`: the second name is the quoted string that ends the line.
    for (let i = rest.indexOf(' "'); i >= 0; i = rest.indexOf(' "', i + 1)) {
      const second = readCQuoted(rest.slice(i + 1));
      if (second && i + 1 + second.end === rest.length) return pair(rest.slice(0, i), second.value);
    }
  }
  // `a/p b/p`: the split point is the middle when the two names agree.
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest[half] === ' ') {
    const a = rest.slice(0, half);
    const b = rest.slice(half + 1);
    if (a.startsWith('a/') && b.startsWith('b/') && a.slice(2) === b.slice(2)) return { a: a.slice(2), b: b.slice(2) };
  }
  const m = /^a\/(.*) b\/(.*)$/.exec(rest);
  return m ? { a: m[1]!, b: m[2]! } : undefined;
}

/** A `rename from`/`rename to` path, read back when git quoted it. */
function renamePath(field: string, index: number): string {
  const path = cUnquote(field);
  if (path === undefined) throw corrupt(index + 1, `cannot read the quoted path ${field}`);
  return path;
}

/** Parse a patch in git's format into its files. */
export function parseGitPatch(text: string): FilePatch[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const files: FilePatch[] = [];
  let file: FilePatch | undefined;
  let newFile = false;
  let deletedFile = false;
  const finish = (): void => {
    if (!file) return;
    if (newFile) file.oldPath = null;
    if (deletedFile) file.newPath = null;
    files.push(file);
    file = undefined;
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.startsWith('diff --git ')) {
      finish();
      const paths = gitHeaderPaths(line.slice('diff --git '.length));
      if (!paths) throw corrupt(i + 1, `cannot read the paths of "${line}"`);
      file = { oldPath: paths.a, newPath: paths.b, binary: false, hunks: [] };
      newFile = false;
      deletedFile = false;
      i++;
      continue;
    }
    // format-patch's signature ends the patch.
    if (line === '-- ') break;
    if (!file) {
      // Text before the first file (a commit message, say) is not part of any file, as for git apply.
      i++;
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = /^new file mode (\d+)$/.exec(line))) {
      newFile = true;
      file.newMode = m[1];
    } else if ((m = /^deleted file mode (\d+)$/.exec(line))) {
      deletedFile = true;
      file.oldMode = m[1];
    } else if ((m = /^old mode (\d+)$/.exec(line))) file.oldMode = m[1];
    else if ((m = /^new mode (\d+)$/.exec(line))) file.newMode = m[1];
    else if ((m = /^rename from (.*)$/.exec(line))) file.oldPath = renamePath(m[1]!, i);
    else if ((m = /^rename to (.*)$/.exec(line))) file.newPath = renamePath(m[1]!, i);
    else if ((m = /^index [0-9a-f]+\.\.[0-9a-f]+(?: (\d+))?$/.exec(line))) {
      if (m[1] !== undefined) file.oldMode = file.newMode = m[1];
    } else if (line.startsWith('--- ')) {
      if (stripPrefix(line.slice(4)) === null) newFile = true;
    } else if (line.startsWith('+++ ')) {
      if (stripPrefix(line.slice(4)) === null) deletedFile = true;
    } else if (line.startsWith('Binary files ') || line === 'GIT binary patch') {
      file.binary = true;
      // A binary patch's data lines end at the next file.
      while (i + 1 < lines.length && !lines[i + 1]!.startsWith('diff --git ')) i++;
    } else if (line.startsWith('@@')) {
      const parsed = readHunk(lines, i);
      file.hunks.push(parsed.hunk);
      i = parsed.next;
      continue;
    } else if (file.hunks.length > 0 && /^[-+ \\]/.test(line)) {
      // A hunk's line past its counts: the counts lie, and git refuses it so.
      throw corrupt(i + 1, 'a line of a hunk past the counts of its header');
    }
    i++;
  }
  finish();
  return files;
}

/** Read the hunk whose header is at `at`: as many body lines as its counts say. */
function readHunk(lines: readonly string[], at: number): { hunk: PatchHunk; next: number } {
  const header = lines[at]!;
  const m = HUNK_HEADER.exec(header);
  if (!m) throw corrupt(at + 1, `"${header}" is not a hunk header`);
  const hunk: PatchHunk = {
    header,
    oldStart: Number(m[1]),
    oldLines: m[2] === undefined ? 1 : Number(m[2]),
    newStart: Number(m[3]),
    newLines: m[4] === undefined ? 1 : Number(m[4]),
    lines: [],
  };
  let oldLeft = hunk.oldLines;
  let newLeft = hunk.newLines;
  let i = at + 1;
  while (oldLeft > 0 || newLeft > 0) {
    if (i >= lines.length) throw corrupt(i + 1, `the hunk "${header}" ends before its counts do`);
    const l = lines[i]!;
    // An empty line is an empty context line whose space was stripped, as git reads it.
    const kind = l === '' ? ' ' : l[0];
    if (kind === ' ') {
      oldLeft--;
      newLeft--;
    } else if (kind === '-') oldLeft--;
    else if (kind === '+') newLeft--;
    else if (kind !== '\\') throw corrupt(i + 1, `a line of the hunk "${header}" starts with none of ' ', '-', '+'`);
    if (oldLeft < 0 || newLeft < 0) throw corrupt(i + 1, `the hunk "${header}" holds more lines than its counts`);
    hunk.lines.push(l === '' ? ' ' : l);
    i++;
  }
  if (i < lines.length && lines[i]!.startsWith('\\')) hunk.lines.push(lines[i++]!);
  return { hunk, next: i };
}
