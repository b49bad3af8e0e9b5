import { formatSignature, type Oid } from '../git/format/git-objects.js';
import { runGit, type TraceRecord } from './trace-record.js';
import { maskSecretsIn } from '../core/secret-scan.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * Agent Trace records kept as git notes (refs/notes/agent-trace by default;
 * git config shadow.traceNotes names another ref, or `none`), so that
 * `git log --notes=agent-trace` shows them and git's notes.rewriteRef
 * carries them through `git commit --amend` and `git rebase`. The notes are
 * written by git itself (`git fast-import`, one notes commit for a publish,
 * with git's own fanout), never by hand.
 */

export const DEFAULT_NOTES_REF = 'refs/notes/agent-trace';

export interface NoteFailure {
  commit: Oid;
  /** NOTE_EXISTS: another tool's note was there (left as it is); WRITE_FAILED: git could not write the notes. */
  code: 'NOTE_EXISTS' | 'WRITE_FAILED';
  reason: string;
}

export interface NotesResult {
  ref: string;
  written: Oid[];
  failed: NoteFailure[];
  /** Whether notes.rewriteRef names the ref: set now, already there, turned off (shadow.traceNotesRewrite=false), or could not be set. */
  rewrite: 'set' | 'present' | 'off' | 'failed';
}

/** The notes ref as git expands `--ref` (a bare name lives under refs/notes/); null when turned off. */
export function notesRef(ws: Workspace, forReading = false): string | null {
  const v = ws.repo.config.get('shadow.tracenotes')?.trim();
  if (v === undefined || v === '') return DEFAULT_NOTES_REF;
  if (v.toLowerCase() === 'none') return forReading ? DEFAULT_NOTES_REF : null;
  return v.startsWith('refs/') ? v : v.startsWith('notes/') ? `refs/${v}` : `refs/notes/${v}`;
}

/** Every note of `ref`: annotated commit → note blob (`git notes list`). */
export function listNotes(ws: Workspace, ref: string): Map<Oid, Oid> {
  const r = runGit(ws, ['notes', `--ref=${ref}`, 'list']);
  const out = new Map<Oid, Oid>();
  if (r.status !== 0) return out;
  for (const row of r.stdout.toString('utf8').split('\n')) {
    const [blob, commit] = row.trim().split(' ');
    if (blob && commit) out.set(commit, blob);
  }
  return out;
}

/** A note's JSON when it is an Agent Trace record (the fields every record has), else undefined. */
export function parseRecord(text: string): TraceRecord | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = v as TraceRecord;
  if (
    typeof v !== 'object' ||
    v === null ||
    typeof r.version !== 'string' ||
    typeof r.id !== 'string' ||
    !Array.isArray(r.files)
  )
    return undefined;
  for (const f of r.files) {
    if (typeof f?.path !== 'string' || !Array.isArray(f.conversations)) return undefined;
    for (const c of f.conversations) {
      if (!Array.isArray(c?.ranges)) return undefined;
      for (const g of c.ranges)
        if (!Number.isInteger(g?.start_line) || !Number.isInteger(g?.end_line)) return undefined;
    }
  }
  return r;
}

/** Name the notes ref in notes.rewriteRef, once, so that git's amend and rebase copy the notes (unless shadow.traceNotesRewrite=false). */
function ensureRewriteRef(ws: Workspace, ref: string): NotesResult['rewrite'] {
  if (ws.repo.config.get('shadow.tracenotesrewrite')?.trim().toLowerCase() === 'false') return 'off';
  const r = runGit(ws, ['config', '--get-all', 'notes.rewriteRef']);
  const have =
    r.status === 0
      ? r.stdout
          .toString('utf8')
          .split('\n')
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
  // notes.rewriteRef takes globs (`refs/notes/*`).
  if (have.some((g) => g === ref || (g.endsWith('*') && ref.startsWith(g.slice(0, -1))))) return 'present';
  return runGit(ws, ['config', '--add', 'notes.rewriteRef', ref]).status === 0 ? 'set' : 'failed';
}

/**
 * Write `records` as notes on their commits. Never throws: a publish stands
 * whatever happens here, and what could not be written is reported. A note
 * already there is shadow's own record of the same commit (kept: a publish
 * finished twice) or another tool's (left as it is, NOTE_EXISTS).
 */
export function writeTraceNotes(ws: Workspace, records: readonly TraceRecord[]): NotesResult | undefined {
  const ref = notesRef(ws);
  if (ref === null) return undefined;
  const result: NotesResult = { ref, written: [], failed: [], rewrite: 'present' };
  try {
    result.rewrite = ensureRewriteRef(ws, ref);
    const existing = listNotes(ws, ref);
    const todo: TraceRecord[] = [];
    for (const rec of records) {
      const commit = rec.vcs!.revision;
      const blob = existing.get(commit);
      if (blob === undefined) {
        todo.push(rec);
        continue;
      }
      const old = parseRecord(ws.repo.objects.readBlob(blob).toString('utf8'));
      if (old?.tool?.name === 'shadow' && old.vcs?.revision === commit) result.written.push(commit);
      else
        result.failed.push({
          commit,
          code: 'NOTE_EXISTS',
          reason: `${commit.slice(0, 12)} already has a note in ${ref} that shadow did not write; it is left as it is`,
        });
    }
    if (todo.length === 0) return result;
    const parent = ws.repo.refs.resolve(ref);
    const parts: Buffer[] = [];
    const data = (b: Buffer): void => {
      parts.push(Buffer.from(`data ${b.length}\n`), b, Buffer.from('\n'));
    };
    parts.push(Buffer.from(`commit ${ref}\ncommitter ${formatSignature(ws.repo.committer())}\n`));
    data(Buffer.from(`Notes added by 'shadow apply'\n`));
    if (parent) parts.push(Buffer.from(`from ${parent}\n`));
    for (const rec of todo) {
      parts.push(Buffer.from(`N inline ${rec.vcs!.revision}\n`));
      // A note travels with every push, approved or not: its model ids, paths and metadata keep no secret whole.
      data(Buffer.from(`${JSON.stringify(maskSecretsIn(rec), null, 2)}\n`));
    }
    parts.push(Buffer.from('done\n'));
    const r = runGit(ws, ['fast-import', '--quiet', '--done', '--date-format=raw'], Buffer.concat(parts));
    if (r.status === 0) result.written.push(...todo.map((t) => t.vcs!.revision));
    else {
      const reason =
        r.stderr.trim().split('\n').filter(Boolean).slice(-2).join(' ') || `git fast-import exited ${r.status}`;
      for (const t of todo) result.failed.push({ commit: t.vcs!.revision, code: 'WRITE_FAILED', reason });
    }
  } catch (e) {
    const done = new Set([...result.written, ...result.failed.map((f) => f.commit)]);
    for (const rec of records)
      if (!done.has(rec.vcs!.revision))
        result.failed.push({ commit: rec.vcs!.revision, code: 'WRITE_FAILED', reason: (e as Error).message });
  }
  return result;
}
