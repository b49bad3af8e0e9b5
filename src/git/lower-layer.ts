import type { Stats } from 'node:fs';
import type { Context } from '../context.js';
import { errnoCode, ShadowError } from '../errors.js';
import { blobOid, MODE, type Oid } from './format/git-objects.js';
import { parentDirs } from '../core/path-rules.js';
import { statIfExists } from '../durable/durable-file.js';
import { lookupPath, type TreeReader } from './format/tree-lookup.js';
import type { WorktreeForm } from './worktree-form.js';

/** What the lower layer holds at a path. */
export type LowerState =
  | {
      kind: 'file';
      mode: string;
      /** The blob git would store for the file (`git add`'s clean form). */
      oid: Oid;
      /** The blob's bytes. */
      content: () => Buffer;
      /** The bytes as they stand in the working tree (smudged, CRLF where checked out so), when they can differ. */
      worktree?: () => Buffer;
    }
  | { kind: 'dir' }
  | { kind: 'absent' };

/** An entry of a lower-layer directory listing. */
export interface LowerDirEntry {
  name: string;
  kind: 'file' | 'dir' | 'symlink' | 'other';
}

/**
 * What the caller expects at a path, with a way to confirm it from the
 * file's lstat alone (git's index: see index-view.ts).
 */
export interface KnownBlob {
  mode: string;
  oid: Oid;
  vouches(st: Stats): boolean;
}

/** The layer below a draft: the live working tree, or a commit's tree in a bare repository. */
export interface LowerLayer {
  readonly kind: 'worktree' | 'tree';
  /**
   * What the layer holds at `path`. Never follows a symlink. With `known`,
   * a file whose lstat `known` vouches for is not read: its state is
   * `known`'s (its content is read, and checked, only when asked for).
   */
  read(path: string, known?: KnownBlob): LowerState;
  /** The entries of directory `dir` (`''` for the root), or undefined when it is not a directory. */
  list(dir: string): LowerDirEntry[] | undefined;
}

function symlinkInPath(path: string, dir: string, target: string): ShadowError {
  return new ShadowError('SYMLINK_IN_PATH', `${path} crosses a symlink in the working tree: ${dir} -> ${target}`, {
    hint: 'shadow never follows symlinks out of the workspace; write to the real path instead',
    data: { path, symlink: dir, target },
  });
}

/**
 * The working tree, read without ever following a symlink: every parent
 * directory of a path is checked with lstat, and a path that crosses a
 * symlink is refused (SYMLINK_IN_PATH), so no read escapes the workspace.
 */
export class WorkingTreeLower implements LowerLayer {
  readonly kind = 'worktree' as const;
  /** Directories already checked (a batch's paths share most of their parents): a directory or not, or the symlink error. */
  private readonly checkedDirs = new Map<string, boolean | { target: string }>();

  constructor(
    private readonly ctx: Context,
    private readonly root: string,
    /** git's `core.fileMode`: when false, the executable bit of files is not trusted. */
    private readonly trustExecutableBit: boolean,
    /** How files become blobs (attributes, eol, filters); without it, bytes are blobs as they are. */
    private readonly form?: WorktreeForm,
  ) {}

  private lstat(path: string): Stats | undefined {
    try {
      return statIfExists(this.ctx.fs, `${this.root}/${path}`);
    } catch (e) {
      const code = errnoCode(e);
      throw new ShadowError('IO_ERROR', `cannot read ${path} in the working tree: ${(e as Error).message}`, {
        data: { path, code },
      });
    }
  }

  /** Check the parent directories of `path`; false when one is missing or not a directory. */
  private parentsAreDirs(path: string): boolean {
    for (const dir of parentDirs(path)) {
      const known = this.checkedDirs.get(dir);
      if (known === true) continue;
      if (known === false) return false;
      if (typeof known === 'object') throw symlinkInPath(path, dir, known.target);
      const st = this.lstat(dir);
      if (!st?.isSymbolicLink()) this.checkedDirs.set(dir, st?.isDirectory() === true);
      if (!st) return false;
      if (st.isSymbolicLink()) {
        let target = '';
        try {
          target = String(this.ctx.fs.readlinkSync(`${this.root}/${dir}`));
        } catch {
          /* the target is only for the message */
        }
        this.checkedDirs.set(dir, { target });
        throw symlinkInPath(path, dir, target);
      }
      if (!st.isDirectory()) return false;
    }
    return true;
  }

