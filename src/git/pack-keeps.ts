import type { Context, FileSystem } from '../context.js';
import { readTextIfExists, statIfExists, tryUnlink } from '../durable/durable-file.js';

/** What a shadow `.keep` says, for whoever finds one a crash left: the pack may be repacked once no shadow runs. */
const KEEP_TEXT = 'shadow: kept until the ref naming these objects has moved\n';

/**
 * `.keep` files of the packs a handle wrote whose objects no ref may name
 * yet. `git gc --prune=now` repacks every pack it may and drops what no ref
 * reaches: a batch's new pack, between its rename and its ref's move, would
 * lose its objects. git leaves a kept pack alone. A keep is made before the
 * pack is renamed into place (git never sees the pack unkept) and is not
 * fsynced: it matters only while the writer runs.
 */
export class PackKeeps {
  private readonly keeps = new Set<string>();

  constructor(private readonly fs: FileSystem) {}

  private keepOf(idx: string): string {
    return `${idx.slice(0, -'.idx'.length)}.keep`;
  }

  /** Keep the pack whose index will be `idx`. */
  keep(idx: string): void {
    const path = this.keepOf(idx);
    this.fs.writeFileSync(path, KEEP_TEXT);
    this.keeps.add(path);
  }

  /** Let git repack the pack of `idx`. */
  release(idx: string): void {
    const path = this.keepOf(idx);
    if (this.keeps.delete(path)) tryUnlink(this.fs, path);
  }

  releaseAll(): void {
    for (const path of this.keeps) tryUnlink(this.fs, path);
    this.keeps.clear();
  }
}

/**
 * Whether the `.keep` at `path` is one a shadow process left that no
 * process can still need: shadow's own (by what it says), made before this
 * machine last started. Removed then, and the pack is git's and shadow's to
 * repack again. Any other keep (a person's, git's) stands.
 */
export function dropStaleKeep(ctx: Context, path: string): boolean {
  const boot = ctx.processes?.bootTime;
  if (boot === undefined) return false;
  const st = statIfExists(ctx.fs, path);
  if (!st || Number(st.mtimeMs) >= boot || readTextIfExists(ctx.fs, path) !== KEEP_TEXT) return false;
  return tryUnlink(ctx.fs, path);
}
