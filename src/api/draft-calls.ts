/**
 * The library's calls on drafts as wholes: create, list, show, drop, and
 * their checkpoints, rollback and undo (src/drafts/).
 */
import * as z from 'zod/mini';
import {
  createCheckpoint,
  listCheckpoints,
  rollback,
  undo,
  type CheckpointInfo,
  type RefMove,
} from '../drafts/history/checkpoints.js';
import { createDraft, listDrafts, loadDraft, requireDraft, type DraftSummary } from '../drafts/drafts.js';
import { dropDraft } from '../drafts/draft-drop.js';
import { validate } from '../drafts/batch/batch-schema.js';
import { execDirOf, execRecordAt, removeExecWorktree } from '../worktrees/worktree-exec.js';
import type { DraftOption, ShadowCore } from './shadow-core.js';

const DraftOptionSchema = z.optional(z.object({ draft: z.optional(z.string()) }));

/** A draft as `draftShow` describes it. */
export type DraftDetail = DraftSummary & { checkpoints: CheckpointInfo[]; from: string; created_by: string };

export interface DraftCalls {
  /** @example await sh.draftNew('refactor', { from: 'main' }) */
  draftNew(name?: string, options?: { from?: string; actor?: string }): Promise<DraftDetail>;

  /** @example for (const d of await sh.draftList()) console.log(d.name) */
  draftList(): Promise<DraftSummary[]>;

  /** @example const d = await sh.draftShow({ draft: 'default' }) */
  draftShow(options?: DraftOption): Promise<DraftDetail>;

  /** @example await sh.draftDrop('experiment') // kept under refs/shadow/archive/ */
  draftDrop(name: string, options?: { purge?: boolean; actor?: string }): Promise<{ draft: string; archive?: string }>;

  /** Whether a draft exists. */
  hasDraft(options?: DraftOption): Promise<boolean>;

  /** @example await sh.checkpoint('before-refactor', { message: 'tests green' }) */
  checkpoint(name: string, options?: DraftOption & { message?: string; actor?: string }): Promise<CheckpointInfo>;

  /** @example const cps = await sh.checkpoints() */
  checkpoints(options?: DraftOption): Promise<CheckpointInfo[]>;

  /** @example await sh.rollback('before-refactor') // or '~2', '3', a commit */
  rollback(target: string, options?: DraftOption & { actor?: string }): Promise<RefMove>;

  /** @example await sh.undo() // reverses the last batch, rollback or undo */
  undo(options?: DraftOption & { actor?: string }): Promise<RefMove & { undid: string }>;
}

export const draftCalls: DraftCalls & ThisType<ShadowCore & DraftCalls> = {
  async draftNew(name, options = {}) {
    const draftName = this.draftName({ draft: name });
    const { importRemoteDraft, isFetchedDraft } = await import('../drafts/draft-import.js');
    if (isFetchedDraft(this.ws, options.from)) {
      await importRemoteDraft(this.ws, draftName, options.from, this.actor(options.actor));
      return this.draftShow({ draft: draftName });
    }
    await createDraft(this.ws, draftName, { from: options.from, actor: this.actor(options.actor) });
    return this.draftShow({ draft: draftName });
  },

  async draftList() {
    return listDrafts(this.ws);
  },

  async draftShow(options) {
    validate(DraftOptionSchema, options, 'INVALID_ARGUMENT', 'the options');
    const name = this.readDraftName(options);
    const d = requireDraft(this.ws, name);
    const summary = listDrafts(this.ws).find((s) => s.name === name)!;
    return {
      ...summary,
      checkpoints: listCheckpoints(this.ws, name),
      from: d.meta.from,
      created_by: d.meta.created_by,
    };
  },

  async draftDrop(name, options = {}) {
    this.draftName({ draft: name });
    const dropped = await dropDraft(this.ws, name, { purge: options.purge ?? false, actor: this.actor(options.actor) });
    // Its exec worktree shows a draft that is gone: deleted, and unregistered from git.
    const exec = this.ws.repo.layout.worktree === null ? undefined : execRecordAt(this.ws, execDirOf(this.ws, name));
    if (exec) removeExecWorktree(this.ws, exec);
    return { draft: name, ...dropped };
  },

  async hasDraft(options) {
    return loadDraft(this.ws, this.readDraftName(options)) !== undefined;
  },

  async checkpoint(name, options = {}) {
    return createCheckpoint(this.ws, this.draftName(options), name, this.actor(options.actor), options.message);
  },

  async checkpoints(options) {
    const name = this.readDraftName(options);
    requireDraft(this.ws, name);
    return listCheckpoints(this.ws, name);
  },

  async rollback(target, options) {
    return rollback(this.ws, this.draftName(options), target, this.actor(options?.actor));
  },

  async undo(options) {
    return undo(this.ws, this.draftName(options), this.actor(options?.actor));
  },
};
