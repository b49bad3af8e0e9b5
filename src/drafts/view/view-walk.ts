import { ShadowError } from '../../errors.js';
import { looksBinary } from '../../core/content.js';
import { nestedRepetitionAt } from '../../core/regex-risk.js';
import { loadDraft, standsOn } from '../drafts.js';
import { listDirOf, readViewFile, viewSubmodules, type ViewEntry } from './view.js';
import type { Workspace } from '../workspace.js';

/**
 * Walking the draft's view: every file under a directory, depth first in
 * name order, skipping what git ignores (unless the draft itself wrote it),
 * and a bounded text search over those files.
 */

export interface WalkedFile {
  path: string;
  type: ViewEntry['type'];
  source: ViewEntry['source'];
  /** A submodule's commit (see ViewEntry); a walk lists a submodule and does not enter it. */
  commit?: ViewEntry['commit'];
}

export interface WalkOptions {
  /** Include paths .gitignore ignores (default false). */
  ignored?: boolean;
  /** Stop after this many files (the walk says it was cut). */
  limit?: number;
}

/** Files (and symlinks, submodules) of the view under `dir`, in path order. */
export function walkView(
  ws: Workspace,
  draftName: string,
  dir: string,
  options: WalkOptions = {},
): { files: WalkedFile[]; truncated: boolean } {
  const draft = loadDraft(ws, draftName);
  const ignore = options.ignored ? undefined : ws.ignoreRules();
  const limit = options.limit ?? Infinity;
  const files: WalkedFile[] = [];
  const submodules = viewSubmodules(ws, draft, (draft && standsOn(draft)) ?? ws.repo.refs.resolve('HEAD'));
  const visit = (d: string): boolean => {
    for (const e of listDirOf(ws, draft, draftName, d, submodules)) {
      const path = d === '' ? e.name : `${d}/${e.name}`;
      // What the draft wrote is shown whatever .gitignore says; the rest as git would (a nested repository git does not track is a directory to it).
      const asDir = e.type === 'dir' || (e.type === 'submodule' && e.commit === null);
      if (e.source === 'lower' && ignore?.ignores(asDir ? `${path}/` : path)) continue;
      if (e.type === 'dir') {
        if (!visit(path)) return false;
        continue;
      }
      if (files.length >= limit) return false;
      files.push(
        e.type === 'submodule'
          ? { path, type: e.type, source: e.source, commit: e.commit }
          : { path, type: e.type, source: e.source },
      );
    }
    return true;
  };
  const complete = visit(dir);
  return { files, truncated: !complete };
}

export interface SearchOptions {
  /** Treat the pattern as a regular expression (JavaScript syntax). */
  regex?: boolean;
  caseSensitive?: boolean;
  /** At most this many matching lines (default 200). */
  maxResults?: number;
  /** Files larger than this are skipped (default 1 MiB). */
  maxFileBytes?: number;
  /** At most this many files are read (default 20,000). */
  maxFiles?: number;
}

export interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

export interface SearchResult {
  pattern: string;
  matches: SearchMatch[];
  files_searched: number;
  /** True when a bound cut the search short (results, files). */
  truncated: boolean;
  skipped: { binary: number; large: number };
}

const MAX_LINE_SHOWN = 400;

/** Lines of the view's text files under `dir` that hold `pattern`. */
export function searchView(
  ws: Workspace,
  draftName: string,
  pattern: string,
  dir: string,
  options: SearchOptions = {},
): SearchResult {
  if (pattern === '')
    throw new ShadowError('INVALID_ARGUMENT', 'the search pattern is empty', {
      hint: 'give a string or a regular expression to look for',
    });
  const nested = options.regex ? nestedRepetitionAt(pattern) : undefined;
  if (nested !== undefined) {
    throw new ShadowError(
      'INVALID_ARGUMENT',
      `the pattern repeats a group that repeats (at character ${nested + 1}: ${pattern.slice(0, nested + 1)}), which can take exponential time`,
      {
        hint: 'rewrite it without a repetition inside a repeated group, e.g. (a+)+ as a+, or search for a plain substring',
        data: { pattern, at: nested },
      },
    );
  }
  let re: RegExp;
  try {
    const source = options.regex ? pattern : pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    re = new RegExp(source, options.caseSensitive === false ? 'i' : '');
  } catch (e) {
    throw new ShadowError(
      'INVALID_ARGUMENT',
      `the pattern is not a valid regular expression: ${(e as Error).message}`,
      {
        hint: 'escape special characters, or search without regex for a plain substring',
        data: { pattern },
      },
    );
  }
  const maxResults = options.maxResults ?? 200;
  const maxBytes = options.maxFileBytes ?? 1 << 20;
  const walk = walkView(ws, draftName, dir, { limit: options.maxFiles ?? 20_000 });
  const out: SearchResult = {
    pattern,
    matches: [],
    files_searched: 0,
    truncated: walk.truncated,
    skipped: { binary: 0, large: 0 },
  };
  for (const f of walk.files) {
    if (f.type !== 'file') continue;
    const content = readViewFile(ws, draftName, f.path).content;
    if (content.length > maxBytes) {
      out.skipped.large++;
      continue;
    }
    if (looksBinary(content)) {
      out.skipped.binary++;
      continue;
    }
    out.files_searched++;
    const lines = content.toString('utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!re.test(lines[i]!)) continue;
      if (out.matches.length >= maxResults) {
        out.truncated = true;
        return out;
      }
      const text = lines[i]!.replace(/\r$/, '');
      out.matches.push({
        path: f.path,
        line: i + 1,
        text: text.length > MAX_LINE_SHOWN ? `${text.slice(0, MAX_LINE_SHOWN)}…` : text,
      });
    }
  }
  return out;
}
