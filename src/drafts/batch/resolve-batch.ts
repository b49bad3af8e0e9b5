import { ShadowError, type ShadowErrorJSON } from '../../errors.js';
import type { OpLine } from '../commit-message.js';
import {
  decodeContent,
  decodeUtf8,
  meetsExpectation,
  parseExpect,
  contentTooLarge,
  loneSurrogateAt,
} from '../../core/content.js';
import { blobOid, MODE, type Oid } from '../../git/format/git-objects.js';
import { opPath, type ApplyPatchOp, type FileOperation, type OpProblem, type OpResult, type OpStatus } from './ops.js';
import { Overlay } from './overlay.js';
import { resolveApplyPatch, type PatchFiles } from './resolve-codex-patch.js';
import { clip, linesAt, nearMatches, occurrences } from '../text/text-edit.js';
import { isRegularMode, type FileEntry, type PathKind, type TreeReader } from '../../git/format/tree-lookup.js';

/** Everything resolution reads: trees and blobs. */
export interface ResolveSource extends TreeReader {
  readBlob(oid: Oid): Buffer;
}

/** The patch functions, injected so that jsdiff loads only for batches with a patch op. */
export interface Patcher {
  parseFilePatch: typeof import('../text/text-patch.js').parseFilePatch;
  applyFilePatch: typeof import('../text/text-patch.js').applyFilePatch;
}

/**
 * The two forms of a file at a path (see ARCHITECTURE: the working tree
 * through git's eyes): ops carry working-tree bytes, the draft keeps blobs.
 * Without it, the forms are one.
 */
export interface PathForms {
  /** True when nothing converts `path`: its working-tree bytes are its blob. */
  plain(path: string): boolean;
  /** Working tree → blob, as `git add` stores it. */
  toBlob(path: string, bytes: Buffer): Buffer;
  /** Blob → working tree, as `git checkout` writes it. */
  toWorktree(path: string, blob: Buffer): Buffer;
}

export interface ResolveOptions {
  maxContentBytes: number;
  patcher?: Patcher;
  forms?: PathForms;
}

/** The outcome of resolving a batch in memory; nothing is written yet. */
export interface Resolution {
  ok: boolean;
  results: OpResult[];
  problems: OpProblem[];
  /** File-level changes relative to the base tree. */
  changes: ReadonlyMap<string, FileEntry | null>;
  /** Contents of the blobs the changes introduce. */
  blobs: Map<Oid, Buffer>;
  opLines: OpLine[];
}

/** Thrown inside one op's resolution; becomes that op's problem. */
function fail(code: ShadowError['code'], message: string, hint?: string, data?: Record<string, unknown>): never {
  throw new ShadowError(code, message, { hint, data });
}

/**
 * Resolve `ops` in order against the tree `base`, in memory: later ops see
 * earlier ones. Every op is checked even after one fails, so the caller can
 * list every problem; a batch with any problem changes nothing.
 *
 * Each op is judged on the content it finds, and only on that: an edit whose
 * `old_content` is absent fails (EDIT_NO_MATCH, with the closest lines) even
 * when its `content` is there, and so does a patch already in place. Taking
 * either for success would let a mistyped edit report it. Retries stay
 * safe one level up: a batch sent again onto the commit it made is known by
 * its fingerprint and answered `already_applied` without being resolved.
 *
 * @example
 * const r = resolveBatch(source, tree, [{ operation: 'write', path: 'a.txt', content: 'hi\n' }], { maxContentBytes: 1 << 20 });
 */
