import { createTwoFilesPatch } from 'diff';
import { ShadowError, type ShadowErrorJSON } from '../errors.js';
import type { BatchResult, FileOperation, ViewFile } from '../index.js';
import { FILESYSTEM_WALK_HANDLERS, said } from './filesystem-walk.js';
import { errorText, failed, type Handler, type ToolConnection, type ToolOutcome } from './tool-outcome.js';
import { repoPathOf } from './view-paths.js';

/**
 * The MCP filesystem server's reads and writes, on the draft's view: text
 * answers as that server words them (`Successfully wrote to …`, a fenced
 * git-style diff), `{ content }` as structured content, shadow's codes first
 * in the text of an error. Each write is one batch on the draft; an edit is
 * the batch's own edit op (exact, unique) with `expect` set to the blob this
 * call read, so a file changed meanwhile is never overwritten.
 */

/** A failed batch: the failing operation's error (with its details: closest lines, match count), nothing written. */
function batchFailure(r: BatchResult): ToolOutcome {
  const e: ShadowErrorJSON = r.results.find((x) => x.error)?.error ?? r.error ?? { code: 'BATCH_FAILED', message: 'the batch failed' };
  return failed(e, `${errorText(e)}\nNothing was written.`);
}

async function readText(conn: ToolConnection, given: string): Promise<{ file: ViewFile; text: string }> {
  const file = await conn.sh.cat(repoPathOf(conn, given), { draft: conn.draft });
  if (file.type === 'symlink') throw new ShadowError('NOT_A_FILE', `${given} is a symlink (to ${file.content.toString()})`, { hint: 'read the file it points to', data: { path: given } });
  return { file, text: file.content.toString('utf8') };
}

/** The lines of `text` as that server counts them (a last newline ends the last line). */
function lines(text: string): string[] {
  const out = text.split('\n');
  if (out.length > 1 && out[out.length - 1] === '') out.pop();
  return out;
}

async function readTextFile(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const head = a.head as number | undefined;
  const tail = a.tail as number | undefined;
  // As that server: 0 counts as not given.
  if (head && tail) throw new ShadowError('INVALID_ARGUMENT', 'cannot specify both head and tail parameters simultaneously', { hint: 'give head or tail, not both' });
  const { text } = await readText(conn, String(a.path));
  if (head) return said(lines(text).slice(0, head).join('\n'));
  if (tail) return said(lines(text).slice(-tail).join('\n'));
  return said(text);
}

/** The diff edit_file answers with: unified, in a code fence longer than any run of backticks inside it. */
function fencedDiff(path: string, before: string, after: string): string {
  const diff = createTwoFilesPatch(path, path, before.replace(/\r\n/g, '\n'), after.replace(/\r\n/g, '\n'), 'original', 'modified');
  let ticks = 3;
  while (diff.includes('`'.repeat(ticks))) ticks++;
  const fence = '`'.repeat(ticks);
  return `${fence}diff\n${diff}${fence}\n\n`;
}

/**
 * The edits applied in memory, as the batch's edit op applies them (exact,
 * once; with LF read as the file's CRLF): for the diff, and the dry run.
 * Undefined when one does not apply: the batch then says why, with its codes.
 */
function applyEdits(text: string, edits: ReadonlyArray<{ oldText: string; newText: string }>): string | undefined {
  let out = text;
  for (const { oldText, newText } of edits) {
    let old = oldText;
    let replacement = newText;
    let at = out.indexOf(old);
    if (at === -1 && old.includes('\n') && !old.includes('\r') && out.includes('\r\n')) {
      old = old.replace(/\n/g, '\r\n');
      replacement = replacement.replace(/\r?\n/g, '\r\n');
      at = out.indexOf(old);
    }
    if (old === '' || at === -1 || out.indexOf(old, at + 1) !== -1) return undefined;
    out = out.slice(0, at) + replacement + out.slice(at + old.length);
  }
  return out;
}

async function editFile(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const given = String(a.path);
  const rel = repoPathOf(conn, given);
  const edits = a.edits as Array<{ oldText: string; newText: string }>;
  const { file, text } = await readText(conn, given);
  const after = applyEdits(text, edits);
  const ops: FileOperation[] = edits.map((e, i) => ({ operation: 'edit', path: rel, old_content: e.oldText, content: e.newText, ...(i === 0 ? { expect: file.oid } : {}) }));
  if (after !== undefined && (a.dryRun === true || edits.length === 0)) return said(fencedDiff(given, text, after));
  if (after === undefined && a.dryRun === true) {
    // Say why exactly as the write would: the batch fails on the same edit, with the closest lines, and writes nothing.
    // The last op, a delete expecting a blob no file holds, makes sure the batch fails.
    const probe = await conn.sh.batch({ intent: `edit ${rel}`, operations: [...ops, { operation: 'delete', path: rel, expect: '0'.repeat(40) }] }, { draft: conn.draft, actor: conn.actor });
    const first = probe.results.findIndex((x) => x.error);
    if (!probe.success && first < ops.length) return batchFailure(probe);
    throw new ShadowError('INTERNAL', 'the edits failed in memory and not in the batch');
  }
  const r = await conn.sh.batch({ intent: `edit ${rel}`, operations: ops }, { draft: conn.draft, actor: conn.actor });
  if (!r.success) return batchFailure(r);
  return said(fencedDiff(given, text, after ?? text));
}

