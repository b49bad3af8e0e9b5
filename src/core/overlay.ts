import { isTreeMode } from './git-objects.js';
import { isInside, parentDirs } from './path-rules.js';
import { lookupPath, type FileEntry, type PathKind, type TreeReader } from './tree-lookup.js';

/**
 * A tree with pending changes on top: what the ops of a batch see while it
 * resolves, in memory. Changes map file paths to a new entry or `null`
 * (deleted); directories exist implicitly, as in git.
 */
export class Overlay {
  readonly changes = new Map<string, FileEntry | null>();

  constructor(
    private readonly reader: TreeReader,
    private readonly root: string,
  ) {}

  /** What `path` names now. */
  get(path: string): PathKind {
    for (const dir of parentDirs(path)) {
      const c = this.changes.get(dir);
      if (c) return { kind: 'absent', blockedBy: dir };
    }
    if (this.changes.has(path)) {
      const c = this.changes.get(path);
      if (c) return { kind: 'file', mode: c.mode, oid: c.oid };
      return this.hasChangedDescendant(path) ? { kind: 'dir', oid: '' } : { kind: 'absent' };
    }
    const base = lookupPath(this.reader, this.root, path);
    if (base.kind === 'absent' && base.blockedBy !== undefined) {
      // The blocking file may have been deleted or replaced in this batch.
      if (this.changes.has(base.blockedBy)) {
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

  set(path: string, entry: FileEntry | null): void {
    this.changes.set(path, entry);
  }

  private hasChangedDescendant(dir: string): boolean {
    for (const [p, e] of this.changes) if (e && isInside(p, dir)) return true;
    return false;
  }

  /** A directory of the base tree still holds something unless every file under it was deleted. */
  private dirHasContent(dir: string, oid: string): boolean {
    if (this.hasChangedDescendant(dir)) return true;
    let anyDeletion = false;
    for (const p of this.changes.keys()) {
      if (isInside(p, dir)) {
        anyDeletion = true;
        break;
      }
    }
    if (!anyDeletion) return true;
    for (const e of this.reader.readTree(oid)) {
      const child = `${dir}/${e.name}`;
      if (isTreeMode(e.mode)) {
        if (this.dirHasContent(child, e.oid)) return true;
      } else if (this.changes.get(child) !== null) {
        return true;
      }
    }
    return false;
  }
}
