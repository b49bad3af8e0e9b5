import type { Context } from '../context.js';
import { statStamp } from '../durable/durable-file.js';
import { draftDir, type DraftMeta } from '../state/draft-meta.js';

/** A draft's metadata as a handle keeps it: ahead of its file by `lag`, valid while the file is as `stamp` says. */
interface Kept {
  meta: DraftMeta;
  /** Commits (and paths) the file on disk is behind `meta` (see META_LAG_LIMIT in drafts.ts). */
  lag: number;
  /** The file's stat stamp when it was last read or written here; undefined: never trusted again. */
  stamp: string | undefined;
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

  /**
   * The file's stamp now (`now`), and the stamp to keep for it when it is
   * read now (`trusted`): none when it changed too recently to tell a
   * second change by (see statStamp). A stamp kept while the file was not
   * racy can only be met again by the same file.
   */
  static stampOf(ctx: Context, shadowDir: string, draft: string): { now: string; trusted: string | undefined } {
    const s = statStamp(ctx.fs, `${draftDir(shadowDir, draft)}/draft.json`, ctx.clock.now());
    return { now: s.stamp, trusted: s.racy ? undefined : s.stamp };
  }

  /**
   * The stamp of the file this process has just written: trusted even
   * within the racy window, since a rewrite by anyone else renames a new
   * file (another inode) over it.
   */
  static writtenStamp(ctx: Context, shadowDir: string, draft: string): string | undefined {
    const s = statStamp(ctx.fs, `${draftDir(shadowDir, draft)}/draft.json`, ctx.clock.now()).stamp;
    return s === '-' ? undefined : s;
  }

  /** The entry of `draft` if the file still has `stamp`. */
  get(draft: string, stamp: string | undefined): { meta: DraftMeta; lag: number } | undefined {
    const k = this.kept.get(draft);
    return k !== undefined && k.stamp !== undefined && k.stamp === stamp ? k : undefined;
  }

  /** The lag of `draft`'s entry (0 when there is none). */
  lag(draft: string): number {
    return this.kept.get(draft)?.lag ?? 0;
  }

  set(draft: string, meta: DraftMeta, lag: number, stamp: string | undefined): void {
    this.kept.set(draft, { meta, lag, stamp });
  }

  /** Keep `meta`, `lag` ahead of a file that has not changed since the entry was made. */
  advance(draft: string, meta: DraftMeta, lag: number): void {
    this.kept.set(draft, { meta, lag, stamp: this.kept.get(draft)?.stamp });
  }

  delete(draft: string): void {
    this.kept.delete(draft);
  }
}
