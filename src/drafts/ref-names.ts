/**
 * Names of shadow's refs, and the rules a draft or checkpoint name follows:
 * exactly one component that `git check-ref-format` accepts.
 */

import { refComponentProblem } from '../core/ref-component.js';

export const DRAFTS_PREFIX = 'refs/shadow/drafts/';
export const CHECKPOINTS_PREFIX = 'refs/shadow/checkpoints/';
export const ARCHIVE_PREFIX = 'refs/shadow/archive/';
export const PROPOSALS_PREFIX = 'refs/shadow/proposals/';
/** What an apply's merges wrote and replaced, kept reachable for unapply (publish/merge-record.ts). */
export const MERGES_PREFIX = 'refs/shadow/merges/';

export const AUTO_CHECKPOINT_PREFIX = 'auto-';

export const draftRef = (draft: string): string => `${DRAFTS_PREFIX}${draft}`;
export const checkpointRef = (draft: string, name: string): string => `${CHECKPOINTS_PREFIX}${draft}/${name}`;
export const checkpointsPrefix = (draft: string): string => `${CHECKPOINTS_PREFIX}${draft}/`;
export const proposalRef = (draft: string): string => `${PROPOSALS_PREFIX}${draft}`;
export const mergesRef = (draft: string): string => `${MERGES_PREFIX}${draft}`;

/** Why `name` may not be a checkpoint name, or undefined. */
export function checkpointNameProblem(name: string): string | undefined {
  const problem = refComponentProblem(name);
  if (problem) return problem;
  if (/^\d+$/.test(name)) return 'it is a plain number, which `shadow rollback` reads as a batch number';
  return undefined;
}
