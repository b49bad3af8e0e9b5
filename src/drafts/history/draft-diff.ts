/**
 * A draft's diff as `sh.diff` and `shadow diff` give it: the changes
 * (against the bases, or between two points), limited to pathspecs, with
 * renames paired as `git diff -M` pairs them, and each file's line counts
 * and patch (in git's colours when asked for). The paths are limited before
 * renames are looked for, as git does: a file moved in from outside the
 * pathspec is an addition.
 */
import { abbreviator, autoAbbrev, configuredAbbrev } from '../../git/abbrev.js';
import type { Oid } from '../../git/format/git-objects.js';
import type { FileEntry } from '../../git/format/tree-lookup.js';
import { pathspecMatcher } from '../../core/pathspec.js';
import { looksBinary } from '../../core/content.js';
import { draftChanges, type ChangedFile } from './audit.js';
import type { HunkInfo } from '../hunks/hunk-ids.js';
import type { WholeReason } from '../hunks/file-hunks.js';
import type { Workspace } from '../workspace.js';

/** A file of a draft's diff, with its patch when asked for. */
export interface DiffFile extends Omit<ChangedFile, 'status'> {
  /** As ChangedFile's; `R` a rename (with `-M`), `path` its new path. */
  status: ChangedFile['status'] | 'R';
  /** A rename's old path. */
  from?: string;
  /** A rename's similarity in percent, as git's `similarity index` and `R<n>`. */
  similarity?: number;
  insertions?: number;
  deletions?: number;
  binary?: boolean;
  /** A binary file's size in bytes before and after, when its content changed (git's `--stat` shows `Bin 12 -> 40 bytes`). */
  sizes?: { old: number; new: number };
  patch?: string;
  /**
   * With the patch, of a diff against the bases: its hunks as an apply takes
   * them (drafts/hunks/), empty when the file is taken whole only (`whole`
   * says why). A rename paired by `renames` lists the hunks of its old
   * content to the new: an apply that takes any of them takes the rename.
   */
  hunks?: HunkInfo[];
  whole?: WholeReason;
}

export interface DiffResult {
  draft: string;
  from?: Oid;
  to?: Oid;
  files: DiffFile[];
  /** Set when there were more rename candidates than `diff.renameLimit` allows: only exact renames were paired, as git does then. */
  renames_limited?: true;
}

export interface DraftDiffOptions {
  range?: { from: string; to: string };
  content: 'none' | 'stat' | 'patch';
  /** Pathspecs from the repository root (see core/pathspec.ts). */
  paths?: readonly string[];
  /** Pair renames: at git's default (true) or at least this similarity in percent. */
  renames?: boolean | number;
  /** Patches in git's colours. */
  color?: boolean;
  /** Lines of context in the patches (default 3; the hunks listed for an apply keep 3). */
  context?: number;
  /** The paths' prefixes in the patches (default `a/`, `b/`). */
  prefixes?: { src: string; dst: string };
  /** The two sides swapped (`git diff -R`): what undoing the change would do. */
  reverse?: boolean;
  /** The least hex digits of an `index` line's ids (default: core.abbrev, else git's length for the repository). */
  abbrev?: number;
}

/** git's default `diff.renameLimit`. */
const RENAME_LIMIT = 1000;

