import { ShadowError, type ShadowErrorJSON } from '../errors.js';
import type { BatchResult, FileOperation, ViewFile } from '../index.js';
import { applyHomeEdits, fencedDiff, type HomeEdit } from './filesystem-edit.js';
import { fileInfo } from './filesystem-info.js';
import { readMediaFile } from './filesystem-media.js';
import { fileAt, homePath, kindAt, missing, type HomePath } from './filesystem-paths.js';
import { FILESYSTEM_WALK_HANDLERS, said } from './filesystem-walk.js';
import { errorText, failed, type Handler, type ToolConnection, type ToolOutcome } from './tool-outcome.js';

/**
 * The MCP filesystem server's reads and writes, on the draft's view: text
 * answers as that server words them (`Successfully wrote to …`, a fenced
 * git-style diff), `{ content }` as structured content, shadow's codes first
 * in the text of an error and that server's message after it. Each write is
 * one batch on the draft; an edit writes the file's new bytes with `expect`
 * set to the blob this call read, so a file changed meanwhile is never
 * overwritten.
 */

/** A failed batch: the failing operation's error, nothing written. */
function batchFailure(r: BatchResult): ToolOutcome {
  const e: ShadowErrorJSON = r.results.find((x) => x.error)?.error ??
    r.error ?? { code: 'BATCH_FAILED', message: 'the batch failed' };
  return failed(e, `${errorText(e)}\nNothing was written.`);
}

/** The file at `p` as text, or the error that server gives there. */
async function readText(conn: ToolConnection, p: HomePath): Promise<{ file: ViewFile; text: string }> {
  const file = await fileAt(conn, p);
  return { file, text: file.content.toString('utf8') };
}

/** That server's head: the first N lines, a last newline ending the last line. */
function head(text: string, n: number): string {
  const out = text.split('\n');
  if (out.length > 1 && out[out.length - 1] === '') out.pop();
  return out.slice(0, n).join('\n');
}

/** That server's tail: the last N pieces of the text split at LF (CRLF read as LF), the empty one after a last newline counted as a line. */
function tail(text: string, n: number): string {
  return text === '' ? '' : text.replace(/\r\n/g, '\n').split('\n').slice(-n).join('\n');
}

async function readTextFile(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const p = homePath(conn, String(a.path));
  const h = a.head as number | undefined;
  const t = a.tail as number | undefined;
  // As that server: 0 counts as not given.
  if (h && t)
    throw new ShadowError('INVALID_ARGUMENT', 'Cannot specify both head and tail parameters simultaneously', {
      hint: 'give head or tail, not both',
    });
  const { text } = await readText(conn, p);
  if (t) return said(tail(text, t));
  if (h) return said(head(text, h));
  return said(text);
}

async function editFile(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const p = homePath(conn, String(a.path));
  const { file, text } = await readText(conn, p);
  const { before, after, written } = applyHomeEdits(text, a.edits as HomeEdit[]);
  const diff = fencedDiff(p.abs, before, after);
  if (a.dryRun === true || written === text) return said(diff);
  const op: FileOperation = { operation: 'write', path: p.rel, content: written, expect: file.oid };
  const r = await conn.sh.batch(
    { intent: `edit ${p.rel}`, operations: [op] },
    { draft: conn.draft, actor: conn.actor },
  );
  return r.success ? said(diff) : batchFailure(r);
}

async function writeFile(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const p = homePath(conn, String(a.path));
  const r = await conn.sh.write(p.rel, String(a.content), { draft: conn.draft, actor: conn.actor });
  return r.success ? said(`Successfully wrote to ${p.given}`) : batchFailure(r);
}

async function readMultiple(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const parts: string[] = [];
  for (const given of a.paths as string[]) {
    try {
      parts.push(`${given}:\n${(await readText(conn, homePath(conn, given))).text}\n`);
    } catch (e) {
      // As that server: the error's message in the file's place; the others are still read.
      if (!(e instanceof ShadowError)) throw e;
      parts.push(`${given}: Error - ${e.message}`);
    }
  }
  return said(parts.join('\n---\n'));
}

