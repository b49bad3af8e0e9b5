import { ShadowError } from '../../errors.js';
import type { Oid } from '../../git/format/git-objects.js';
import { parseTrailers } from '../commit-message.js';
import { requireDraft } from '../drafts.js';
import { resolveTarget } from './checkpoints.js';
import type { Workspace } from '../workspace.js';

/**
 * `shadow blame <path>`: who last wrote each line of a file of a draft (or
 * of any point of it). The draft's commits are git commits, so git's own
 * blame of the draft's tip is exact, lines the draft never touched falling
 * through to the base's history as `git blame` reads it; shadow runs it
 * (`git blame --porcelain`, byte for byte what the porcelain option prints)
 * and adds what its trailers say of each draft commit: the batch, the actor,
 * a person or an AI, the model. Cost follows the path's history, as git's.
 */

export interface BlameLine {
  /** 1-based, in the file as the draft holds it. */
  line: number;
  content: string;
  commit: Oid;
  /** The line in that commit's version of the file. */
  original_line: number;
  /** A batch of this draft (or of the draft the commit was made for), or null for the base's history. */
  batch: number | null;
  /** A capture records the person's own working-tree change. */
  capture: boolean;
  actor: string;
  actor_type: string | null;
  model: string | null;
  time: string;
  summary: string;
}

export interface BlameResult {
  draft: string;
  path: string;
  commit: Oid;
  lines: BlameLine[];
  /** git's own output, for `--porcelain`. */
  porcelain: string;
}

interface CommitInfo {
  author: string;
  time: number;
  summary: string;
}

/** Parse `git blame --porcelain`: each line's commit, line numbers and content, and each commit's header. */
export function parsePorcelain(text: string): {
  lines: Array<{ commit: Oid; original: number; final: number; content: string }>;
  commits: Map<Oid, CommitInfo>;
} {
  const lines: Array<{ commit: Oid; original: number; final: number; content: string }> = [];
  const commits = new Map<Oid, CommitInfo>();
  let current: { commit: Oid; original: number; final: number } | undefined;
  for (const row of text.split('\n')) {
    if (row.startsWith('\t')) {
      lines.push({ ...current!, content: row.slice(1) });
      continue;
    }
    const head = /^([0-9a-f]{40,64}) (\d+) (\d+)/.exec(row);
    if (head) {
      current = { commit: head[1]!, original: Number(head[2]), final: Number(head[3]) };
      if (!commits.has(current.commit)) commits.set(current.commit, { author: '', time: 0, summary: '' });
      continue;
    }
    const info = current && commits.get(current.commit)!;
    if (!info) continue;
    if (row.startsWith('author ')) info.author = row.slice(7);
    else if (row.startsWith('author-time ')) info.time = Number(row.slice(12));
    else if (row.startsWith('summary ')) info.summary = row.slice(8);
  }
  return { lines, commits };
}

/** Blame `path` in draft `draftName` at its tip, or at `at` (a checkpoint, batch, ~N or commit of it). */
export function blamePath(ws: Workspace, draftName: string, path: string, at?: string): BlameResult {
  const draft = requireDraft(ws, draftName);
  const commit = at === undefined ? draft.tip : resolveTarget(ws, draft, at, 'blame at').commit;
  const runner = ws.ctx.git;
  if (!runner)
    throw new ShadowError('FILTER_FAILED', 'blame needs git, and git cannot be run here', {
      hint: 'run shadow where git is on the PATH',
    });
  const cwd = ws.repo.layout.worktree ?? ws.repo.layout.gitdir;
  const r = runner.run(['blame', '--porcelain', commit, '--', path], { cwd, env: ws.ctx.env });
  if (r.status !== 0) {
    const why = r.stderr.trim().split('\n').pop() ?? '';
    throw new ShadowError(
      'NOT_FOUND',
      `${path} is not a file of draft "${draftName}" at ${commit.slice(0, 12)}: ${why}`,
      {
        hint: "list the draft's files with `shadow ls`; paths are relative to the repository root",
        data: { path, commit },
      },
    );
  }
  const porcelain = r.stdout.toString('utf8');
  const parsed = parsePorcelain(porcelain);
  const trailers = new Map<Oid, ReturnType<typeof parseTrailers>>();
  for (const oid of parsed.commits.keys()) trailers.set(oid, parseTrailers(ws.repo.objects.readCommit(oid).message));
  const lines = parsed.lines.map((l): BlameLine => {
    const info = parsed.commits.get(l.commit)!;
    const t = trailers.get(l.commit)!;
    const ours = t.draft !== undefined;
    return {
      line: l.final,
      content: l.content,
      commit: l.commit,
      original_line: l.original,
      batch: ours ? (t.batch ?? t.capture ?? null) : null,
      capture: ours && t.capture !== undefined,
      actor: (ours ? t.actor : undefined) ?? info.author,
      actor_type: t.actorType ?? (ours && t.capture !== undefined ? 'human' : null),
      model: t.model ?? null,
      time: new Date(info.time * 1000).toISOString(),
      summary: info.summary,
    };
  });
  return { draft: draftName, path, commit, lines, porcelain };
}