async function writeFile(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const given = String(a.path);
  const r = await conn.sh.write(repoPathOf(conn, given), String(a.content), { draft: conn.draft, actor: conn.actor });
  return r.success ? said(`Successfully wrote to ${given}`) : batchFailure(r);
}

async function readMultiple(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const parts: string[] = [];
  for (const p of a.paths as string[]) {
    try {
      parts.push(`${p}:\n${(await readText(conn, p)).text}\n`);
    } catch (e) {
      const why = e instanceof ShadowError ? `${e.code}: ${e.message}` : String((e as Error)?.message ?? e);
      parts.push(`${p}: Error - ${why}`);
    }
  }
  return said(parts.join('\n---\n'));
}

/** The kind of what the view holds at `rel`: file (or symlink), directory, or nothing. */
export async function kindAt(conn: ToolConnection, rel: string): Promise<'file' | 'dir' | 'absent'> {
  if (rel === '') return 'dir';
  try {
    await conn.sh.cat(rel, { draft: conn.draft });
    return 'file';
  } catch (e) {
    if (e instanceof ShadowError && e.code === 'IS_A_DIRECTORY') return 'dir';
    if (e instanceof ShadowError && e.code === 'NOT_FOUND') return 'absent';
    throw e;
  }
}

async function moveFile(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const [source, destination] = [String(a.source), String(a.destination)];
  const [from, to] = [repoPathOf(conn, source), repoPathOf(conn, destination)];
  if ((await kindAt(conn, to)) !== 'absent') throw new ShadowError('ALREADY_EXISTS', `${destination} already exists`, { hint: 'choose another destination, or delete it first', data: { path: destination } });
  const kind = await kindAt(conn, from);
  if (kind === 'absent') throw new ShadowError('NOT_FOUND', `${source} does not exist in the draft's view`, { data: { path: source } });
  let ops: FileOperation[];
  let left = 0;
  if (kind === 'file') ops = [{ operation: 'rename', path: from, to }];
  else {
    if (from === '' || to === from || to.startsWith(`${from}/`)) throw new ShadowError('INVALID_ARGUMENT', `cannot move ${source} into itself`, { data: { source, destination } });
    const walked = await conn.sh.files(from, { draft: conn.draft });
    const all = await conn.sh.files(from, { draft: conn.draft, ignored: true });
    left = all.files.length - walked.files.length;
    ops = walked.files.filter((f) => f.type !== 'submodule').map((f) => ({ operation: 'rename', path: f.path, to: `${to}${f.path.slice(from.length)}` }));
    if (ops.length === 0) throw new ShadowError('NOT_FOUND', `${source} holds no files to move`, { data: { path: source } });
  }
  const r = await conn.sh.batch({ intent: `move ${from} to ${to}`, operations: ops }, { draft: conn.draft, actor: conn.actor });
  if (!r.success) return batchFailure(r);
  const note = left > 0 ? ` (${left} ignored file${left === 1 ? '' : 's'} stayed: .gitignore keeps them out of the draft)` : '';
  return said(`Successfully moved ${source} to ${destination}${note}`);
}

async function createDirectory(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const given = String(a.path);
  const rel = repoPathOf(conn, given);
  // A file on the way (the path, or a directory above it) would stop any write below it.
  const parts = rel.split('/');
  for (let i = 1; i <= parts.length && rel !== ''; i++) {
    const at = parts.slice(0, i).join('/');
    if ((await kindAt(conn, at)) === 'file') {
      throw new ShadowError('NOT_A_DIRECTORY', `${at} is a file, so ${given} cannot be a directory`, { hint: 'move or delete the file first', data: { path: given, blockedBy: at } });
    }
  }
  return said(`Successfully created directory ${given} (git keeps no empty directories: it exists in the draft once a file is written in it)`);
}

export const FILESYSTEM_HANDLERS: Record<string, Handler> = {
  read_text_file: readTextFile,
  read_file: readTextFile,
  read_multiple_files: readMultiple,
  write_file: writeFile,
  edit_file: editFile,
  create_directory: createDirectory,
  move_file: moveFile,
  ...FILESYSTEM_WALK_HANDLERS,
};
