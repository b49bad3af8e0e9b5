import { ShadowError } from '../../errors.js';
import { pathProblem } from '../../core/path-rules.js';
import { parseCodexPatch, type PatchHunk } from './codex-patch.js';

/**
 * The `apply_patch` op's patch as the batch needs it before anything
 * resolves: parsed once per op, and the paths it names, which captures,
 * submodule checks and the race with other writers work on like any op's
 * paths. A patch that does not parse names no path; resolution reports it.
 */

/** What an apply_patch op carries (ops.ts has the full type; this file needs only the text). */
interface PatchCarrier {
  patch: string;
}

const parsed = new WeakMap<PatchCarrier, PatchHunk[] | ShadowError>();

/**
 * A path as the patch names it, made a repository path: Codex reads paths
 * from the current directory, so `./src/a.ts` is `src/a.ts` (the root is
 * shadow's current directory).
 */
export function patchPath(path: string): string {
  let p = path;
  while (p.startsWith('./')) p = p.slice(2);
  return p;
}

/** The op's file sections; INVALID_PATCH (the same error each time) when its patch does not parse. */
export function patchHunks(op: PatchCarrier): PatchHunk[] {
  let p = parsed.get(op);
  if (p === undefined) {
    try {
      p = parseCodexPatch(op.patch);
    } catch (e) {
      if (!(e instanceof ShadowError)) throw e;
      p = e;
    }
    parsed.set(op, p);
  }
  if (p instanceof ShadowError) throw p;
  return p;
}

/** Every repository path the op's patch names (valid ones only), in order, each once; none when it does not parse. */
export function patchPaths(op: PatchCarrier): string[] {
  let hunks: PatchHunk[];
  try {
    hunks = patchHunks(op);
  } catch {
    return [];
  }
  const out = new Set<string>();
  for (const h of hunks) {
    for (const p of h.type === 'update' && h.moveTo !== undefined ? [h.path, h.moveTo] : [h.path]) {
      const path = patchPath(p);
      if (pathProblem(path) === undefined) out.add(path);
    }
  }
  return [...out];
}

/**
 * Whether the patch only edits `path` in place or moves it (an Update File
 * section): such a change merges with another writer's like a patch op, by
 * its context. One that adds or deletes the path assumed what was there.
 */
export function patchOnlyUpdates(op: PatchCarrier, path: string): boolean {
  let hunks: PatchHunk[];
  try {
    hunks = patchHunks(op);
  } catch {
    return false;
  }
  let updated = false;
  for (const h of hunks) {
    if (h.type === 'update' && patchPath(h.path) === path) updated = true;
    else if (
      patchPath(h.path) === path ||
      (h.type === 'update' && h.moveTo !== undefined && patchPath(h.moveTo) === path)
    )
      return false;
  }
  return updated;
}
