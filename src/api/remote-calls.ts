/**
 * The library's calls for sharing drafts through git remotes (src/remotes/):
 * push, fetch, and the drafts fetched. They load on their first call.
 */
import type { DraftSummary } from '../drafts/drafts.js';
import type { FetchResult } from '../remotes/fetch.js';
import type { PushResult } from '../remotes/push.js';
import type { PullResult } from '../remotes/pull.js';
import type { ShadowCore } from './shadow-core.js';

export interface RemoteCalls {
  /**
   * Push drafts (default: the current one) to a remote (default `origin`):
   * their refs, checkpoints, proposal and a snapshot of their metadata and
   * ledger, in one atomic `git push` leased against the last fetch.
   *
   * @example await sh.push({ remote: 'origin', drafts: ['refactor'] })
   */
  push(options?: { remote?: string; drafts?: string[]; all?: boolean }): Promise<PushResult>;

  /**
   * Fetch every draft of a remote (default `origin`) to
   * `refs/shadow/remotes/<remote>/`; each is then read as `<remote>/<draft>`.
   *
   * @example await sh.fetch({ remote: 'origin' }); await sh.review({ draft: 'origin/refactor' })
   */
  fetch(options?: { remote?: string }): Promise<FetchResult>;

  /**
   * Fetch, then bring local drafts (default: every one the remote has too)
   * up to the remote's: a fast-forward when the remote is ahead, and the
   * remote's ledger joined (its denies take effect here, its approvals when signed);
   * DIVERGED, nothing changed, when both moved.
   *
   * @example await sh.pull({ remote: 'origin', drafts: ['refactor'] })
   */
  pull(options?: { remote?: string; drafts?: string[]; actor?: string }): Promise<PullResult>;

  /** @example for (const d of await sh.remoteDrafts()) console.log(d.name) // origin/refactor */
  remoteDrafts(options?: { remote?: string }): Promise<DraftSummary[]>;
}

export const remoteCalls: RemoteCalls & ThisType<ShadowCore & RemoteCalls> = {
  async push(options = {}) {
    const { pushDrafts } = await import('../remotes/push.js');
    const { listDrafts } = await import('../drafts/drafts.js');
    const drafts = options.all
      ? listDrafts(this.ws).map((d) => d.name)
      : (options.drafts?.length ? options.drafts : [undefined]).map((d) => this.draftName({ draft: d }));
    return pushDrafts(this.ws, options.remote ?? 'origin', drafts);
  },

  async fetch(options = {}) {
    const { fetchDrafts } = await import('../remotes/fetch.js');
    return fetchDrafts(this.ws, options.remote ?? 'origin');
  },

  async pull(options = {}) {
    const { pullDrafts } = await import('../remotes/pull.js');
    // Not draftName(): a fetched name is refused by pull itself, with the command that does what was meant.
    return pullDrafts(
      this.ws,
      options.remote ?? 'origin',
      options.drafts?.length ? options.drafts : undefined,
      this.actor(options.actor),
    );
  },

  async remoteDrafts(options = {}) {
    const { listRemoteDrafts } = await import('../drafts/drafts.js');
    if (options.remote !== undefined) {
      const { checkRemote } = await import('../remotes/remote-git.js');
      checkRemote(this.ws, options.remote);
    }
    return listRemoteDrafts(this.ws, options.remote);
  },
};
