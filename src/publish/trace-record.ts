import { createHash } from 'node:crypto';
import { ShadowError } from '../errors.js';
import type { Oid } from '../git/format/git-objects.js';
import { parsePorcelain } from '../drafts/history/blame.js';
import { parseTrailers, type ShadowTrailers } from '../drafts/commit-message.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * Agent Trace records (https://github.com/cursor/agent-trace, v0.1.0): per
 * published commit, which contributor (an AI and its model, or a person)
 * wrote which lines of its files. Built from git's own view of the commits —
 * the lines a commit adds are the lines git blame gives it — and the draft
 * commits' trailers, which say who wrote each batch.
 */

export const TRACE_SPEC_VERSION = '0.1.0';
/** shadow's version as the record's `tool.version`; test/trace.test.ts keeps it equal to package.json's. */
export const TOOL_VERSION = '0.1.0';

export type ContributorType = 'human' | 'ai' | 'mixed' | 'unknown';
export interface Contributor {
  type: ContributorType;
  model_id?: string;
}
export interface TraceRange {
  start_line: number;
  end_line: number;
  content_hash?: string;
  contributor?: Contributor;
}
export interface TraceConversation {
  url?: string;
  contributor?: Contributor;
  ranges: TraceRange[];
}
export interface TraceFile {
  path: string;
  conversations: TraceConversation[];
}
export interface TraceRecord {
  version: string;
  id: string;
  timestamp: string;
  vcs?: { type: 'git' | 'jj' | 'hg' | 'svn'; revision: string };
  tool?: { name: string; version: string };
  files: TraceFile[];
  metadata?: Record<string, unknown>;
}

/** The spec's limit on a model id; a longer one (never from a batch, which refuses it) is left out. */
const MAX_MODEL_ID = 250;

/**
 * The hash of a range's text: `sha256:` and the hex digest of its lines, each
 * ending in "\n". The spec leaves the form open (its example: `murmur3:…`);
 * the algorithm is named so that readers can tell.
 */
export function rangeHash(lines: readonly string[]): string {
  const h = createHash('sha256');
  for (const l of lines) h.update(`${l}\n`);
  return `sha256:${h.digest('hex')}`;
}

/** Who a commit's trailers say wrote it; `unknown` when they do not say (an older draft commit, an actor type shadow does not know). */
export function contributorOf(t: ShadowTrailers): Contributor {
  const type: ContributorType =
    t.actorType === 'ai' || t.actorType === 'human' ? t.actorType : t.capture !== undefined ? 'human' : 'unknown';
  const model = t.model !== undefined && t.model.length > 0 && t.model.length <= MAX_MODEL_ID ? t.model : undefined;
  return model !== undefined ? { type, model_id: model } : { type };
}

/** One attributed line of a commit's file. */
interface Line {
  line: number;
  text: string;
  who: Contributor;
}

/** Group a file's attributed lines into conversations (one per contributor) of contiguous ranges, each with its hash. */
function traceFile(path: string, lines: readonly Line[]): TraceFile {
  const byWho = new Map<string, TraceConversation>();
  let run: { who: string; range: TraceRange; texts: string[] } | undefined;
  const close = (): void => {
    if (!run) return;
    run.range.content_hash = rangeHash(run.texts);
    byWho.get(run.who)!.ranges.push(run.range);
    run = undefined;
  };
  for (const l of [...lines].sort((a, b) => a.line - b.line)) {
    const key = `${l.who.type}\0${l.who.model_id ?? ''}`;
    if (!byWho.has(key)) byWho.set(key, { contributor: l.who, ranges: [] });
    if (run && run.who === key && run.range.end_line === l.line - 1) {
      run.range.end_line = l.line;
      run.texts.push(l.text);
      continue;
    }
    close();
    run = { who: key, range: { start_line: l.line, end_line: l.line }, texts: [l.text] };
  }
  close();
  return { path, conversations: [...byWho.values()] };
}

function record(ws: Workspace, revision: Oid, files: Map<string, Line[]>, meta: Record<string, unknown>): TraceRecord {
  return {
    version: TRACE_SPEC_VERSION,
    id: ws.ctx.ids.uuid(),
    timestamp: new Date(ws.ctx.clock.now()).toISOString(),
    vcs: { type: 'git', revision },
    tool: { name: 'shadow', version: TOOL_VERSION },
    files: [...files].filter(([, lines]) => lines.length > 0).map(([path, lines]) => traceFile(path, lines)),
    metadata: { 'dev.shadow': meta },
  };
}

