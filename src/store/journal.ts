import * as z from 'zod/mini';
import type { Context } from '../context.js';
import { fsyncDir, listDir, tryUnlink, writeFileAtomic } from './durable-file.js';
import { readJsonFile } from './json-file.js';

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
  /** The draft tip that was published (for unapply: the tip of the apply it reverses). */
  tip: z.string(),
  created_at: z.string(),
  actor: z.string(),
  /** Each path, what the working tree held before, what it holds after. */
  entries: z.array(z.object({ path: z.string(), old: Entry, new: Entry })),
  /** A branch to move once the files are written (`apply --commit` / `--squash`). */
  branch: z.optional(z.object({ ref: z.string(), old: z.nullable(z.string()), new: z.string() })),
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

/** Write a journal durably (file and directory fsynced). */
export function writeJournal(ctx: Context, shadowDir: string, journal: Journal): void {
  writeFileAtomic(ctx.fs, `${journalDir(shadowDir)}/${journal.id}.json`, `${JSON.stringify(journal)}\n`, { token: ctx.ids.token(), durable: true });
}

/** The journals left behind, oldest first; unreadable ones are reported separately. */
export function readJournals(ctx: Context, shadowDir: string): { journals: Journal[]; unreadable: string[] } {
  const dir = journalDir(shadowDir);
  const journals: Journal[] = [];
  const unreadable: string[] = [];
  for (const name of listDir(ctx.fs, dir).sort()) {
    if (!name.endsWith('.json')) {
      // A temporary file of a journal that was never completed: nothing was written after it.
      if (name.includes('.tmp-')) tryUnlink(ctx.fs, `${dir}/${name}`);
      continue;
    }
    const parsed = readJsonFile(ctx.fs, `${dir}/${name}`, JournalSchema);
    if (parsed) journals.push(parsed);
    else unreadable.push(`${dir}/${name}`);
  }
  journals.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  return { journals, unreadable };
}

/** True when any journal (or leftover) is waiting: a cheap check for every command's start. */
export function hasJournals(ctx: Context, shadowDir: string): boolean {
  return listDir(ctx.fs, journalDir(shadowDir)).length > 0;
}

/** Remove a finished journal, durably. */
export function removeJournal(ctx: Context, shadowDir: string, id: string): void {
  tryUnlink(ctx.fs, `${journalDir(shadowDir)}/${id}.json`);
  fsyncDir(ctx.fs, journalDir(shadowDir));
}