export function resolveBatch(
  source: ResolveSource,
  base: Oid,
  ops: readonly FileOperation[],
  options: ResolveOptions,
): Resolution {
  const overlay = new Overlay(source, base);
  const blobs = new Map<Oid, Buffer>();
  const results: OpResult[] = [];
  const problems: OpProblem[] = [];
  const opLines: OpLine[] = [];

  const readBlob = (oid: Oid): Buffer => blobs.get(oid) ?? source.readBlob(oid);
  const putBlob = (bytes: Buffer): Oid => {
    const oid = blobOid(bytes);
    blobs.set(oid, bytes);
    return oid;
  };

  const env: OpEnv = { readBlob, putBlob, options };
  ops.forEach((op, index) => {
    try {
      if (op.operation === 'apply_patch') {
        checkText(op.patch, 'patch');
        const done = resolveApplyPatch(op, patchFiles(overlay, env));
        results.push({
          operation: op.operation,
          path: done.path,
          success: true,
          status: done.status,
          files: done.files,
        });
        opLines.push(...done.lines);
        return;
      }
      const status = resolveOne(op, overlay, env);
      const result: OpResult = { operation: op.operation, path: op.path, success: true, status };
      if (op.operation === 'rename') result.to = op.to;
      results.push(result);
      const line: OpLine = { operation: op.operation, path: op.path };
      if (op.operation === 'rename') line.arg = op.to;
      if (op.operation === 'chmod') line.arg = op.mode;
      if (status === 'unchanged') line.note = status;
      opLines.push(line);
    } catch (e) {
      const err =
        e instanceof ShadowError ? e : new ShadowError('INTERNAL', String((e as Error)?.message ?? e), { cause: e });
      const json: ShadowErrorJSON = err.toJSON();
      const result: OpResult = {
        operation: op.operation,
        path: opPath(op),
        success: false,
        status: 'failed',
        error: json,
      };
      if (op.operation === 'rename') result.to = op.to;
      results.push(result);
      problems.push({
        index,
        code: err.code,
        message: err.message,
        hint: err.hint,
        data: err.data ? { ...err.data } : undefined,
      });
    }
  });

  const ok = problems.length === 0;
  if (!ok) {
    for (const r of results) {
      if (r.success) {
        r.success = false;
        r.status = 'not_applied';
      }
    }
  }
  return { ok, results, problems, changes: overlay.changes, blobs, opLines };
}

interface OpEnv {
  readBlob(oid: Oid): Buffer;
  putBlob(bytes: Buffer): Oid;
  options: ResolveOptions;
}

function describe(kind: PathKind): string {
  if (kind.kind === 'dir') return 'a directory';
  if (kind.kind === 'absent') return 'absent';
  if (kind.mode === MODE.symlink) return 'a symlink';
  if (kind.mode === MODE.gitlink) return 'a submodule';
  return 'a file';
}

function checkExpect(op: FileOperation, current: PathKind, env: OpEnv): void {
  if (op.expect === undefined) return;
  const expectation = parseExpect(op.expect);
  if (!expectation) {
    fail(
      'INVALID_BATCH',
      `expect "${clip(op.expect, 80)}" is neither a blob id nor sha256:<hex>`,
      'give the 40-hex blob id or "sha256:" and 64 hex digits',
    );
  }
  if (current.kind !== 'file') {
    fail(
      'EXPECT_FAILED',
      `${op.path} is ${describe(current)}, so it cannot match expect ${op.expect}`,
      'read the path again and resend the batch',
      {
        found: null,
      },
    );
  }
  if (!meetsExpectation(expectation, current.oid, () => env.readBlob(current.oid))) {
    fail(
      'EXPECT_FAILED',
      `${op.path} no longer holds the expected content (expected ${op.expect}, found blob ${current.oid})`,
      'read the path again and resend the batch',
      {
        expected: op.expect,
        found: current.oid,
      },
    );
  }
}

/** The current entry at `path`, which must be a regular file holding UTF-8 text. */
function readText(path: string, current: PathKind, env: OpEnv, opName: string): { entry: FileEntry; text: string } {
  if (current.kind === 'absent') {
    fail('NOT_FOUND', `${path} does not exist`, `${opName} changes an existing file; use a write op to create it`);
  }
  if (current.kind === 'dir') fail('IS_A_DIRECTORY', `${path} is a directory`, `${opName} works on files`);
  if (!isRegularMode(current.mode)) {
    fail('NOT_A_FILE', `${path} is ${describe(current)}`, `${opName} works on regular files; use write to replace it`);
  }
  const text = decodeUtf8(worktreeBytes(path, current.oid, env));
  if (text === undefined) {
    fail(
      'INVALID_CONTENT',
      `${path} is not UTF-8 text`,
      `${opName} works on text; use a write op with "encoding": "base64"`,
    );
  }
  return { entry: { mode: current.mode, oid: current.oid }, text };
}

