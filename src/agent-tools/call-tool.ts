import { isShadowError, ShadowError } from '../errors.js';
import { looksBinary } from '../core/content.js';
import { refComponentProblem } from '../core/ref-component.js';
import { parseJsonText, validate } from '../drafts/batch/batch-schema.js';
import type { BatchResult } from '../index.js';
import type { Profile, ToolDefinition } from './definitions.js';
import { toolsFor } from './profiles.js';
import { EDITOR_HANDLERS } from './editor-tool.js';
import { FILESYSTEM_HANDLERS } from './filesystem-tools.js';
import {
  batchOutcome,
  cut,
  failed,
  MAX_LINES,
  ok,
  shadowFailure,
  type Handler,
  type ToolConnection,
  type ToolOutcome,
} from './tool-outcome.js';

export { errorText, type ToolConnection, type ToolOutcome } from './tool-outcome.js';

/**
 * Carrying out one tool call for an agent: the arguments checked against the
 * tool's schema (the library's own codes for a batch), the call made on the
 * connection's draft as its actor, and the outcome as text a model can act on
 * (and as structured content). Errors never carry a stack: a ShadowError's
 * code, message, hint and the parts of its data that help (closest lines,
 * conflicting batch); anything else is an internal error named as such.
 */

/** The draft of an actor under --draft-per-actor: `agent-<actor>`, made safe as a ref name. */
export function draftForActor(actor: string): string {
  const safe = actor
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .replace(/\.\.+/g, '.')
    .slice(0, 60);
  const name = `agent-${safe || 'anonymous'}`;
  return refComponentProblem(name) === undefined ? name : 'agent-anonymous';
}

function find(name: string, conn: ToolConnection): ToolDefinition {
  const tools = toolsFor(conn.profiles ?? ['shadow'], { allowApply: conn.allowApply });
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    const gated = name === 'apply' ? ' (apply is for the person: they review the draft and run `shadow apply`)' : '';
    throw new ShadowError('INVALID_ARGUMENT', `there is no tool "${name}"${gated}`, {
      hint: `the tools are: ${tools.map((t) => t.name).join(', ')}`,
    });
  }
  return tool;
}

/** A batch's operations sent as a JSON string (some models do): parsed, with a precise error when cut off. */
function unstring(args: unknown): unknown {
  if (args && typeof args === 'object' && typeof (args as { operations?: unknown }).operations === 'string') {
    return {
      ...(args as object),
      operations: parseJsonText((args as { operations: string }).operations, 'operations'),
    };
  }
  return args;
}

/** Numbered lines of a text file, `cat -n` style, with a header saying which part this is; and the same as data. */
function numbered(
  f: { path: string; source: string; oid: string; size: number },
  text: string,
  start?: number,
  end?: number,
): ToolOutcome {
  const { path } = f;
  const from = f.source === 'draft' ? 'draft' : 'working tree';
  const base = { path, source: from, type: 'text', oid: f.oid, size: f.size };
  if (start !== undefined && end !== undefined && end < start) {
    throw new ShadowError('INVALID_ARGUMENT', `end_line ${end} is before start_line ${start}`, {
      hint: 'give end_line at or after start_line, or leave it out to read to the end',
      data: { path },
    });
  }
  if (text === '')
    return ok(`${path} (from the ${from}): an empty file (0 lines)`, { ...base, content: '', total_lines: 0 });
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const first = Math.max(1, start ?? 1);
  if (first > lines.length && lines.length > 0) {
    throw new ShadowError(
      'INVALID_ARGUMENT',
      `start_line ${first} is past the end of ${path} (${lines.length} lines)`,
      { data: { path, lines: lines.length } },
    );
  }
  const last = Math.min(lines.length, end ?? lines.length, first + MAX_LINES - 1);
  const part = lines.slice(first - 1, last);
  const shown = part.map((l, i) => `${String(first + i).padStart(6)}\t${l}`);
  const more = last < lines.length ? `; more with start_line ${last + 1}` : '';
  const out = cut(
    `${path} (from the ${from}): lines ${first}-${last} of ${lines.length}${more}\n${shown.join('\n')}`,
    'read a narrower range with start_line and end_line',
  );
  return ok(out, { ...base, content: part.join('\n'), start_line: first, end_line: last, total_lines: lines.length });
}

