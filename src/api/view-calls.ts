/**
 * The library's reads of a draft: its view (the working tree with the draft
 * on top: cat, ls, files, search) and its history (log, diff, status).
 * Nothing here writes.
 */
import * as z from 'zod/mini';
import { draftLog, draftStatus, type DraftStatus, type LogEntry } from '../drafts/history/audit.js';
import type { DiffFile, DiffResult } from '../drafts/history/draft-diff.js';
import { listViewDir, readViewFile, type ViewEntry, type ViewFile } from '../drafts/view/view.js';
import {
  searchView,
  walkView,
  type SearchOptions,
  type SearchResult,
  type WalkedFile,
  type WalkOptions,
} from '../drafts/view/view-walk.js';
import { checkPath, validate } from '../drafts/batch/batch-schema.js';
import { pathspecProblem } from '../core/pathspec.js';
import type { BlameResult } from '../drafts/history/blame.js';
import type { PublishedBlame } from '../publish/published-blame.js';
import type { TraceOfCommit } from '../publish/trace-read.js';
import { viewDir, type DraftOption, type ShadowCore } from './shadow-core.js';

export type { DiffFile, DiffResult };

export interface DiffOptions extends DraftOption {
  /** Between two points (`'before-refactor..'`, `'2..4'`): checkpoints, batch numbers, ~N, commits; default against the bases. */
  range?: string;
  /** `'stat'` adds line counts, `'patch'` the unified diffs too. */
  content?: 'none' | 'stat' | 'patch';
  /** Only what these pathspecs match (repository-relative paths, directories, globs, `:(literal)`). */
  paths?: string[];
  /**
   * Pair deletions and additions into renames (status `R`, with `from` and
   * `similarity`) as `git diff -M` does: `true` at git's 50%, a number for
   * another minimum similarity in percent (`renames: 90`, as `-M90%`).
   */
  renames?: boolean | number;
  /** Patches in git's colours (`git diff --color`), for a terminal. */
  color?: boolean;
  /**
   * Lines of context around each change in the patches (`git diff -U<n>`);
   * default 3. The hunks listed for an apply (`files[].hunks`) are those of
   * 3 lines, whatever this says.
   */
  context?: number;
  /**
   * The prefixes of the patches' paths, `a/` and `b/` by default (git's
   * `--src-prefix`, `--dst-prefix`; `--no-prefix` is two empty ones). The
   * library reads no `diff.noprefix`, as git's plumbing does not: a patch
   * it gives goes back through `apply({ patch })`.
   */
  prefixes?: { src: string; dst: string };
  /** The two sides swapped, as `git diff -R`: what undoing the change would do (no `hunks` are listed then). */
  reverse?: boolean;
  /**
   * The least number of hex digits of the ids on the patches' `index`
   * lines (4 to 40; 40 is git's `--full-index`); an id is longer where
   * another object shares its prefix, as git abbreviates. Default:
   * `core.abbrev`, else git's length for the repository's size (7 up to
   * 16,383 packed objects, 8 up to 65,535, 9 up to 262,143, ...).
   */
  abbrev?: number;
  /** Mask every secret in the patches (added, removed and context lines, headers) and in the paths, as `shadow review` does (first 4 characters, then a mask). */
  redact?: boolean;
}

const DiffOptionsSchema = z.object({
  draft: z.optional(z.string()),
  range: z.optional(z.string()),
  content: z.optional(z.enum(['none', 'stat', 'patch'])),
  paths: z.optional(
    z.array(
      z
        .string()
        .check(z.refine((s) => pathspecProblem(s) === undefined, 'must be a pathspec from the repository root')),
    ),
  ),
  renames: z.optional(z.union([z.boolean(), z.number().check(z.gte(0), z.lte(100))])),
  color: z.optional(z.boolean()),
  context: z.optional(z.number().check(z.int(), z.gte(0), z.lte(1_000_000))),
  prefixes: z.optional(z.object({ src: z.string(), dst: z.string() })),
  reverse: z.optional(z.boolean()),
  abbrev: z.optional(z.number().check(z.int(), z.gte(4), z.lte(40))),
  redact: z.optional(z.boolean()),
});

export interface ViewCalls {
  /** @example const f = await sh.cat('src/hello.ts'); f.content.toString() */
  cat(path: string, options?: DraftOption): Promise<ViewFile>;

  /** @example for (const e of await sh.ls('src')) console.log(e.name, e.type) */
  ls(dir?: string, options?: DraftOption): Promise<ViewEntry[]>;

  /**
   * Every file of the view under `dir`, recursively, skipping what
   * .gitignore ignores (unless the draft wrote it; `ignored: true` lists it all).
   *
   * @example const { files } = await sh.files('src')
   */
  files(dir?: string, options?: DraftOption & WalkOptions): Promise<{ files: WalkedFile[]; truncated: boolean }>;