function ensureParentsAreDirs(overlay: Overlay, path: string): void {
  const blocker = overlay.fileAncestor(path);
  if (blocker !== undefined) {
    fail(
      'NOT_A_DIRECTORY',
      `${blocker} is a file, so ${path} cannot be created under it`,
      `delete ${blocker} first, in the same batch`,
      {
        blockedBy: blocker,
      },
    );
  }
}

/** Refuse text UTF-8 cannot hold (a lone surrogate) rather than store a replacement character. */
function checkText(text: string, field: string): void {
  const at = loneSurrogateAt(text);
  if (at !== -1) {
    fail(
      'INVALID_CONTENT',
      `${field} holds a lone UTF-16 surrogate at index ${at}, which UTF-8 cannot encode`,
      'send valid Unicode text',
      { index: at },
    );
  }
}

/** Store text an op made for `path` (working-tree form) as the blob git would store. */
function putText(path: string, text: string, env: OpEnv): Oid {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > env.options.maxContentBytes) throw contentTooLarge(bytes.length, env.options.maxContentBytes);
  const forms = env.options.forms;
  return env.putBlob(forms && !forms.plain(path) ? forms.toBlob(path, bytes) : bytes);
}

/** The bytes of blob `oid` as `path` holds them in the working tree (what an edit or patch is written against). */
function worktreeBytes(path: string, oid: Oid, env: OpEnv): Buffer {
  const forms = env.options.forms;
  const blob = env.readBlob(oid);
  return forms && !forms.plain(path) ? forms.toWorktree(path, blob) : blob;
}

/** The blob of a write op: its bytes (or a session's stored blob) in the form `git add` stores at the path. */
function storeWritten(path: string, stored: Oid | undefined, bytes: Buffer | undefined, env: OpEnv): Oid {
  const forms = env.options.forms;
  if (!forms || forms.plain(path)) return stored ?? env.putBlob(bytes!);
  return env.putBlob(forms.toBlob(path, stored ? env.readBlob(stored) : bytes!));
}

/**
 * Where `old` stands in `text`: exactly, or, when `text` has CRLF line ends
 * and `old` plain LF ones, with LF read as CRLF (an agent that was shown, or
 * assumes, LF). The replacement then gets the file's CRLF too.
 */
function locate(text: string, old: string, content: string): { found: number[]; old: string; content: string } {
  const found = occurrences(text, old, 50);
  if (found.length > 0 || !old.includes('\n') || old.includes('\r') || !text.includes('\r\n'))
    return { found, old, content };
  const crlfOld = old.replace(/\n/g, '\r\n');
  const crlf = occurrences(text, crlfOld, 50);
  if (crlf.length === 0) return { found, old, content };
  return { found: crlf, old: crlfOld, content: content.replace(/\r?\n/g, '\r\n') };
}

/**
 * The blob a renamed file has at its new path: the same, unless the two
 * paths convert differently (an `eol` or filter attribute on one of them),
 * when it is what `git add` would store after `git mv`.
 */
function renamedBlob(from: string, to: string, mode: string, oid: Oid, env: OpEnv): Oid {
  const forms = env.options.forms;
  if (!forms || !isRegularMode(mode) || (forms.plain(from) && forms.plain(to))) return oid;
  return env.putBlob(forms.toBlob(to, forms.toWorktree(from, env.readBlob(oid))));
}

/**
 * The overlay as an apply_patch op reaches it, under the rules of the other
 * ops (text only, the path's working-tree form, parents that are not files,
 * the content limit), with an undo for a patch that fails half-way.
 */
