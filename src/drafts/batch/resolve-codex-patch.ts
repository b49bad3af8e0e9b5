import { ShadowError } from '../../errors.js';
import { pathProblem } from '../../core/path-rules.js';
import { isRegularMode, type PathKind } from '../../git/format/tree-lookup.js';
import type { OpLine } from '../commit-message.js';
import type { ApplyPatchOp, OpStatus, PatchFileResult } from './ops.js';
import { patchHunks, patchPath } from '../codex-patch/apply-patch-op.js';
import type { PatchHunk } from '../codex-patch/codex-patch.js';
import { applyChunksNoted } from '../codex-patch/codex-patch-apply.js';

/**
 * The `apply_patch` op resolved against the batch's view of the files
 * (resolve-batch.ts's overlay, which it reaches through PatchFiles): its
 * sections in order, each seeing the ones before it, all or nothing.
 *
 * Where Codex overwrites, so does shadow: an added file that exists is
 * replaced (keeping its mode, as a write to it keeps it), and a move onto a
 * file that exists replaces that file. Nothing reaches the working tree
 * until the person applies the draft, and review shows the file replaced.
 * What is no regular file (a directory, a symlink, a submodule) is refused,
 * as a write through a symlink is.
 */

/** What resolving a patch may do to the files, given by the batch. */
export interface PatchFiles {
  get(path: string): PathKind;
  /** The text (working-tree form) and mode of the regular text file `path` holds; the usual op errors otherwise. */
  readText(path: string, current: PathKind, what: string): { mode: string; text: string };
  /** Store `text` at `path` with `mode`; the parents of a new path must not be files. */
  writeText(path: string, text: string, mode: string): void;
  remove(path: string): void;
  /** A function that undoes every change made after this call. */
  checkpoint(): () => void;
}

export interface PatchOutcome {
  /** The one file's status; for several, `updated` (or `unchanged` when none changed). */
  status: OpStatus;
  /** The first file the patch names. */
  path: string;
  files: PatchFileResult[];
  lines: OpLine[];
}

const VERB = { add: 'Add File', delete: 'Delete File', update: 'Update File' } as const;

/**
 * Resolve `op`: its patch's sections applied in order through `files`.
 * A section that fails undoes the ones before it and throws, naming its
 * header and line (INVALID_PATCH when the patch does not parse).
 */
export function resolveApplyPatch(op: ApplyPatchOp, files: PatchFiles): PatchOutcome {
  const hunks = patchHunks(op);
  const undo = files.checkpoint();
  const done: PatchFileResult[] = [];
  try {
    for (const h of hunks) done.push(resolveHunk(h, files));
  } catch (e) {
    undo();
    throw e;
  }
  const changed = done.filter((f) => f.status !== 'unchanged');
  const status: OpStatus = done.length === 1 ? done[0]!.status : changed.length === 0 ? 'unchanged' : 'updated';
  const lines = done.map((f): OpLine => {
    const note = f.notes === undefined ? f.status : `${f.status}; ${f.notes.join('; ')}`;
    const line: OpLine = { operation: 'apply_patch', path: f.path, note };
    return f.to === undefined ? line : { ...line, arg: f.to };
  });
  return { status, path: done[0]!.path, files: done, lines };
}

/** A path the patch names, as a repository path; INVALID_PATH for one shadow does not write. */
function repoPath(named: string): string {
  const path = patchPath(named);
  const problem = pathProblem(path);
  if (problem) {
    throw new ShadowError(
      'INVALID_PATH',
      `"${named.length > 200 ? `${named.slice(0, 200)}…` : named}" is not a path shadow writes: ${problem}`,
      {
        hint: 'name files relative to the repository root, with forward slashes (src/app.ts)',
        data: { path: named },
      },
    );
  }
  return path;
}