export function runGit(
  ws: Workspace,
  args: readonly string[],
  input?: Buffer,
): { status: number | null; stdout: Buffer; stderr: string } {
  const runner = ws.ctx.git;
  if (!runner)
    throw new ShadowError('FILTER_FAILED', 'Agent Trace records need git, and git cannot be run here', {
      hint: 'run shadow where git is on the PATH',
    });
  return runner.run(args, {
    cwd: ws.repo.layout.worktree ?? ws.repo.layout.gitdir,
    env: ws.ctx.env,
    ...(input ? { input } : {}),
  });
}

/** git's C-quoted path (`"a\tb"`), unquoted; a plain path as it is. */
function unquote(p: string): string {
  if (!p.startsWith('"')) return p;
  const bytes: number[] = [];
  const esc: Record<string, number> = { n: 10, t: 9, '"': 34, '\\': 92, a: 7, b: 8, f: 12, r: 13, v: 11 };
  for (let i = 1; i < p.length - 1; i++) {
    const c = p[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const n = p[++i]!;
    if (/[0-7]/.test(n)) {
      bytes.push(parseInt(p.slice(i, i + 3), 8));
      i += 2;
    } else bytes.push(esc[n] ?? n.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * A record for each commit of `commits` (first-parent, oldest first) made
 * by a fast-forward or a replay: the lines each commit adds, as one
 * `git log -p -U0` reads them (one process for every commit), are the lines
 * its batch's contributor wrote.
 */
export function commitRecords(ws: Workspace, from: Oid | null, to: Oid, how: string, draft: string): TraceRecord[] {
  const range = from === null ? [to] : [`${from}..${to}`];
  const r = runGit(ws, [
    '-c',
    'core.quotepath=false',
    'log',
    '--first-parent',
    '--reverse',
    '--format=%x00%H',
    '-p',
    '-U0',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--no-renames',
    '--diff-algorithm=myers',
    '--src-prefix=a/',
    '--dst-prefix=b/',
    ...range,
    '--',
  ]);
  if (r.status !== 0)
    throw new ShadowError('FILTER_FAILED', `git log of the published commits failed: ${r.stderr.trim()}`, {
      data: { from, to },
    });
  const out: TraceRecord[] = [];
  for (const chunk of r.stdout.toString('utf8').split('\0').slice(1)) {
    const nl = chunk.indexOf('\n');
    const commit = (nl === -1 ? chunk : chunk.slice(0, nl)).trim();
    const who = contributorOf(parseTrailers(ws.repo.objects.readCommit(commit).message));
    const files = new Map<string, Line[]>();
    let lines: Line[] | undefined;
    let next = 0;
    for (const row of nl === -1 ? [] : chunk.slice(nl + 1).split('\n')) {
      if (row.startsWith('+++ ')) {
        const p = row.slice(4);
        lines = p === '/dev/null' ? undefined : [];
        if (lines) files.set(unquote(p).replace(/^b\//, ''), lines);
        continue;
      }
      const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(row);
      if (hunk) {
        next = Number(hunk[1]);
        continue;
      }
      if (lines && row.startsWith('+')) lines.push({ line: next++, text: row.slice(1), who });
    }
    out.push(record(ws, commit, files, { draft, how }));
  }
  return out;
}

/**
 * The record of a squashed commit: its published files hold the draft tip's
 * content, so git blame of the tip says, line by line, which draft commit
 * (and so which contributor) wrote each line the squash adds.
 */
export function squashRecord(
  ws: Workspace,
  squash: Oid,
  tip: Oid,
  draftCommits: ReadonlySet<Oid>,
  paths: readonly string[],
  draft: string,
): TraceRecord {
  const files = new Map<string, Line[]>();
  const who = new Map<Oid, Contributor | null>();
  const contributor = (oid: Oid): Contributor | null => {
    if (!who.has(oid)) {
      const t = parseTrailers(ws.repo.objects.readCommit(oid).message);
      // A rebase commit's lines came from the branch the draft moved onto: nobody in this draft wrote them.
      who.set(oid, draftCommits.has(oid) && t.rebase === undefined ? contributorOf(t) : null);
    }
    return who.get(oid)!;
  };
  for (const path of paths) {
    const r = runGit(ws, ['blame', '--porcelain', tip, '--', path]);
    if (r.status !== 0) continue; // not a file at the tip (a deletion, a submodule)
    const lines: Line[] = [];
    for (const l of parsePorcelain(r.stdout.toString('utf8')).lines) {
      const c = contributor(l.commit);
      if (c) lines.push({ line: l.final, text: l.content, who: c });
    }
    files.set(path, lines);
  }
  return record(ws, squash, files, { draft, how: 'squash', commits: draftCommits.size });
}