/** A pathspec as a shell word: quoted unless plain, so that a shell neither splits it nor expands a glob against the working tree. */
function shellWord(s: string): string {
  return /^[\w./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * An apply_patch outcome as Codex words it (a model trained on it reads
 * "Success. Updated the following files:" and the A/M/D lines, added files
 * first, then modified, then deleted, as Codex prints them), then the notes
 * on how changes were placed and where it landed; a failure as any batch's.
 */
function patchOutcome(r: BatchResult): ToolOutcome {
  if (!r.success) return batchOutcome(r);
  const op = r.results[0];
  if (r.batch === null) {
    const why =
      op?.status === 'already_applied'
        ? 'it is the last batch of the draft already (a retry)'
        : 'the files already read as it makes them';
    return ok(`Success. Nothing to change: ${why}. Draft ${r.draft} at ${r.commit}.`);
  }
  const all = op?.files ?? [];
  const section = (f: (typeof all)[number]): string =>
    f.section ?? (f.status === 'created' ? 'add' : f.status === 'deleted' ? 'delete' : 'update');
  const files = [
    ...all.filter((f) => section(f) === 'add').map((f) => `A ${f.path}`),
    ...all.filter((f) => section(f) === 'update').map((f) => `M ${f.to ?? f.path}`),
    ...all.filter((f) => section(f) === 'delete').map((f) => `D ${f.path}`),
  ];
  const notes = all.flatMap((f) => (f.notes ?? []).map((n) => `note: ${f.path}: ${n}`));
  const tail = [...notes, `(batch ${r.batch} on draft ${r.draft}, commit ${r.commit})`];
  return ok(`Success. Updated the following files:\n${files.join('\n')}\n${tail.join('\n')}`);
}

/** Submodules are listed, never entered: say so, so that an agent does not try to write there. */
function submoduleNote(e: { type: string; commit?: string | null }): string {
  if (e.type !== 'submodule') return '';
  return e.commit ? ` (submodule at ${e.commit.slice(0, 12)}; not writable)` : ' (nested git repository; not writable)';
}

const HANDLERS: Record<string, Handler> = {
  batch_write: async (c, a) => batchOutcome(await c.sh.batch(a, { draft: c.draft, actor: c.actor })),
  apply_patch: async (c, a) =>
    patchOutcome(
      await c.sh.batch(
        { operations: [{ operation: 'apply_patch', patch: String(a.input) }] },
        { draft: c.draft, actor: c.actor },
      ),
    ),
  read_file: async (c, a) => {
    const f = await c.sh.cat(String(a.path), { draft: c.draft });
    const about = {
      path: f.path,
      source: f.source === 'draft' ? 'draft' : 'working tree',
      oid: f.oid,
      size: f.content.length,
    };
    if (f.type === 'symlink')
      return ok(`${f.path} is a symlink to ${f.content.toString()}`, {
        ...about,
        type: 'symlink',
        target: f.content.toString(),
      });
    if (looksBinary(f.content))
      return ok(`${f.path} is a binary file of ${f.content.length} bytes (blob ${f.oid}); it is not shown`, {
        ...about,
        type: 'binary',
      });
    return numbered(
      { ...f, size: f.content.length },
      f.content.toString('utf8'),
      a.start_line as number | undefined,
      a.end_line as number | undefined,
    );
  },
  list_files: async (c, a) => {
    const dir = (a.path as string | undefined) ?? '';
    if (a.recursive === true) {
      const r = await c.sh.files(dir, { draft: c.draft, limit: 5000 });
      const list = r.files
        .map(
          (f) =>
            `${f.path}${f.type === 'symlink' ? ' -> (symlink)' : ''}${submoduleNote(f)}${f.source === 'draft' ? '  *' : ''}`,
        )
        .join('\n');
      return ok(
        `${r.files.length} files${r.truncated ? ' (cut at 5,000; list a subdirectory)' : ''}; * marks what the draft changed\n${list}`,
        { path: dir, files: r.files, truncated: r.truncated },
      );
    }
    const entries = await c.sh.ls(dir, { draft: c.draft });
    return ok(
      entries
        .map((e) => `${e.name}${e.type === 'dir' ? '/' : ''}${submoduleNote(e)}${e.source === 'draft' ? '  *' : ''}`)
        .join('\n') || '(empty)',
      { path: dir, entries },
    );
  },
  search: async (c, a) => {
    const r = await c.sh.search(String(a.pattern), {
      draft: c.draft,
      dir: a.path as string | undefined,
      regex: a.regex as boolean | undefined,
      caseSensitive: a.case_sensitive as boolean | undefined,
      maxResults: a.max_results as number | undefined,
    });
    const lines = r.matches.map((m) => `${m.path}:${m.line}: ${m.text}`);
    const note = `${r.matches.length} matching line${r.matches.length === 1 ? '' : 's'} in ${r.files_searched} files searched${r.truncated ? ' (cut short: narrow the path or the pattern)' : ''}`;
    return ok(`${note}\n${lines.join('\n')}`, {
      matches: r.matches,
      files_searched: r.files_searched,
      truncated: r.truncated,
    });
  },
  begin_write: async (c, a) => {
    const r = await c.sh.sessions.begin(
      {
        intent: (a.intent as string | undefined) ?? '',
        target_file: String(a.target_file),
        operation: a.operation as 'create' | 'overwrite' | 'append',
        draft: c.draft,
      },
      { actor: c.actor },
    );
    return ok({
      session_id: r.session_id,
      stage: r.stage,
      instructions: `Send the content of ${String(a.target_file)} with append_content, in pieces of up to about 100 KB, exactly as the file should read (no JSON, no code fence around it); then call finalize_write. (A line that is exactly DONE also ends it.)`,
    });
  },
  append_content: async (c, a) => {
    const id = String(a.session_id);
    const done = c.sh.sessions.push(id, Buffer.from(String(a.content), 'utf8'));
    if (done) return batchOutcome(await c.sh.sessions.finalize(id));
    c.sh.sessions.save(id);
    const s = c.sh.sessions.status(id);
    return ok({
      session_id: id,
      stage: s.stage,
      bytes: s.bytes,
      lines: s.lines,
      next: 'append_content with the next piece, or finalize_write',
    });
  },
  finalize_write: async (c, a) => {
    const content = typeof a.content === 'string' ? Buffer.from(a.content, 'utf8') : undefined;
    return batchOutcome(await c.sh.sessions.finalize(String(a.session_id), content));
  },
  diff: async (c, a) => {
    const r = await c.sh.diff({
      draft: c.draft,
      range: a.range as string | undefined,
      content: a.stat === true ? 'stat' : 'patch',
      renames: a.renames === true,
      paths: a.paths as string[] | undefined,
    });
    const data = { draft: r.draft, files: r.files.map(({ patch: _patch, ...f }) => f) };
    if (r.files.length === 0) return ok('no changes', data);
    if (a.stat === true)
      return ok(
        r.files
          .map(
            (f) =>
              `${f.status.padEnd(9)} ${f.from ? `${f.from} -> ` : ''}${f.path}  +${f.insertions ?? 0} -${f.deletions ?? 0}`,
          )
          .join('\n'),
        data,
      );
    return ok(cut(r.files.map((f) => f.patch ?? '').join(''), 'use stat: true, then diff a narrower range'), data);
  },
  log: async (c, a) => {
    const batches = await c.sh.log({ draft: c.draft, limit: (a.limit as number | undefined) ?? 20 });
    return ok(batches, { batches });
  },
  status: async (c) => ok(await c.sh.status({ draft: c.draft })),
  checkpoint: async (c, a) =>
    ok(
      await c.sh.checkpoint(String(a.name), {
        draft: c.draft,
        message: a.message as string | undefined,
        actor: c.actor,
      }),
    ),
  rollback: async (c, a) => ok(await c.sh.rollback(String(a.target), { draft: c.draft, actor: c.actor })),
  rebase: async (c, a) => ok(await c.sh.rebase({ draft: c.draft, onto: a.onto as string | undefined, actor: c.actor })),
  unapply: async (c, a) =>
    ok(
      await c.sh.unapply({
        draft: c.draft,
        actor: c.actor,
        dryRun: a.dry_run === true,
        conflict: a.conflict as 'refuse' | 'markers' | undefined,
      }),
    ),
  revert: async (c, a) => ok(await c.sh.revert(a.batches as string[], { draft: c.draft, actor: c.actor })),
  resolve: async (c, a) => batchOutcome(await c.sh.resolve(a.paths as string[], { draft: c.draft, actor: c.actor })),
  propose: async (c, a) =>
    ok(await c.sh.propose({ draft: c.draft, message: a.message as string | undefined, actor: c.actor })),
  apply_status: async (c, a) => {
    const paths = a.paths as string[] | undefined;
    const r = await c.sh.apply({ draft: c.draft, dryRun: true, actor: c.actor, paths });
    // The command the person would run for this subset: the CLI reads pathspecs from the current directory, so from the root they are these.
    const command = paths
      ? `shadow apply ${paths.map(shellWord).join(' ')} (from the repository root)`
      : 'shadow apply';
    return ok({
      draft: r.draft,
      review_fingerprint: r.review_fingerprint,
      can_apply:
        r.conflicts.length === 0 &&
        r.unresolved.length === 0 &&
        r.pendingApprovals.length === 0 &&
        r.unwritable.length === 0,
      paths: r.paths.map((p) => `${p.action} ${p.path}${p.merge && p.merge !== 'clean' ? ` (${p.merge})` : ''}`),
      conflicts: r.conflicts,
      ...(r.unresolved.length > 0 ? { unresolved_conflicts: r.unresolved } : {}),
      pending_approvals: r.pendingApprovals.map((p) => ({ id: p.id, kind: p.kind, reason: p.reason, paths: p.paths })),
      findings: r.findings,
      note: `Only the person applies: they review the draft (shadow review) and run ${command}, approving what the policy asks for.`,
    });
  },
  apply: async (c, a) => {
    const r = await c.sh.apply({
      draft: c.draft,
      actor: c.actor,
      conflict: a.conflict as 'refuse' | 'markers' | undefined,
      paths: a.paths as string[] | undefined,
      expect: a.expect as string | undefined,
    });
    if (r.ok) return ok(r);
    const list = r.pendingApprovals.map((p) => `${p.id} (${p.kind}): ${p.reason}`).join('\n');
    const error = {
      code: 'APPROVALS_PENDING' as const,
      message: 'nothing was applied; the person must approve first',
      hint: 'ask them to review the draft (shadow review) and approve or deny',
      data: { pending: r.pendingApprovals.map((p) => p.id) },
    };
    return failed(
      error,
      `APPROVALS_PENDING: nothing was applied; the person must approve first:\n${list}\nhint: ask them to review the draft (shadow review) and approve or deny`,
    );
  },
};

/** The handlers of each shape of tool; a name may mean different tools in two shapes (read_file), the profile tells them apart. */
const HANDLERS_OF: Record<Profile, Record<string, Handler>> = {
  shadow: HANDLERS,
  anthropic: EDITOR_HANDLERS,
  filesystem: FILESYSTEM_HANDLERS,
};

/** Call tool `name` with `args` for a connection. Never throws for a user or model mistake. */
export async function callTool(conn: ToolConnection, name: string, args: unknown): Promise<ToolOutcome> {
  try {
    const tool = find(name, conn);
    let input = unstring(args ?? {});
    if (input !== null && typeof input === 'object' && !Array.isArray(input))
      tool.before?.(input as Record<string, unknown>);
    // A batch is checked by the library itself, so its problems carry the batch codes (INVALID_BATCH).
    if (tool.name !== 'batch_write')
      input = validate(tool.input, input, 'INVALID_ARGUMENT', `the call of ${tool.name}`);
    return await HANDLERS_OF[tool.profile ?? 'shadow'][tool.name]!(conn, input as Record<string, unknown>);
  } catch (e) {
    if (isShadowError(e)) return shadowFailure(e as ShadowError);
    const message = (e as Error).message ?? String(e);
    return failed({ code: 'INTERNAL', message }, `INTERNAL: ${message} (this is a bug in shadow, not in the call)`);
  }
}
