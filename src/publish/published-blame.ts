import { ShadowError } from '../errors.js';
import type { Oid } from '../git/format/git-objects.js';
import { lookupPath } from '../git/format/tree-lookup.js';
import { parsePorcelain } from '../drafts/history/blame.js';
import { parseTrailers } from '../drafts/commit-message.js';
import type { Workspace } from '../drafts/workspace.js';
import { contributorOf, rangeHash, runGit, type Contributor, type TraceRecord } from './trace-record.js';
import { listNotes, notesRef, parseRecord } from './trace-notes.js';
import { resolveCommit } from './trace-read.js';

/**
 * `shadow blame --published <path> [<commit>]`: who wrote each line of a
 * file of any commit, after the draft is gone. git blame names the commit
 * that last touched each line; that commit's Agent Trace note (or its own
 * Shadow-* trailers) says who wrote it. A commit with neither — a squash
 * merge made with git alone, a cherry-pick — is matched by content: a line
 * whose text is a line of a range some note recorded, with the range's
 * content hash still matching the noted commit's file, is that range's
 * contributor's. A line a person changed afterwards no longer matches and is
 * theirs (git's author).
 */

export type Source = 'trace' | 'trailers' | 'content-hash' | 'git';

export interface PublishedBlameLine {
  line: number;
  content: string;
  /** The commit git blame names for the line. */
  commit: Oid;
  original_line: number;
  /** git's author of that commit. */
  author: string;
  /** Who wrote the line, when a note or trailers say; null for a line only git's author is known for. */
  contributor: Contributor | null;
  source: Source;
  /** The commit whose note attributed the line (trace, content-hash). */
  noted?: Oid;
}

export interface PublishedBlame {
  commit: Oid;
  path: string;
  ref: string;
  lines: PublishedBlameLine[];
  /** Notes that are not Agent Trace records (another tool's, or corrupt): skipped. */
  skipped: Array<{ commit: Oid; reason: string }>;
}

interface Hit {
  who: Contributor;
  noted: Oid;
}

export function blamePublished(ws: Workspace, path: string, rev = 'HEAD'): PublishedBlame {
  const commit = resolveCommit(ws, rev);
  const r = runGit(ws, ['blame', '--porcelain', commit, '--', path]);
  if (r.status !== 0) {
    throw new ShadowError(
      'NOT_FOUND',
      `${path} is not a file of ${commit.slice(0, 12)}: ${r.stderr.trim().split('\n').pop() ?? ''}`,
      {
        hint: 'paths are relative to the repository root; name the commit as git does',
        data: { path, commit },
      },
    );
  }
  const parsed = parsePorcelain(r.stdout.toString('utf8'));
  const ref = notesRef(ws, true)!;
  const notes = listNotes(ws, ref);
  const skipped: PublishedBlame['skipped'] = [];
  const records = new Map<Oid, TraceRecord | null>();
  const recordOf = (oid: Oid): TraceRecord | null => {
    if (!records.has(oid)) {
      const blob = notes.get(oid);
      const rec = blob === undefined ? null : (parseRecord(ws.repo.objects.readBlob(blob).toString('utf8')) ?? null);
      if (blob !== undefined && rec === null)
        skipped.push({ commit: oid, reason: 'the note is not an Agent Trace record' });
      records.set(oid, rec);
    }
    return records.get(oid)!;
  };
  let index: { byPath: Map<string, Map<string, Hit>>; any: Map<string, Hit> } | undefined;
  const lines = parsed.lines.map((l): PublishedBlameLine => {
    const info = parsed.commits.get(l.commit)!;
    const base = {
      line: l.final,
      content: l.content,
      commit: l.commit,
      original_line: l.original,
      author: info.author,
    };
    const rec = recordOf(l.commit);
    const fromNote = rec && rangeOwner(rec, path, l.original);
    if (fromNote) return { ...base, contributor: fromNote, source: 'trace', noted: l.commit };
    const t = parseTrailers(ws.repo.objects.readCommit(l.commit).message);
    if (t.draft !== undefined && (t.actorType !== undefined || t.capture !== undefined))
      return { ...base, contributor: contributorOf(t), source: 'trailers' };
    index ??= contentIndex(ws, notes, recordOf);
    const hit = index.byPath.get(path)?.get(l.content) ?? index.any.get(l.content);
    if (hit) return { ...base, contributor: hit.who, source: 'content-hash', noted: hit.noted };
    return { ...base, contributor: null, source: 'git' };
  });
  return { commit, path, ref, lines, skipped };
}

/** The contributor of the range of `rec`'s file `path` holding `line`, if any. */
function rangeOwner(rec: TraceRecord, path: string, line: number): Contributor | undefined {
  for (const f of rec.files) {
    if (f.path !== path) continue;
    for (const c of f.conversations) {
      for (const g of c.ranges)
        if (g.start_line <= line && line <= g.end_line) return g.contributor ?? c.contributor ?? { type: 'unknown' };
    }
  }
  return undefined;
}

/**
 * Every line every note attributes, by its text: read from the noted
 * commit's file and kept only where the range's content hash still matches
 * (a note that does not describe its commit's content attributes nothing).
 * Newer records win where two recorded the same text.
 */
function contentIndex(
  ws: Workspace,
  notes: ReadonlyMap<Oid, Oid>,
  recordOf: (oid: Oid) => TraceRecord | null,
): { byPath: Map<string, Map<string, Hit>>; any: Map<string, Hit> } {
  const byPath = new Map<string, Map<string, Hit>>();
  const any = new Map<string, Hit>();
  const recs = [...notes.keys()]
    .map((oid) => ({ oid, rec: recordOf(oid) }))
    .filter((x): x is { oid: Oid; rec: TraceRecord } => x.rec !== null);
  recs.sort((a, b) => (a.rec.timestamp < b.rec.timestamp ? -1 : a.rec.timestamp > b.rec.timestamp ? 1 : 0));
  for (const { oid, rec } of recs) {
    if (!ws.repo.objects.has(oid)) continue; // the noted commit is gone (gc): its lines cannot be read back
    const tree = ws.repo.objects.readCommit(oid).tree;
    for (const f of rec.files) {
      const at = lookupPath(ws.repo.objects, tree, f.path);
      if (at.kind !== 'file') continue;
      const text = ws.repo.objects.readBlob(at.oid).toString('utf8').split('\n');
      for (const c of f.conversations) {
        for (const g of c.ranges) {
          const slice = text.slice(g.start_line - 1, g.end_line);
          if (
            slice.length !== g.end_line - g.start_line + 1 ||
            (g.content_hash !== undefined && g.content_hash !== rangeHash(slice))
          )
            continue;
          const hit: Hit = { who: g.contributor ?? c.contributor ?? { type: 'unknown' }, noted: oid };
          let m = byPath.get(f.path);
          if (!m) byPath.set(f.path, (m = new Map()));
          for (const s of slice) {
            m.set(s, hit);
            any.set(s, hit);
          }
        }
      }
    }
  }
  return { byPath, any };
}
