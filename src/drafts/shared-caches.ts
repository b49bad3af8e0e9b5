import type { PackMerger } from '../context.js';
import { parsedObjects, type ParsedObjects } from '../git/object-caches.js';
import { DraftMetaCache } from './draft-meta-cache.js';

/** What the handles of one process on one repository share. */
export interface RepositoryCaches {
  readonly parsed: ParsedObjects;
  readonly drafts: DraftMetaCache;
}

/**
 * Caches that the handles one process opens may share, by repository (its
 * common git dir): parsed trees and commits, which never change, and draft
 * metadata, which is used only while the draft's ref and `draft.json` are
 * as they were when it was kept (DraftMetaCache). A server that runs each
 * handed-off command on a handle of its own passes one to every
 * `openShadow`: a call then starts where the one before it left, not from
 * the file and the history.
 *
 * It may also carry the process's PackMergeThread, which every handle
 * opened with it then merges packs on.
 *
 * @example
 * const shared = new SharedCaches({ packMerger: new PackMergeThread() });
 * const sh = await openShadow({ dir, shared });
 */
export class SharedCaches {
  private readonly repos = new Map<string, RepositoryCaches>();
  readonly packMerger: PackMerger | undefined;

  constructor(options: { packMerger?: PackMerger } = {}) {
    this.packMerger = options.packMerger;
  }

  /** @internal The caches of the repository whose common git dir is `commondir` (read by `openShadow`). */
  of(commondir: string): RepositoryCaches {
    let r = this.repos.get(commondir);
    if (r === undefined) {
      r = { parsed: parsedObjects(), drafts: new DraftMetaCache() };
      this.repos.set(commondir, r);
    }
    return r;
  }
}