function resolveHunk(h: PatchHunk, files: PatchFiles): PatchFileResult {
  try {
    return applyHunk(h, files);
  } catch (e) {
    // Errors of the change itself name the file already; the others get the section's header.
    if (!(e instanceof ShadowError) || e.data?.file !== undefined) throw e;
    // Codex's own text for the failure, where it has one, comes first.
    const codex = typeof e.data?.codex === 'string' ? `${e.data.codex}\n` : '';
    throw new ShadowError(e.code, `${codex}${VERB[h.type]} ${h.path} (patch line ${h.line}): ${e.message}`, {
      hint: e.hint,
      data: { ...e.data, file: h.path, patch_line: h.line },
    });
  }
}

function applyHunk(h: PatchHunk, files: PatchFiles): PatchFileResult {
  const path = repoPath(h.path);
  const current = files.get(path);
  switch (h.type) {
    case 'add': {
      if (current.kind === 'dir')
        throw new ShadowError('IS_A_DIRECTORY', `${path} is a directory`, { hint: 'add a file at a path inside it' });
      if (current.kind === 'file') {
        notRegular(path, current.mode, 'Add File');
        files.writeText(path, h.contents, current.mode);
        return { path, status: 'updated', section: 'add', notes: ['Add File replaced the file that was there'] };
      }
      files.writeText(path, h.contents, '100644');
      return { path, status: 'created', section: 'add' };
    }
    case 'delete': {
      const codex = `Failed to delete file ${h.path}`;
      if (current.kind === 'absent') {
        throw new ShadowError('NOT_FOUND', `${path} does not exist`, {
          hint: 'nothing to delete: drop the section',
          data: { codex },
        });
      }
      if (current.kind === 'dir') {
        throw new ShadowError('IS_A_DIRECTORY', `${path} is a directory`, {
          hint: 'Delete File removes one file: send one section per file',
          data: { codex },
        });
      }
      files.remove(path);
      return { path, status: 'deleted', section: 'delete' };
    }
    case 'update': {
      if (current.kind === 'absent') {
        throw new ShadowError('NOT_FOUND', `${path} does not exist`, {
          hint: `to create it, send "*** Add File: ${h.path}" with every line starting "+"`,
          data: { codex: `Failed to read file to update ${h.path}: No such file or directory (os error 2)` },
        });
      }
      const { mode, text } = files.readText(path, current, 'Update File');
      const { text: next, notes } = applyChunksNoted(text, h.chunks, path);
      const noted = notes.length > 0 ? { notes } : {};
      const to = h.moveTo === undefined ? path : repoPath(h.moveTo);
      if (to !== path) {
        const target = files.get(to);
        if (target.kind === 'dir') {
          throw new ShadowError('IS_A_DIRECTORY', `it moves to ${to}, which is a directory`, {
            hint: 'move it to a file path, not onto a directory',
            data: { to },
          });
        }
        const replaced = target.kind === 'file' ? ['Move to replaced the file that was there'] : [];
        if (target.kind === 'file') notRegular(to, target.mode, 'Move to');
        files.remove(path);
        files.writeText(to, next, mode);
        const all = [...notes, ...replaced];
        return { path, status: 'renamed', to, section: 'update', ...(all.length > 0 ? { notes: all } : {}) };
      }
      if (next === text) return { path, status: 'unchanged', section: 'update', ...noted };
      files.writeText(path, next, mode);
      return { path, status: 'updated', section: 'update', ...noted };
    }
  }
}

/** NOT_A_FILE for a symlink or submodule a section would replace: shadow writes no file through one. */
function notRegular(path: string, mode: string, section: string): void {
  if (isRegularMode(mode)) return;
  const what = mode === '120000' ? 'a symlink' : mode === '160000' ? 'a submodule' : `an entry of mode ${mode}`;
  throw new ShadowError('NOT_A_FILE', `${path} is ${what}; ${section} replaces regular files only`, {
    hint: `delete ${path} first in the same patch ("*** Delete File: ${path}") if it is to become a file`,
    data: { path, mode },
  });
}