  read(path: string, known?: KnownBlob): LowerState {
    if (!this.parentsAreDirs(path)) return { kind: 'absent' };
    const st = this.lstat(path);
    if (!st) return { kind: 'absent' };
    const full = `${this.root}/${path}`;
    if (st.isDirectory()) return { kind: 'dir' };
    if (known?.vouches(st)) {
      return {
        kind: 'file',
        mode: known.mode,
        oid: known.oid,
        content: () => this.readVouched(path, known.oid),
        worktree: () => this.readRaw(path),
      };
    }
    if (st.isSymbolicLink()) {
      const target = this.ctx.fs.readlinkSync(full, { encoding: 'buffer' }) as Buffer;
      return { kind: 'file', mode: MODE.symlink, oid: blobOid(target), content: () => target };
    }
    if (!st.isFile()) {
      throw new ShadowError(
        'UNSUPPORTED_FILE_TYPE',
        `${path} in the working tree is not a regular file, directory or symlink`,
        {
          hint: 'shadow works with regular files; move the special file away first',
          data: { path },
        },
      );
    }
    let content: Buffer;
    try {
      content = this.ctx.fs.readFileSync(full) as Buffer;
    } catch (e) {
      throw new ShadowError('IO_ERROR', `cannot read ${path} in the working tree: ${(e as Error).message}`, {
        data: { path, code: errnoCode(e) },
      });
    }
    const executable = this.trustExecutableBit && (Number(st.mode) & 0o100) !== 0;
    const raw = content;
    const blob = this.form ? this.form.toBlob(path, raw) : raw;
    return {
      kind: 'file',
      mode: executable ? MODE.executable : MODE.file,
      oid: blobOid(blob),
      content: () => blob,
      worktree: () => raw,
    };
  }

  private readRaw(path: string): Buffer {
    const full = `${this.root}/${path}`;
    const st = this.lstat(path);
    return st?.isSymbolicLink()
      ? (this.ctx.fs.readlinkSync(full, { encoding: 'buffer' }) as Buffer)
      : (this.ctx.fs.readFileSync(full) as Buffer);
  }

  /** The content of a file the index vouched for (as a blob), checked against the id it vouched. */
  private readVouched(path: string, oid: Oid): Buffer {
    const st = this.lstat(path);
    const raw = this.readRaw(path);
    const content = this.form && !st?.isSymbolicLink() ? this.form.toBlob(path, raw) : raw;
    if (blobOid(content) !== oid) {
      throw new ShadowError('IO_ERROR', `${path} changed in the working tree while shadow was reading it`, {
        hint: 'retry',
        data: { path },
      });
    }
    return content;
  }

  list(dir: string): LowerDirEntry[] | undefined {
    if (dir !== '') {
      if (!this.parentsAreDirs(`${dir}/x`)) return undefined;
    }
    const full = dir === '' ? this.root : `${this.root}/${dir}`;
    let names: string[];
    try {
      names = (this.ctx.fs.readdirSync(full) as unknown[]).map(String);
    } catch (e) {
      const code = errnoCode(e);
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw e;
    }
    const out: LowerDirEntry[] = [];
    for (const name of names) {
      if (dir === '' && name === '.git') continue;
      const st = this.lstat(dir === '' ? name : `${dir}/${name}`);
      if (!st) continue;
      out.push({
        name,
        kind: st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other',
      });
    }
    return out;
  }
}

/** The lower layer of a bare repository: the draft's root tree. */
export class TreeLower implements LowerLayer {
  readonly kind = 'tree' as const;

  constructor(
    private readonly reader: TreeReader & { readBlob(oid: Oid): Buffer },
    private readonly root: Oid,
  ) {}

  read(path: string): LowerState {
    const k = lookupPath(this.reader, this.root, path);
    if (k.kind === 'dir') return { kind: 'dir' };
    if (k.kind === 'absent') return { kind: 'absent' };
    return { kind: 'file', mode: k.mode, oid: k.oid, content: () => this.reader.readBlob(k.oid) };
  }

  list(dir: string): LowerDirEntry[] | undefined {
    let oid = this.root;
    if (dir !== '') {
      const k = lookupPath(this.reader, this.root, dir);
      if (k.kind !== 'dir') return undefined;
      oid = k.oid;
    }
    return this.reader.readTree(oid).map((e) => ({
      name: e.name,
      kind: e.mode === MODE.tree || e.mode === '040000' ? 'dir' : e.mode === MODE.symlink ? 'symlink' : 'file',
    }));
  }
}
