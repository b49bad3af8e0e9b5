import { ShadowError, type ShadowErrorJSON } from '../errors.js';
import { looksBinary } from '../core/content.js';
import type { BatchResult, FileOperation, ViewFile } from '../index.js';
import { viewDirectory, viewFile, type Seen } from './editor-view.js';
import { undoEdit } from './editor-undo.js';
import { findOnce, insertAfterLine, lineOfIndex, linesOf, snippet, SNIPPET_LINES } from './editor-text.js';
import { errorText, failed, ok, type Handler, type ToolConnection, type ToolOutcome } from './tool-outcome.js';
import { repoPathOf } from './view-paths.js';

/**
 * Anthropic's text editor tool on a draft. Every write is one batch (one
 * commit) on the connection's draft, sent with `expect`: the blob the agent
 * last saw of the file (by view, or by its own last write), else the one
 * this call read. So a file another agent or the person changed after the
 * agent looked at it is never overwritten: the edit fails with EXPECT_FAILED
 * and the agent views it again, as an editor reloads a file changed on disk.
 * The texts follow Anthropic's reference implementation (`cat -n` views,
 * snippets after an edit) with shadow's codes first.
 */

/** What each connection's agent last saw of each path (its "open buffers"): a blob id, or null when it changed under the agent's own write. */
const memories = new WeakMap<ToolConnection, Seen>();
const seenOf = (conn: ToolConnection): Seen => {
  let m = memories.get(conn);
  if (!m) memories.set(conn, (m = new Map()));
  return m;
};

interface Args {
  command: 'view' | 'create' | 'str_replace' | 'insert' | 'undo_edit';
  path: string;
  file_text?: string;
  old_str?: string;
  new_str?: string;
  insert_line?: number;
  insert_text?: string;
  view_range?: number[];
}

function needs(a: Args, field: keyof Args): void {
  if (a[field] === undefined) {
    throw new ShadowError('INVALID_ARGUMENT', `parameter \`${field}\` is required for command: ${a.command}`, { hint: `send ${field} with the ${a.command} command`, data: { command: a.command } });
  }
}

/** A text file of the view: refused when it is a symlink or binary (the editor edits text). */
async function readText(conn: ToolConnection, rel: string, shown: string): Promise<{ file: ViewFile; text: string }> {
  let file: ViewFile;
  try {
    file = await conn.sh.cat(rel, { draft: conn.draft });
  } catch (e) {
    if (e instanceof ShadowError && e.code === 'NOT_FOUND') {
      throw new ShadowError('NOT_FOUND', `the path ${shown} does not exist; please provide a valid path`, { hint: 'create it with the create command, or view its directory', data: { path: shown } });
    }
    throw e;
  }
  if (file.type === 'symlink') throw new ShadowError('NOT_A_FILE', `${shown} is a symlink (to ${file.content.toString()})`, { hint: 'edit the file it points to', data: { path: shown } });
  if (looksBinary(file.content)) throw new ShadowError('INVALID_CONTENT', `${shown} is a binary file; the editor edits text`, { data: { path: shown } });
  return { file, text: file.content.toString('utf8') };
}

/** The blob the agent's edit must find: what it saw last, else what this call read. */
function expected(seen: Seen, rel: string, shown: string, read: string): string {
  const last = seen.get(rel);
  if (last === null) {
    throw new ShadowError('EXPECT_FAILED', `${shown} changed while you were editing it (another agent or the person wrote it); nothing was written`, {
      hint: 'view the file again, then redo the edit on what it holds now',
      data: { path: shown },
    });
  }
  return last ?? read;
}

/**
 * After the agent's own write: remember the blob it made, read back. When
 * the file already differs from what it wrote (another write landed right
 * after), remember that it changed, so that its next edit fails instead.
 */
async function remember(conn: ToolConnection, rel: string, wrote: string | undefined): Promise<string | undefined> {
  const seen = seenOf(conn);
  try {
    const f = await conn.sh.cat(rel, { draft: conn.draft });
    const same = wrote === undefined || f.content.toString('utf8') === wrote;
    seen.set(rel, same ? f.oid : null);
    return f.oid;
  } catch {
    seen.delete(rel);
    return undefined;
  }
}