/** The draft's diff (see the module comment). */
export async function draftDiff(ws: Workspace, draft: string, options: DraftDiffOptions): Promise<DiffResult> {
  const changes = draftChanges(ws, draft, options.range);
  let files: DiffFile[] = changes.files;
  if (options.paths !== undefined && options.paths.length > 0) {
    const wanted = pathspecMatcher(options.paths);
    files = files.filter((f) => wanted(f.path));
  }
  // Swapped before renames are looked for, as git swaps each pair as it queues it.
  if (options.reverse)
    files = files.map((f) => ({
      ...f,
      old: f.new,
      new: f.old,
      status: f.status === 'A' ? 'D' : f.status === 'D' ? 'A' : f.status,
    }));
  const objects = ws.repo.objects;
  const renaming = options.renames !== undefined && options.renames !== false;
  // Rename detection reads the blobs its patches read again: kept for those.
  const blobs = new Map<Oid, Buffer>();
  const readBlob = (oid: Oid): Buffer => {
    if (!renaming) return objects.readBlob(oid);
    let b = blobs.get(oid);
    if (!b) blobs.set(oid, (b = objects.readBlob(oid)));
    return b;
  };
  let limited = false;
  if (renaming) {
    const { detectRenames } = await import('../../git/format/diff-renames.js');
    const { DEFAULT_RENAME_SCORE, renameScoreOf, similarityPercent } =
      await import('../../git/format/rename-similarity.js');
    const minimum = options.renames === true ? DEFAULT_RENAME_SCORE : renameScoreOf(Number(options.renames));
    const limit = ws.repo.config.getInt('diff.renamelimit') ?? RENAME_LIMIT;
    const r = detectRenames(files, { minimum, limit, size: (oid) => readBlob(oid).length, read: readBlob });
    limited = r.limited;
    files = r.changes.map((c): DiffFile => {
      if (!('from' in c && 'score' in c)) return c as DiffFile;
      return {
        path: c.path,
        old: c.old,
        new: c.new,
        status: 'R',
        from: c.from,
        similarity: similarityPercent(c.score),
      };
    });
  }
  if (options.content !== 'none') {
    const { fileDiff } = await import('../../git/format/unified-diff.js');
    let colour: ((patch: string, oldContent: Buffer, newContent: Buffer) => string) | undefined;
    if (options.color) {
      const [{ colourPatch }, { parseWhitespaceRule }] = await Promise.all([
        import('../../git/format/diff-colour.js'),
        import('../../git/format/whitespace-rule.js'),
      ]);
      const rule = parseWhitespaceRule(ws.repo.config.get('core.whitespace'));
      colour = (patch, oldContent, newContent) => colourPatch(patch, oldContent, newContent, rule);
    }
    const read = (e: FileEntry | null): Buffer => (e && e.mode !== '160000' ? readBlob(e.oid) : Buffer.alloc(0));
    const quotePath = ws.repo.config.getBool('core.quotepath') ?? true;
    // Reversed, git swaps the prefixes with the sides: `diff --git b/x a/x`.
    const given = options.prefixes ?? { src: 'a/', dst: 'b/' };
    const prefixes = options.reverse ? { src: given.dst, dst: given.src } : options.prefixes;
    const binaryByAttribute = binaryAttribute(ws);
    // Hunks for an apply are those of the change itself, not of its reverse.
    const withHunks = options.content === 'patch' && options.range === undefined && options.reverse !== true;
    const { fileHunks } = withHunks ? await import('../hunks/file-hunks.js') : { fileHunks: undefined };
    const context = options.context ?? 3;
    const abbrev = options.content === 'patch' ? indexAbbreviator(ws, options.abbrev) : undefined;
    files = files.map((f) => {
      const oldContent = read(f.old);
      const newContent = read(f.new);
      const byAttribute = binaryByAttribute(f.path);
      const input = {
        path: f.path,
        old: f.old,
        new: f.new,
        oldContent,
        newContent,
        from: f.from,
        similarity: f.similarity,
        quotePath,
        functionNames: options.content === 'patch',
        binary: byAttribute,
        prefixes,
        abbrev,
      };
      const d = fileDiff(input, context);
      const out: DiffFile = { ...f, insertions: d.insertions, deletions: d.deletions, binary: d.binary };
      if (d.binary) out.sizes = { old: oldContent.length, new: newContent.length };
      // The same content (a rename, a mode change) has no patch, and git still counts a binary one as binary.
      else if (f.old?.oid === f.new?.oid && (byAttribute ?? (looksBinary(oldContent) || looksBinary(newContent))))
        out.binary = true;
      if (options.content === 'patch') out.patch = colour ? colour(d.text, oldContent, newContent) : d.text;
      if (fileHunks) {
        // Hunks for an apply are those of a patch of 3 lines of context with git's own prefixes (hunk-ids.ts),
        // whatever the one shown has.
        const plain = context === 3 && options.prefixes === undefined;
        const h = fileHunks(
          f.path,
          f.old,
          f.new,
          oldContent,
          newContent,
          plain ? d : fileDiff({ ...input, prefixes: undefined }, 3),
        );
        out.hunks = h.infos;
        if (h.whole !== undefined) out.whole = h.whole;
      }
      return out;
    });
  }
  return { draft, from: changes.from, to: changes.to, files, ...(limited ? { renames_limited: true as const } : {}) };
}

/**
 * How the patches' `index` lines abbreviate ids, as git's do: to `least`
 * hex digits, else `core.abbrev`'s, else a length that grows with the
 * number of packed objects (git/abbrev.ts); longer where another object
 * shares the prefix. Made on the first id it is asked for: a diff of no
 * file reads no pack index.
 */
function indexAbbreviator(ws: Workspace, least: number | undefined): (oid: Oid) => string {
  let abbreviate: ((oid: Oid) => string) | undefined;
  return (oid) => {
    if (!abbreviate) {
      const configured = least ?? configuredAbbrev(ws.repo.config.get('core.abbrev'));
      const length = configured === 'auto' ? autoAbbrev(ws.repo.objects.packedObjectCount()) : configured;
      abbreviate = abbreviator(ws.repo.objects.abbrevSource(), length);
    }
    return abbreviate(oid);
  };
}

/**
 * Whether a path is binary by its `diff` attribute, as git decides for a
 * diff: `-diff` (and the `binary` macro) or a driver with
 * `diff.<driver>.binary` true, binary; `diff` set, text whatever its bytes;
 * else undefined (by content). Read from the working tree's attribute
 * files, as git diff reads them; a bare repository has none. A driver's
 * `textconv` is not run (docs/reading.md).
 */
function binaryAttribute(ws: Workspace): (path: string) => boolean | undefined {
  const form = ws.worktreeForm();
  if (form === undefined) return () => undefined;
  return (path) => {
    const a = form.diffAttribute(path);
    if (a === false || a === true) return !a;
    if (typeof a === 'string') return ws.repo.config.getBool(`diff.${a}.binary`) === true ? true : undefined;
    return undefined;
  };
}