  /**
   * Lines of the view's text files that hold `pattern` (a substring, or a
   * regular expression with `regex: true`), bounded in results and files.
   *
   * @example const { matches } = await sh.search('TODO', { dir: 'src' })
   */
  search(pattern: string, options?: DraftOption & SearchOptions & { dir?: string }): Promise<SearchResult>;

  /** @example for (const b of await sh.log()) console.log(b.batch, b.intent) */
  log(options?: DraftOption & { limit?: number }): Promise<LogEntry[]>;

  /**
   * What the draft changes: against its captured bases, or between two points
   * (`range: 'before-refactor..'`). `content: 'stat'` adds line counts,
   * `'patch'` the unified diffs too; `paths` limits it, `renames` pairs
   * renames as `git diff -M`.
   *
   * @example const { files } = await sh.diff({ content: 'patch' })
   * @example const { files } = await sh.diff({ renames: true, paths: ['src/'] }); files.filter((f) => f.status === 'R').map((f) => `${f.from} -> ${f.path}`)
   */
  diff(options?: DiffOptions): Promise<DiffResult>;

  /** @example const s = await sh.status(); s.drifted.length */
  status(options?: DraftOption): Promise<DraftStatus>;

  /**
   * Who last wrote each line of a file of the draft (at its tip, or `at` a
   * checkpoint, batch, ~N or commit of it): git's blame of the draft, with
   * each draft commit's batch, actor, actor type and model.
   * @example (await sh.blame('src/api.ts')).lines.filter((l) => l.actor_type === 'ai')
   */
  blame(path: string, options?: DraftOption & { at?: string }): Promise<BlameResult>;

  /**
   * Who wrote each line of a file of any commit (HEAD by default), the draft
   * long gone: git blame, then the Agent Trace notes (refs/notes/agent-trace)
   * and trailers of the commits it names, or the notes' content hashes where
   * a commit has neither (a squash merge made with git).
   *
   * @example (await sh.blamePublished('src/api.ts')).lines.filter((l) => l.contributor?.type === 'ai')
   */
  blamePublished(path: string, options?: { commit?: string }): Promise<PublishedBlame>;

  /** The Agent Trace record noted on a commit (HEAD by default); NOT_FOUND without one, CORRUPT_STATE when the note is not a record. */
  trace(commit?: string): Promise<TraceOfCommit>;
}

export const viewCalls: ViewCalls & ThisType<ShadowCore & ViewCalls> = {
  async cat(path, options) {
    return readViewFile(this.ws, this.readDraftName(options), checkPath(path));
  },

  async ls(dir = '', options) {
    return listViewDir(this.ws, this.readDraftName(options), viewDir(dir));
  },

  async files(dir = '', options = {}) {
    return walkView(this.ws, this.readDraftName(options), viewDir(dir), options);
  },

  async search(pattern, options = {}) {
    return searchView(this.ws, this.readDraftName(options), pattern, viewDir(options.dir ?? ''), options);
  },

  async log(options = {}) {
    return draftLog(this.ws, this.readDraftName(options), options.limit ?? Infinity);
  },

  async diff(options = {}) {
    validate(DiffOptionsSchema, options, 'INVALID_ARGUMENT', 'the diff options');
    const draft = this.readDraftName(options);
    let range: { from: string; to: string } | undefined;
    if (options.range !== undefined) {
      const m = /^(.*?)\.\.(.*)$/.exec(options.range);
      range = m ? { from: m[1]!, to: m[2]! } : { from: options.range, to: '' };
    }
    const { draftDiff } = await import('../drafts/history/draft-diff.js');
    const result = await draftDiff(this.ws, draft, {
      range,
      content: options.content ?? 'none',
      paths: options.paths,
      renames: options.renames,
      color: options.color,
      context: options.context,
      prefixes: options.prefixes,
      reverse: options.reverse,
      abbrev: options.abbrev,
    });
    if (options.redact !== true) return result;
    const { redactPatch, redactPath } = await import('../review/patch-redact.js');
    const masked = (f: (typeof result.files)[number]): (typeof result.files)[number] => {
      const out = { ...f, path: redactPath(f.path) };
      if (f.from !== undefined) out.from = redactPath(f.from);
      if (f.patch !== undefined) out.patch = redactPatch(f.path, f.patch).patch;
      return out;
    };
    return { ...result, files: result.files.map(masked) };
  },

  async blame(path, options = {}) {
    const { blamePath } = await import('../drafts/history/blame.js');
    return blamePath(this.ws, this.readDraftName(options), checkPath(path), options.at);
  },

  async blamePublished(path, options = {}) {
    const { blamePublished } = await import('../publish/published-blame.js');
    return blamePublished(this.ws, checkPath(path), options.commit);
  },

  async trace(commit) {
    const { readTrace } = await import('../publish/trace-read.js');
    return readTrace(this.ws, commit);
  },

  async status(options) {
    return draftStatus(this.ws, this.readDraftName(options));
  },
};