async function moveFile(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const [source, destination] = [homePath(conn, String(a.source)), homePath(conn, String(a.destination))];
  const [from, to] = [source.rel, destination.rel];
  const renamed = `rename '${source.abs}' -> '${destination.abs}'`;
  const kind = await kindAt(conn, from);
  if (kind === 'absent') {
    const e = await missing(conn, source, 'open');
    throw e.message.startsWith('Parent')
      ? e
      : new ShadowError('NOT_FOUND', `ENOENT: no such file or directory, ${renamed}`, {
          hint: e.hint,
          data: { path: source.given },
        });
  }
  // That server's README: "Fails if destination exists" (shadow never replaces a file by a move).
  if ((await kindAt(conn, to)) !== 'absent') {
    throw new ShadowError('ALREADY_EXISTS', `EEXIST: file already exists, ${renamed}`, {
      hint: 'choose another destination, or delete it first',
      data: { path: destination.given },
    });
  }
  let ops: FileOperation[];
  let left = 0;
  if (kind === 'file') ops = [{ operation: 'rename', path: from, to }];
  else {
    if (from === '' || to.startsWith(`${from}/`)) {
      throw new ShadowError('INVALID_ARGUMENT', `EINVAL: invalid argument, ${renamed}`, {
        hint: 'a directory cannot move into itself',
        data: { source: source.given, destination: destination.given },
      });
    }
    const walked = await conn.sh.files(from, { draft: conn.draft });
    const all = await conn.sh.files(from, { draft: conn.draft, ignored: true });
    left = all.files.length - walked.files.length;
    ops = walked.files
      .filter((f) => f.type !== 'submodule')
      .map((f) => ({ operation: 'rename', path: f.path, to: `${to}${f.path.slice(from.length)}` }));
    if (ops.length === 0)
      throw new ShadowError('NOT_FOUND', `${source.given} holds no files to move`, { data: { path: source.given } });
  }
  const r = await conn.sh.batch(
    { intent: `move ${from} to ${to}`, operations: ops },
    { draft: conn.draft, actor: conn.actor },
  );
  if (!r.success) return batchFailure(r);
  const note =
    left > 0 ? ` (${left} ignored file${left === 1 ? '' : 's'} stayed: .gitignore keeps them out of the draft)` : '';
  return said(`Successfully moved ${source.given} to ${destination.given}${note}`);
}

/**
 * Git keeps no empty directories, so this writes nothing: it answers as that
 * server does, unless a file is in the way (Node's EEXIST or ENOTDIR).
 */
async function createDirectory(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const p = homePath(conn, String(a.path));
  const parts = p.rel.split('/');
  for (let i = 1; i <= parts.length && p.rel !== ''; i++) {
    const at = parts.slice(0, i).join('/');
    if ((await kindAt(conn, at)) !== 'file') continue;
    const message =
      i === parts.length
        ? `EEXIST: file already exists, mkdir '${p.abs}'`
        : `ENOTDIR: not a directory, realpath '${p.abs}'`;
    throw new ShadowError('NOT_A_DIRECTORY', message, {
      hint: `${at} is a file: move or delete it first`,
      data: { path: p.given, blockedBy: at },
    });
  }
  return said(`Successfully created directory ${p.given}`);
}

export const FILESYSTEM_HANDLERS: Record<string, Handler> = {
  read_text_file: readTextFile,
  read_file: readTextFile,
  read_media_file: readMediaFile,
  read_multiple_files: readMultiple,
  write_file: writeFile,
  edit_file: editFile,
  create_directory: createDirectory,
  move_file: moveFile,
  get_file_info: fileInfo,
  ...FILESYSTEM_WALK_HANDLERS,
};
