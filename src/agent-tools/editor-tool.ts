import { ShadowError } from '../errors.js';
import { looksBinary } from '../core/content.js';
import type { BatchResult, FileOperation, ViewFile } from '../index.js';
import { viewDirectory, viewFile, type Seen } from './editor-view.js';
import { undoEdit } from './editor-undo.js';
import { catN, findOnce, insertAfterLine, linesOf, newlines, pyList, shownPath, SNIPPET_LINES } from './editor-text.js';
import { alreadyExists, doesNotExist, editFailure, isADirectory, missingParameter } from './editor-errors.js';
import { ok, type Handler, type ToolConnection, type ToolOutcome } from './tool-outcome.js';
import { repoPathOf } from './view-paths.js';

/**
 * Anthropic's text editor tool on a draft, answering as the reference
 * implementation does (computer-use-demo/computer_use_demo/tools/edit.py:
 * its `cat -n` views and snippets, its texts for success and for every
 * refusal, shadow's code first) except where docs/agents.md says why not.
 * Every write is one batch (one commit) on the connection's draft, sent
 * with `expect`: the blob the agent last saw of the file (by view, or by its
 * own last write), else the one this call read. So a file another agent or
 * the person changed after the agent looked at it is never overwritten: the
 * edit fails with EXPECT_FAILED and the agent views it again, as an editor
 * reloads a file changed on disk.
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
  if (a[field] === undefined) throw missingParameter(field, a.command);
}

/** The path's file, checked as the reference checks a path first: it exists, and only view takes a directory. */
async function existing(conn: ToolConnection, rel: string, a: Args): Promise<ViewFile> {
  try {
    return await conn.sh.cat(rel, { draft: conn.draft });
  } catch (e) {
    if (e instanceof ShadowError && e.code === 'NOT_FOUND') throw doesNotExist(a.path);
    if (e instanceof ShadowError && e.code === 'IS_A_DIRECTORY' && a.command !== 'view') throw isADirectory(a.path);
    throw e;
  }
}

/** A text file of the view: refused when it is a symlink or binary (the editor edits text). */
async function readText(conn: ToolConnection, rel: string, a: Args): Promise<{ file: ViewFile; text: string }> {
  const file = await existing(conn, rel, a);
  const shown = a.path;
  if (file.type === 'symlink')
    throw new ShadowError('NOT_A_FILE', `${shown} is a symlink (to ${file.content.toString()})`, {
      hint: 'edit the file it points to',
      data: { path: shown },
    });
  if (looksBinary(file.content))
    throw new ShadowError('INVALID_CONTENT', `${shown} is a binary file; the editor edits text`, {
      data: { path: shown },
    });
  return { file, text: file.content.toString('utf8') };
}

