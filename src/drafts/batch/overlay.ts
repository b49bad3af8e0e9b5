import { isTreeMode } from '../../git/format/git-objects.js';
import { parentDirs } from '../../core/path-rules.js';
import { lookupPath, type FileEntry, type PathKind, type TreeReader } from '../../git/format/tree-lookup.js';

/**
 * A tree with pending changes on top: what the ops of a batch see while it
 * resolves, in memory. Changes map file paths to a new entry or `null`
 * (deleted); directories exist implicitly, as in git.
 */
export class Overlay {
  private readonly entries = new Map<string, FileEntry | null>();
  /**
   * Per directory (`''` the root): how many changed paths lie below it, and
   * how many of those are files now. Kept as paths are set, so asking
   * whether a directory still holds something costs O(depth), not a scan of
   * every change (which made a batch of many new files quadratic).
   */
  private readonly below = new Map<string, { changed: number; files: number }>();

  constructor(
    private readonly reader: TreeReader,
    private readonly root: string,
  ) {}

  /** What `path` names now. */
  get(path: string): PathKind {
    for (const dir of parentDirs(path)) {
      const c = this.entries.get(dir);
      if (c) return { kind: 'absent', blockedBy: dir };
    }
    if (this.entries.has(path)) {
      const c = this.entries.get(path);
      if (c) return { kind: 'file', mode: c.mode, oid: c.oid };
      return this.hasChangedDescendant(path) ? { kind: 'dir', oid: '' } : { kind: 'absent' };
    }
    const base = lookupPath(this.reader, this.root, path);
    if (base.kind === 'absent' && base.blockedBy !== undefined) {
      // The blocking file may have been deleted or replaced in this batch.
      if (this.entries.has(base.blockedBy)) {
        return this.hasChangedDescendant(path) ? { kind: 'dir', oid: '' } : { kind: 'absent' };
      }
      return base;
    }
    if (base.kind === 'dir') return this.dirHasContent(path, base.oid) ? base : { kind: 'absent' };
    if (base.kind === 'absent') return this.hasChangedDescendant(path) ? { kind: 'dir', oid: '' } : base;
    return base;
  }

  /** The nearest ancestor of `path` that is now a file, if any. */
  fileAncestor(path: string): string | undefined {
    for (const dir of parentDirs(path)) {
      const k = this.get(dir);
      if (k.kind === 'file') return dir;
      if (k.kind === 'absent') return undefined;
    }
    return undefined;
  }

  /** The pending changes: each file path, its new entry or null (deleted). */
  get changes(): ReadonlyMap<string, FileEntry | null> {
    return this.entries;
  }

  set(path: string, entry: FileEntry | null): void {
    this.unset(path);
    this.entries.set(path, entry);
    this.count(path, 1, entry !== null);
  }

  /** Forget any pending change of `path` (the base shows through again). */
  unset(path: string): void {
    if (!this.entries.has(path)) return;
    const was = this.entries.get(path);
    this.entries.delete(path);
    this.count(path, -1, was !== null);
  }

  private count(path: string, by: 1 | -1, file: boolean): void {
    for (const dir of ['', ...parentDirs(path)]) {
      let c = this.below.get(dir);
      if (!c) this.below.set(dir, (c = { changed: 0, files: 0 }));
      c.changed += by;
      if (file) c.files += by;
    }
  }

  private hasChangedDescendant(dir: string): boolean {
    return (this.below.get(dir)?.files ?? 0) > 0;
  }

  /** A directory of the base tree still holds something unless every file under it was deleted. */
  private dirHasContent(dir: string, oid: string): boolean {
    if (this.hasChangedDescendant(dir)) return true;
    // Nothing below changed at all: the base's content stands.
    if ((this.below.get(dir)?.changed ?? 0) === 0) return true;
    for (const e of this.reader.readTree(oid)) {
      const child = `${dir}/${e.name}`;
      if (isTreeMode(e.mode)) {
        if (this.dirHasContent(child, e.oid)) return true;
      } else if (this.entries.get(child) !== null) {
        return true;
      }
    }
    return false;
  }
}