/** A failed batch of the editor, worded as Anthropic documents its errors, shadow's code first. */
function editFailure(r: BatchResult, a: Args): ToolOutcome {
  const e: ShadowErrorJSON = r.results.find((x) => x.error)?.error ?? r.error ?? { code: 'BATCH_FAILED', message: 'the edit failed' };
  const data = (e.data ?? {}) as { closest?: Array<{ line: number; text: string; kind: string }>; lines?: number[]; matches?: number };
  const nothing = 'No replacement was performed';
  if (e.code === 'EDIT_NO_MATCH') {
    const closest = (data.closest ?? []).map((c) => `${String(c.line).padStart(6)}\t${c.text}${c.kind === 'similar' ? '' : `   (differs in ${c.kind})`}`);
    const text = `EDIT_NO_MATCH: ${nothing}: no match found for old_str in ${a.path}; it must appear verbatim, whitespace and line endings included. Please check your text and try again.` +
      (closest.length > 0 ? `\nclosest lines:\n${closest.join('\n')}` : '') +
      '\nhint: view the file (or the lines above with view_range) and copy old_str exactly';
    return failed({ ...e, message: `no match found for old_str in ${a.path}`, hint: 'view the file and copy old_str exactly' }, text);
  }
  if (e.code === 'EDIT_AMBIGUOUS') {
    const lines = data.lines ?? [];
    const text = `EDIT_AMBIGUOUS: ${nothing}: found ${data.matches ?? lines.length} matches for old_str in ${a.path}, at lines ${lines.join(', ')}. Please provide more context to make a unique match.` +
      '\nhint: include the lines around the one you mean in old_str (and in new_str)';
    return failed({ ...e, message: `old_str occurs ${data.matches ?? lines.length} times in ${a.path} (lines ${lines.join(', ')})`, hint: 'include more surrounding lines in old_str' }, text);
  }
  if (e.code === 'EXPECT_FAILED') {
    const message = `${a.path} changed since you last viewed it (another agent or the person wrote it); nothing was written, their change is kept`;
    const hint = 'view the file again, then redo the edit on what it holds now';
    return failed({ ...e, message, hint }, `EXPECT_FAILED: ${message}\nhint: ${hint}`);
  }
  return failed(e, `${errorText({ ...e, data: undefined })}\nNothing was written.`);
}

async function commit(conn: ToolConnection, a: Args, intent: string, op: FileOperation): Promise<BatchResult> {
  return conn.sh.batch({ intent, operations: [op] }, { draft: conn.draft, actor: conn.actor });
}

/** A unified diff that creates `path` with `text`: applied only where the path is absent, it is a create that cannot replace a file made meanwhile. */
function creatingDiff(path: string, text: string): string {
  const lines = text.split('\n');
  const last = lines.pop()!;
  const body = lines.map((l) => `+${l}\n`);
  if (last !== '') body.push(`+${last}\n\\ No newline at end of file\n`);
  return `--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${body.length} @@\n${body.join('')}`;
}

const written = (a: Args, r: BatchResult, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  command: a.command,
  path: a.path,
  draft: r.draft,
  batch: r.batch,
  commit: r.commit,
  ...extra,
});

async function create(conn: ToolConnection, a: Args, rel: string): Promise<ToolOutcome> {
  needs(a, 'file_text');
  const text = a.file_text!;
  const seen = seenOf(conn);
  let current: ViewFile | undefined;
  try {
    current = await conn.sh.cat(rel, { draft: conn.draft });
  } catch (e) {
    if (!(e instanceof ShadowError && e.code === 'NOT_FOUND')) throw e;
  }
  let op: FileOperation;
  if (current === undefined) {
    // A create of an empty file has no hunk to carry: a plain write (the one create that could land on a file made meanwhile).
    op = text === '' ? { operation: 'write', path: rel, content: '' } : { operation: 'patch', path: rel, diff: creatingDiff(rel, text) };
  } else {
    if (!seen.has(rel)) {
      throw new ShadowError('ALREADY_EXISTS', `file already exists at ${a.path}; create does not overwrite a file you have not viewed`, {
        hint: 'view it first (create may then replace it), or change it with str_replace or insert',
        data: { path: a.path },
      });
    }
    op = { operation: 'write', path: rel, content: text, expect: expected(seen, rel, a.path, current.oid) };
  }
  const r = await commit(conn, a, `create ${rel}`, op);
  if (!r.success) return editFailure(r, a);
  const oid = await remember(conn, rel, text);
  const verb = current === undefined ? 'created' : 'overwritten';
  return ok(`File ${verb} successfully at: ${a.path} (batch ${r.batch ?? 'none: unchanged'} on draft ${r.draft})`, written(a, r, oid ? { oid } : {}));
}