/** The blob the agent's edit must find: what it saw last, else what this call read. */
function expected(seen: Seen, rel: string, shown: string, read: string): string {
  const last = seen.get(rel);
  if (last === null) {
    throw new ShadowError(
      'EXPECT_FAILED',
      `${shown} changed while you were editing it (another agent or the person wrote it); nothing was written`,
      {
        hint: 'view the file again, then redo the edit on what it holds now',
        data: { path: shown },
      },
    );
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

async function commit(conn: ToolConnection, intent: string, op: FileOperation): Promise<BatchResult> {
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

/** create makes a new file only: a path that exists, file or directory, is refused, as at home. */
async function create(conn: ToolConnection, a: Args, rel: string): Promise<ToolOutcome> {
  let exists = true;
  try {
    await conn.sh.cat(rel, { draft: conn.draft });
  } catch (e) {
    if (!(e instanceof ShadowError && (e.code === 'NOT_FOUND' || e.code === 'IS_A_DIRECTORY'))) throw e;
    exists = e.code === 'IS_A_DIRECTORY';
  }
  if (exists) throw alreadyExists(a.path);
  needs(a, 'file_text');
  const text = a.file_text!;
  // A create of an empty file has no hunk to carry: a plain write (the one create that could land on a file made meanwhile).
  const op: FileOperation =
    text === ''
      ? { operation: 'write', path: rel, content: '' }
      : { operation: 'patch', path: rel, diff: creatingDiff(rel, text) };
  const r = await commit(conn, `create ${rel}`, op);
  if (!r.success) return editFailure(r, a, '');
  const oid = await remember(conn, rel, text);
  return ok(`File created successfully at: ${a.path}`, written(a, r, oid ? { oid } : {}));
}

async function strReplace(conn: ToolConnection, a: Args, rel: string): Promise<ToolOutcome> {
  const { file, text } = await readText(conn, rel, a);
  needs(a, 'old_str');
  const old = a.old_str!;
  const replacement = a.new_str ?? '';
  if (old === '')
    throw new ShadowError('INVALID_ARGUMENT', 'old_str is empty: there is nothing to find', {
      hint: 'give the exact text to replace; to add lines use insert',
    });
  const expect = expected(seenOf(conn), rel, a.path, file.oid);
  const found = findOnce(text, old);
  const put = found.at !== -1 && found.old !== old ? replacement.replace(/\r?\n/g, '\r\n') : replacement;
  const next = found.at === -1 ? text : text.slice(0, found.at) + put + text.slice(found.at + found.old.length);
  // Once as the reference counts (str.count, no overlaps) but overlapping itself (`}\n}` in `}\n}\n}`): the edit
  // op counts every start and would refuse, so the replaced text is written whole, on the content read (expect).
  const op: FileOperation = found.overlaps
    ? { operation: 'write', path: rel, content: next, expect }
    : { operation: 'edit', path: rel, old_content: old, content: replacement, expect };
  const r = await commit(conn, `str_replace in ${rel}`, op);
  if (!r.success) return editFailure(r, a, text);
  // The edit landed on the content read (expect held), so the result is that content with the one match replaced.
  const oid = await remember(conn, rel, next);
  // The reference's snippet: from SNIPPET_LINES before the line the match began on to SNIPPET_LINES after the replacement's end.
  const line = newlines(text, Math.max(found.at, 0));
  const start = Math.max(0, line - SNIPPET_LINES);
  const shown = linesOf(next)
    .slice(start, line + SNIPPET_LINES + newlines(put) + 1)
    .join('\n');
  return ok(
    `The file ${a.path} has been edited. ${catN(shown, `a snippet of ${a.path}`, start + 1)}Review the changes and make sure they are as expected. Edit the file again if necessary.`,
    written(a, r, oid ? { oid } : {}),
  );
}

async function insert(
  conn: ToolConnection,
  a: Args,
  rel: string,
  textField: 'insert_text' | 'new_str',
): Promise<ToolOutcome> {
  const { file, text } = await readText(conn, rel, a);
  needs(a, 'insert_line');
  if (a.insert_text !== undefined && a.new_str !== undefined && a.insert_text !== a.new_str) {
    throw new ShadowError('INVALID_ARGUMENT', 'insert_text and new_str differ: send the text to insert once', {
      hint: `send ${textField} only`,
    });
  }
  const inserted = a.insert_text ?? a.new_str;
  if (inserted === undefined) needs(a, textField);
  const n = linesOf(text).length;
  const after = a.insert_line!;
  if (after > n) {
    throw new ShadowError(
      'INVALID_ARGUMENT',
      `Invalid \`insert_line\` parameter: ${after}. It should be within the range of lines of the file: ${pyList([0, n])}`,
      {
        hint: 'view the file for its line numbers',
        data: { path: a.path, lines: n },
      },
    );
  }
  const expect = expected(seenOf(conn), rel, a.path, file.oid);
  const next = insertAfterLine(text, after, inserted!);
  const r = await commit(conn, `insert after line ${after} of ${rel}`, {
    operation: 'write',
    path: rel,
    content: next,
    expect,
  });
  if (!r.success) return editFailure(r, a, text);
  const oid = await remember(conn, rel, next);
  const start = Math.max(0, after - SNIPPET_LINES);
  const shown = linesOf(next)
    .slice(start, after + linesOf(inserted!).length + SNIPPET_LINES)
    .join('\n');
  return ok(
    `The file ${a.path} has been edited. ${catN(shown, 'a snippet of the edited file', start + 1)}Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.`,
    written(a, r, oid ? { oid } : {}),
  );
}

async function view(conn: ToolConnection, a: Args, rel: string): Promise<ToolOutcome> {
  let isDir = rel === '';
  if (!isDir) {
    try {
      const { file, text } = await readText(conn, rel, a);
      return viewFile(seenOf(conn), rel, a, file, text);
    } catch (e) {
      if (!(e instanceof ShadowError && e.code === 'IS_A_DIRECTORY')) throw e;
      isDir = true;
    }
  }
  if (a.view_range !== undefined && a.view_range.length > 0) {
    throw new ShadowError(
      'INVALID_ARGUMENT',
      'The `view_range` parameter is not allowed when `path` points to a directory.',
      { hint: 'view a file of it instead' },
    );
  }
  return viewDirectory(conn, rel, a);
}

async function undo(conn: ToolConnection, a: Args, rel: string): Promise<ToolOutcome> {
  await existing(conn, rel, a);
  const r = await undoEdit(conn, rel, a.path);
  if (r.exists) await remember(conn, rel, undefined);
  else seenOf(conn).delete(rel);
  return r.outcome;
}

type Command = (conn: ToolConnection, a: Args, rel: string) => Promise<ToolOutcome>;

/** Each name's commands (the schema and the definition's check have refused any other): insert's text named as that version names it. */
const commandsOf = (textField: 'insert_text' | 'new_str'): Record<Args['command'], Command> => ({
  view,
  create,
  str_replace: strReplace,
  insert: (conn, a, rel) => insert(conn, a, rel, textField),
  undo_edit: undo,
});

const handler =
  (commands: Record<Args['command'], Command>): Handler =>
  async (conn, args) => {
    const given = args as unknown as Args;
    // Every answer names the path as the reference's pathlib prints it.
    const a = { ...given, path: shownPath(given.path) };
    return commands[a.command](conn, a, repoPathOf(conn, given.path));
  };

export const EDITOR_HANDLERS: Record<string, Handler> = {
  str_replace_based_edit_tool: handler(commandsOf('insert_text')),
  str_replace_editor: handler(commandsOf('new_str')),
};
