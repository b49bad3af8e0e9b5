import type { Context } from '../context.js';
import { statStamp } from '../durable/durable-file.js';
import { draftDir, type DraftMeta } from '../state/draft-meta.js';

/** A draft's metadata as a handle keeps it: ahead of its file by `lag`, valid while the file is as `stamp` says. */
interface Kept {
  meta: DraftMeta;
  /** Commits (and paths) the file on disk is behind `meta` (see META_LAG_LIMIT in drafts.ts). */
  lag: number;
  /** The file's stat stamp when it was last read or written here ('-': there was none). */
  stamp: string;
}

/**
 * Draft metadata by draft name, kept between the calls of one handle, or of
 * every handle a process opens on one repository (SharedCaches). An entry
 * is used only while the draft's ref is at the entry's `bases_tip` (drafts.ts
 * checks) and while `draft.json` is the very file it was read from or
 * written as: another process (or handle) that rewrites the file, a proposal
 * or an import without a move of the ref, makes the next load read it again.
 */
export class DraftMetaCache {
  private readonly kept = new Map<string, Kept>();
  /** Metadata for a tip the ref is being moved to (expect): a load meanwhile finds it once the ref is there. */
  private readonly expected = new Map<string, { meta: DraftMeta; lag: number }>();

  /**
   * The file's stamp now: inode, size and times ('-' when missing). Trusted
   * even within statStamp's racy window: every writer of draft.json
   * (writeFileAtomic) renames a new file over it, whose inode differs from
   * the one it replaces, so a rewrite changes the stamp however soon it
   * comes.
   */
  static stampOf(ctx: Context, shadowDir: string, draft: string): string {
    return statStamp(ctx.fs, `${draftDir(shadowDir, draft)}/draft.json`, ctx.clock.now()).stamp;
  }

  /** The entry of `draft` for the ref at `tip`, if the file still has `stamp`. */
  get(draft: string, stamp: string, tip: string): { meta: DraftMeta; lag: number } | undefined {
    const k = this.kept.get(draft);
    if (k === undefined || k.stamp !== stamp) return undefined;
    if (k.meta.bases_tip === tip) return k;
    const e = this.expected.get(draft);
    return e !== undefined && e.meta.bases_tip === tip ? e : undefined;
  }

  /**
   * `meta`, `lag` ahead of the file, will be the draft's once its ref has
   * moved to `meta.bases_tip` (a commit in flight, whose ref moves before
   * the move is durable and `advance` is called): loads in between find it.
   * `expect(draft)` alone forgets it (the move failed).
   */
  expect(draft: string, next?: { meta: DraftMeta; lag: number }): void {
    if (next === undefined) this.expected.delete(draft);
    else this.expected.set(draft, next);
  }

  /** The lag of `draft`'s entry (0 when there is none). */
  lag(draft: string): number {
    return this.kept.get(draft)?.lag ?? 0;
  }

  set(draft: string, meta: DraftMeta, lag: number, stamp: string): void {
    this.kept.set(draft, { meta, lag, stamp });
    this.arrived(draft, meta);
  }

  /** Keep `meta`, `lag` ahead of a file that has not changed since the entry was made. */
  advance(draft: string, meta: DraftMeta, lag: number): void {
    this.kept.set(draft, { meta, lag, stamp: this.kept.get(draft)?.stamp ?? '' });
    this.arrived(draft, meta);
  }

  /** The expected entry is kept now (a load met the moved ref first): no longer expected. */
  private arrived(draft: string, meta: DraftMeta): void {
    if (this.expected.get(draft)?.meta.bases_tip === meta.bases_tip) this.expected.delete(draft);
  }

  delete(draft: string): void {
    this.kept.delete(draft);
    this.expected.delete(draft);
  }

  /** The entries ahead of their files, with the stamp of the file each is ahead of. */
  lagging(): Array<{ draft: string; meta: DraftMeta; lag: number; stamp: string }> {
    return [...this.kept].filter(([, k]) => k.lag > 0).map(([draft, k]) => ({ draft, ...k }));
  }
}
