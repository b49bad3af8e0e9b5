import * as z from 'zod/mini';
import type { Context } from '../context.js';
import {
  ensureDir,
  fsyncConcurrently,
  fsyncDir,
  fsyncDirs,
  listDir,
  readTextIfExists,
  tryUnlink,
  writeAll,
  writeFileAtomic,
} from '../durable/durable-file.js';
import { readJsonFile } from '../durable/json-file.js';

/**
 * Redo journals of publishes (`shadow/journal/<id>.json`). A journal is
 * written and fsynced before the first write to the working tree and removed
 * after the last one, so a crash anywhere in between leaves it behind for
 * recovery to finish from the blobs in git.
 */

const Entry = z.nullable(z.object({ mode: z.string(), oid: z.string() }));

export const JournalSchema = z.object({
  version: z.literal(1),
  id: z.string(),
  kind: z.enum(['apply', 'unapply']),
  /** For an unapply: the id of the apply it reverses. */
  reverts: z.optional(z.string()),
  /** The draft's status when the publish began (for the ledger's tx/status events). */
  status_before: z.optional(z.string()),
  draft: z.string(),
  /**
   * The git dir of the worktree the journal writes into. Journals live in
   * the common dir, which every worktree shares: recovery in one worktree
   * must never replay another's. Absent in journals of older versions.
   */
  worktree: z.optional(z.nullable(z.string())),
  /** The draft tip that was published (for unapply: the tip of the apply it reverses). */
  tip: z.string(),
  created_at: z.string(),
  actor: z.string(),
  /**
   * Each path, what the working tree held before, what it holds after; and
   * for a path apply merged (the person had changed it), `base`: the
   * draft's own entry there, which becomes the path's base, while `new` is
   * the merge written.
   */
  entries: z.array(z.object({ path: z.string(), old: Entry, new: Entry, base: z.optional(Entry) })),
  /**
   * A branch to move once the files are written (`apply --commit` / `--squash`),
   * with the message of its reflog lines.
   */
  branch: z.optional(
    z.object({
      ref: z.string(),
      old: z.nullable(z.string()),
      new: z.string(),
      reflog: z.optional(z.string()),
      /** How it moves (for its Agent Trace notes); absent in journals of older versions. */
      how: z.optional(z.enum(['fast-forward', 'replay', 'squash'])),
    }),
  ),
  /**
   * Index entries to set once the files are written (`--commit`/`--squash`),
   * and the ones they replace (so unapply can put them back).
   */
  index: z.optional(
    z.object({
      set: z.array(z.object({ path: z.string(), entry: Entry })),
      before: z.array(z.object({ path: z.string(), entry: Entry })),
    }),
  ),
});

export type Journal = z.infer<typeof JournalSchema>;

export function journalDir(shadowDir: string): string {
  return `${shadowDir}/journal`;
}

function journalText(journal: Journal): string {
  return `${JSON.stringify(journal)}\n`;
}

/**
 * Create a publish's journal, durably, before its first write: the file is
 * made under its own name (no temporary file and rename), and its content
 * and its directory entry are fsynced together. A crash before both are on
 * disk leaves at most a torn journal (it lacks the newline that ends it),
 * and nothing was written after it: recovery drops it.
 */
export async function createJournal(ctx: Context, shadowDir: string, journal: Journal): Promise<void> {
  const dir = journalDir(shadowDir);
  ensureDir(ctx.fs, dir);
  const path = `${dir}/${journal.id}.json`;
  const fd = ctx.fs.openSync(path, 'wx', 0o644);
  try {
    writeAll(ctx.fs, fd, Buffer.from(journalText(journal), 'utf8'));
    const content = fsyncConcurrently(ctx.fs, fd);
    content.catch(() => undefined); // awaited below, with the directory's
    await Promise.all([content, fsyncDirs(ctx.fs, [dir])]);
  } catch (e) {
    ctx.fs.closeSync(fd);
    tryUnlink(ctx.fs, path);
    throw e;
  }
  ctx.fs.closeSync(fd);
}

/** Replace a journal durably (a recovery narrows one to the paths it could write). */
export function rewriteJournal(ctx: Context, shadowDir: string, journal: Journal): void {
  writeFileAtomic(ctx.fs, `${journalDir(shadowDir)}/${journal.id}.json`, journalText(journal), {
    token: ctx.ids.token(),
    durable: true,
  });
}

/**
 * The journals left behind, oldest first; unreadable ones are reported
 * separately. With `dropTorn` (only under the apply lock, where no journal
 * can be in the making), the leftovers of journals whose creation a crash
 * cut short are removed: nothing was written after them.
 */
export function readJournals(
  ctx: Context,
  shadowDir: string,
  options: { dropTorn?: boolean } = {},
): { journals: Journal[]; unreadable: string[] } {
  const dir = journalDir(shadowDir);
  const journals: Journal[] = [];
  const unreadable: string[] = [];
  for (const name of listDir(ctx.fs, dir).sort()) {
    const path = `${dir}/${name}`;
    if (!name.endsWith('.json')) {
      // The temporary file of a rewrite that never completed: the journal it was to replace stands.
      if (options.dropTorn && name.includes('.tmp-')) tryUnlink(ctx.fs, path);
      continue;
    }
    const parsed = readJsonFile(ctx.fs, path, JournalSchema);
    if (parsed) journals.push(parsed);
    else if (options.dropTorn && isTorn(ctx, path)) tryUnlink(ctx.fs, path);
    else unreadable.push(path);
  }
  journals.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  return { journals, unreadable };
}

/** True when any journal (or leftover) is waiting: a cheap check for every command's start. */
export function hasJournals(ctx: Context, shadowDir: string): boolean {
  return listDir(ctx.fs, journalDir(shadowDir)).length > 0;
}

/**
 * A journal cut short while it was created: empty, or without the newline
 * its single write ends with. (One damaged later still ends with it, and is
 * reported as unreadable instead.)
 */
function isTorn(ctx: Context, path: string): boolean {
  const text = readTextIfExists(ctx.fs, path);
  return text !== undefined && !text.endsWith('\n');
}

/**
 * Remove a finished journal. Not fsynced: should the removal be lost in a
 * crash, recovery carries the journal out again, finds every path already
 * done, and closes it once more. `durable` for a journal whose publish never
 * started: it must not come back and be carried out.
 */
export function removeJournal(ctx: Context, shadowDir: string, id: string, durable = false): void {
  tryUnlink(ctx.fs, `${journalDir(shadowDir)}/${id}.json`);
  if (durable) fsyncDir(ctx.fs, journalDir(shadowDir));
}