function patchFiles(overlay: Overlay, env: OpEnv): PatchFiles {
  const before = new Map<string, FileEntry | null | undefined>();
  const remember = (path: string): void => {
    if (!before.has(path)) before.set(path, overlay.changes.has(path) ? overlay.changes.get(path) : undefined);
  };
  return {
    get: (path) => overlay.get(path),
    readText: (path, current, what) => {
      const { entry, text } = readText(path, current, env, what);
      return { mode: entry.mode, text };
    },
    writeText: (path, text, mode) => {
      if (overlay.get(path).kind === 'absent') ensureParentsAreDirs(overlay, path);
      const oid = putText(path, text, env);
      remember(path);
      overlay.set(path, { mode, oid });
    },
    remove: (path) => {
      remember(path);
      overlay.set(path, null);
    },
    checkpoint: () => {
      before.clear();
      return () => {
        for (const [path, entry] of before) {
          if (entry === undefined) overlay.unset(path);
          else overlay.set(path, entry);
        }
      };
    },
  };
}

function resolveOne(op: Exclude<FileOperation, ApplyPatchOp>, overlay: Overlay, env: OpEnv): OpStatus {
  const current = overlay.get(op.path);
  checkExpect(op, current, env);
  switch (op.operation) {
    case 'write': {
      const bytes = op.stored
        ? undefined
        : op.bytes
          ? Buffer.from(op.bytes.buffer, op.bytes.byteOffset, op.bytes.byteLength)
          : decodeContent(op.content, op.encoding, env.options.maxContentBytes);
      const size = op.stored ? op.stored.size : bytes!.length;
      if (size > env.options.maxContentBytes) throw contentTooLarge(size, env.options.maxContentBytes);
      if (current.kind === 'dir')
        fail('IS_A_DIRECTORY', `${op.path} is a directory`, 'write to a path inside it, or delete its files first');
      if (current.kind === 'absent') ensureParentsAreDirs(overlay, op.path);
      const keepMode = current.kind === 'file' && isRegularMode(current.mode) ? current.mode : MODE.file;
      const mode = op.mode ?? (keepMode === '100664' ? MODE.file : keepMode);
      const oid = storeWritten(op.path, op.stored?.oid, bytes, env);
      if (current.kind === 'file' && current.oid === oid && current.mode === mode) return 'unchanged';
      overlay.set(op.path, { mode, oid });
      return current.kind === 'absent' ? 'created' : 'updated';
    }
    case 'edit': {
      checkText(op.old_content, 'old_content');
      checkText(op.content, 'content');
      const { entry, text } = readText(op.path, current, env, 'edit');
      const { found, old, content } = locate(text, op.old_content, op.content);
      if (found.length === 1) {
        const at = found[0]!;
        const next = text.slice(0, at) + content + text.slice(at + old.length);
        if (next === text) return 'unchanged';
        overlay.set(op.path, { mode: entry.mode, oid: putText(op.path, next, env) });
        return 'updated';
      }
      if (found.length === 0) {
        // Never `already_applied` because `content` is somewhere in the file: a mistyped
        // old_content would then pass for success. A batch sent again is recognised by
        // its identity before it is resolved (see runBatch), not here.
        const near = nearMatches(text, op.old_content);
        const nearText = near.length
          ? `; closest: ${near.map((n) => `line ${n.line}${n.kind === 'similar' ? '' : ` (differs in ${n.kind})`}: "${clip(n.text.trim(), 80)}"`).join('; ')}`
          : '';
        fail(
          'EDIT_NO_MATCH',
          `old_content was not found in ${op.path} (0 matches)${nearText}`,
          'read the file again and copy old_content exactly, whitespace and line endings included',
          {
            matches: 0,
            closest: near,
          },
        );
      }
      const lines = linesAt(text, found);
      const more = found.length >= 50 ? ' or more' : '';
      fail(
        'EDIT_AMBIGUOUS',
        `old_content occurs ${found.length}${more} times in ${op.path} (lines ${lines.join(', ')}); it must occur exactly once`,
        'include more surrounding lines in old_content to make it unique',
        {
          matches: found.length,
          lines,
        },
      );
    }
    case 'patch': {
      const patcher = env.options.patcher;
      if (!patcher) throw new ShadowError('INTERNAL', 'patch support was not loaded');
      checkText(op.diff, 'diff');
      const parsed = patcher.parseFilePatch(op.diff);
      // A diff already in place is a failure like any other that does not apply: see the file's head.
      if (parsed.creates && current.kind !== 'absent') {
        const { text } = readText(op.path, current, env, 'patch');
        const same =
          patcher.applyFilePatch('', parsed) === text ? ', the content this diff makes' : ' with other content';
        fail(
          'ALREADY_EXISTS',
          `the diff creates ${op.path}, which already exists${same}`,
          'send a diff against the current content, or a write op',
        );
      }
      if (parsed.creates && current.kind === 'absent') {
        ensureParentsAreDirs(overlay, op.path);
        overlay.set(op.path, { mode: MODE.file, oid: putText(op.path, patcher.applyFilePatch('', parsed), env) });
        return 'created';
      }
      if (parsed.deletes && current.kind === 'absent')
        fail('NOT_FOUND', `the diff deletes ${op.path}, which does not exist`, 'nothing to delete; drop this op');
      const { entry, text } = readText(op.path, current, env, 'patch');
      const next = patcher.applyFilePatch(text, parsed);
      if (parsed.deletes && next === '') {
        overlay.set(op.path, null);
        return 'deleted';
      }
      if (next === text) return 'unchanged';
      overlay.set(op.path, { mode: entry.mode, oid: putText(op.path, next, env) });
      return 'updated';
    }
    case 'delete': {
      if (current.kind === 'absent') fail('NOT_FOUND', `${op.path} does not exist`, 'nothing to delete; drop this op');
      if (current.kind === 'dir')
        fail('IS_A_DIRECTORY', `${op.path} is a directory`, 'delete removes files: send one delete per file');
      overlay.set(op.path, null);
      return 'deleted';
    }
    case 'rename': {
      if (op.to === op.path) fail('INVALID_BATCH', `rename of ${op.path} onto itself`, 'give a different "to"');
      if (current.kind === 'absent') fail('NOT_FOUND', `${op.path} does not exist`, 'rename moves an existing file');
      if (current.kind === 'dir')
        fail('IS_A_DIRECTORY', `${op.path} is a directory`, 'rename moves files: send one rename per file');
      const target = overlay.get(op.to);
      if (target.kind !== 'absent') {
        fail(
          'ALREADY_EXISTS',
          `${op.to} already exists (${describe(target)})`,
          'delete it first in the same batch, or choose another name',
          {
            to: op.to,
          },
        );
      }
      const before = overlay.changes.has(op.path) ? overlay.changes.get(op.path) : undefined;
      overlay.set(op.path, null);
      try {
        ensureParentsAreDirs(overlay, op.to);
      } catch (e) {
        if (before === undefined) overlay.unset(op.path);
        else overlay.set(op.path, before);
        throw e;
      }
      overlay.set(op.to, { mode: current.mode, oid: renamedBlob(op.path, op.to, current.mode, current.oid, env) });
      return 'renamed';
    }
    case 'chmod': {
      if (current.kind === 'absent') fail('NOT_FOUND', `${op.path} does not exist`, 'chmod changes an existing file');
      if (current.kind === 'dir') fail('IS_A_DIRECTORY', `${op.path} is a directory`, 'chmod works on files');
      if (!isRegularMode(current.mode))
        fail('NOT_A_FILE', `${op.path} is ${describe(current)}`, 'chmod works on regular files');
      if (current.mode === op.mode) return 'unchanged';
      overlay.set(op.path, { mode: op.mode, oid: current.oid });
      return 'mode_changed';
    }
  }
}