async function strReplace(conn: ToolConnection, a: Args, rel: string): Promise<ToolOutcome> {
  needs(a, 'old_str');
  const old = a.old_str!;
  const replacement = a.new_str ?? '';
  if (old === '') throw new ShadowError('INVALID_ARGUMENT', 'old_str is empty: there is nothing to find', { hint: 'give the exact text to replace; to add lines use insert' });
  const { file, text } = await readText(conn, rel, a.path);
  const expect = expected(seenOf(conn), rel, a.path, file.oid);
  const r = await commit(conn, a, `str_replace in ${rel}`, { operation: 'edit', path: rel, old_content: old, content: replacement, expect });
  if (!r.success) return editFailure(r, a);
  // The edit landed on the content read (expect held), so the result is that content with the one match replaced.
  const found = findOnce(text, old);
  const crlf = found.old !== old;
  const next = found.at === -1 ? undefined : text.slice(0, found.at) + (crlf ? replacement.replace(/\r?\n/g, '\r\n') : replacement) + text.slice(found.at + found.old.length);
  const oid = await remember(conn, rel, next);
  const line = found.at === -1 ? 1 : lineOfIndex(text, found.at);
  const end = line + replacement.split('\n').length - 1;
  const shown = next === undefined ? '' : snippet(next, line - SNIPPET_LINES, end + SNIPPET_LINES);
  const head = r.unchanged ? `The file ${a.path} is unchanged: new_str is the same as old_str.` : `The file ${a.path} has been edited (batch ${r.batch} on draft ${r.draft}).`;
  return ok(
    `${head} Here's the result of running \`cat -n\` on a snippet of ${a.path}:\n${shown}\nReview the changes and make sure they are as expected. Edit the file again if necessary.`,
    written(a, r, oid ? { oid } : {}),
  );
}

async function insert(conn: ToolConnection, a: Args, rel: string): Promise<ToolOutcome> {
  needs(a, 'insert_line');
  if (a.insert_text !== undefined && a.new_str !== undefined && a.insert_text !== a.new_str) {
    throw new ShadowError('INVALID_ARGUMENT', 'insert_text and new_str differ: send the text to insert once', { hint: 'send insert_text only' });
  }
  const inserted = a.insert_text ?? a.new_str;
  if (inserted === undefined) needs(a, 'insert_text');
  const { file, text } = await readText(conn, rel, a.path);
  const n = linesOf(text).length;
  const after = a.insert_line!;
  if (after > n) {
    throw new ShadowError('INVALID_ARGUMENT', `invalid \`insert_line\` parameter: ${after}; it should be within the range of lines of the file: [0, ${n}]`, {
      hint: 'view the file for its line numbers',
      data: { path: a.path, lines: n },
    });
  }
  const expect = expected(seenOf(conn), rel, a.path, file.oid);
  const next = insertAfterLine(text, after, inserted!);
  const r = await commit(conn, a, `insert after line ${after} of ${rel}`, { operation: 'write', path: rel, content: next, expect });
  if (!r.success) return editFailure(r, a);
  const oid = await remember(conn, rel, next);
  const added = linesOf(inserted!).length || 1;
  const shown = snippet(next, after + 1 - SNIPPET_LINES, after + added + SNIPPET_LINES);
  return ok(
    `The file ${a.path} has been edited (batch ${r.batch} on draft ${r.draft}). Here's the result of running \`cat -n\` on a snippet of the edited file:\n${shown}\nReview the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.`,
    written(a, r, oid ? { oid } : {}),
  );
}

async function view(conn: ToolConnection, a: Args, rel: string): Promise<ToolOutcome> {
  let isDir = rel === '';
  if (!isDir) {
    try {
      const { file, text } = await readText(conn, rel, a.path);
      return viewFile(seenOf(conn), rel, a, file, text);
    } catch (e) {
      if (!(e instanceof ShadowError && e.code === 'IS_A_DIRECTORY')) throw e;
      isDir = true;
    }
  }
  if (a.view_range !== undefined) {
    throw new ShadowError('INVALID_ARGUMENT', 'the `view_range` parameter is not allowed when `path` points to a directory', { hint: 'view a file of it instead' });
  }
  return viewDirectory(conn, rel, a);
}

const COMMANDS: Record<Args['command'], (conn: ToolConnection, a: Args, rel: string) => Promise<ToolOutcome>> = {
  view,
  create,
  str_replace: strReplace,
  insert,
  undo_edit: async (conn, a, rel) => {
    const r = await undoEdit(conn, rel, a.path);
    if (r.exists) await remember(conn, rel, undefined);
    else seenOf(conn).delete(rel);
    return r.outcome;
  },
};

export const EDITOR_HANDLERS: Record<string, Handler> = {
  str_replace_based_edit_tool: async (conn, args) => {
    const a = args as unknown as Args;
    return COMMANDS[a.command](conn, a, repoPathOf(conn, a.path));
  },
};
