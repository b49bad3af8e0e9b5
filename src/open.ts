import * as z from 'zod/mini';
import type {
  Clock,
  Context,
  Env,
  FileSystem,
  GitRunner,
  Ids,
  PackMerger,
  Processes,
  ProgramRunner,
} from './context.js';
import { ShadowError } from './errors.js';
import { Workspace } from './drafts/workspace.js';
import type { SharedCaches } from './drafts/shared-caches.js';
import { validate } from './drafts/batch/batch-schema.js';
import { Shadow } from './shadow.js';
import { hasJournals } from './state/journal.js';

/** Options of `openShadow`: where, and the side effects (all optional but `dir`). */
export interface OpenOptions {
  /** An absolute path inside the repository. */
  dir: string;
  fs?: FileSystem;
  clock?: Clock;
  ids?: Ids;
  env?: Env;
  processes?: Processes;
  /** Native git, for filter drivers, `ident` and encodings; defaults to git on the PATH with node's fs, none with another. */
  git?: GitRunner;
  /** Other programs (ssh-keygen, for signed approvals); defaults to the PATH with node's fs, none with another. */
  programs?: ProgramRunner;
  /** Caches shared with the process's other handles on the repository (a server's handed-off calls); none by default. */
  shared?: SharedCaches;
  /**
   * Where a serving handle merges packs: a PackMergeThread runs merges on a
   * worker thread, off the event loop. Default: the one `shared` carries,
   * else none (merges run in steps on the event loop).
   */
  packMerger?: PackMerger;
}

const OpenSchema = z.object({
  dir: z.string().check(z.refine((d) => d.startsWith('/'), 'must be an absolute path')),
});

/**
 * Open the repository containing `dir`. The context defaults to the real
 * process (node's fs, the system clock, `process.env`); tests pass a memfs
 * volume and a fixed clock.
 *
 * @example
 * import { openShadow } from 'shadow-drafts';
 * const sh = await openShadow({ dir: process.cwd() });
 * await sh.batch({ operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] });
 */
export async function openShadow(options: OpenOptions): Promise<Shadow> {
  validate(OpenSchema, { dir: options.dir }, 'INVALID_ARGUMENT', 'openShadow options');
  let ctx: Context;
  if (options.fs && options.clock && options.ids && options.env) {
    ctx = {
      fs: options.fs,
      clock: options.clock,
      ids: options.ids,
      env: options.env,
      processes: options.processes,
      git: options.git,
      programs: options.programs,
    };
  } else {
    const { nodeContext } = await import('./node-context.js');
    const base = nodeContext();
    ctx = {
      fs: options.fs ?? base.fs,
      clock: options.clock ?? base.clock,
      ids: options.ids ?? base.ids,
      env: options.env ?? base.env,
      processes: options.processes ?? (options.fs ? undefined : base.processes),
      git: options.git ?? (options.fs ? undefined : base.git),
      programs: options.programs ?? (options.fs ? undefined : base.programs),
    };
  }
  const packMerger = options.packMerger ?? options.shared?.packMerger;
  if (packMerger) ctx.packMerger = packMerger;
  const ws = Workspace.open(ctx, options.dir, options.shared);
  const sh = Shadow.create(ws, ctx);
  // Every command first finishes an apply a crash interrupted. An apply that
  // is running now (its lock held by a live process) is not interrupted.
  if (ws.repo.layout.worktree !== null && hasJournals(ctx, ws.repo.shadowDir)) {
    try {
      const { recover } = await import('./publish/apply.js');
      sh.recovered = await recover(ws);
    } catch (e) {
      if (!(e instanceof ShadowError && e.code === 'LOCKED')) throw e;
    }
  }
  return sh;
}
