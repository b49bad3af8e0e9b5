/**
 * What every call of the library's handle stands on: the open workspace, the
 * context, and how a call finds its draft and its actor. `Shadow`
 * (src/shadow.ts) implements it; the calls of each capability (the other
 * files of this folder) are written against it, so none of them imports the
 * facade they are installed on.
 */
import type { Context } from '../context.js';
import type { Workspace } from '../drafts/workspace.js';
import { checkPath } from '../drafts/batch/batch-schema.js';
import type { Identity } from '../drafts/batch/identity.js';

/** Options every draft-scoped call takes. */
export interface DraftOption {
  /** The draft; default `SHADOW_DRAFT`, else `default`. */
  draft?: string;
}

export interface BatchCallOptions extends DraftOption {
  /** Who sends the batch; default the batch's own `actor`, `SHADOW_ACTOR`, git's `user.name`. */
  actor?: string;
  /** The model the actor runs (an AI); default the handle's, else `SHADOW_MODEL`. */
  model?: string;
  /** `ai` or `human`; default the handle's, else `SHADOW_ACTOR_TYPE`, else `ai` when a model is named. */
  actorType?: string;
  allowIgnored?: boolean;
  maxContentBytes?: number;
}

export interface ShadowCore {
  /** @internal The open repository and its caches. */
  readonly ws: Workspace;
  /** @internal */
  readonly ctx: Context;
  /** The draft a call works on: the option, else `SHADOW_DRAFT`, else `default`. */
  draftName(options?: DraftOption): string;
  /** `draftName`, where a remote draft (`origin/refactor`, read-only) is allowed too. */
  readDraftName(options?: DraftOption): string;
  /** Who acts: the option, else the batch's actor, `SHADOW_ACTOR`, git's `user.name`, `unknown`. */
  actor(explicit?: string, fromBatch?: string): string;
  /** A person or an AI, and its model: the options, else the handle's defaults (`useIdentity`), else the environment. */
  identity(options?: { model?: string; actorType?: string }): Identity;
}

/** A directory of the view as given by a person: `''`, `.`, `./src`, `src/`. */
export function viewDir(dir: string): string {
  const d = dir.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  return d === '' || d === '.' ? '' : checkPath(d);
}

/**
 * Put each group of calls on `target` (the facade's prototype) as class
 * methods are: not enumerable, writable, configurable.
 */
export function installCalls(target: object, ...groups: object[]): void {
  for (const group of groups) {
    for (const [name, d] of Object.entries(Object.getOwnPropertyDescriptors(group))) {
      Object.defineProperty(target, name, { ...d, enumerable: false });
    }
  }
}
