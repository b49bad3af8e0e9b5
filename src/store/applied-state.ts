import type { Context } from '../context.js';
import { errnoCode, ShadowError } from '../errors.js';
import { draftDir } from './draft-meta.js';
import { fsyncDir, listDir, readTextIfExists, tryUnlink } from './durable-file.js';
import { journalDir, JournalSchema, type Journal } from './journal.js';

/**
 * `shadow/drafts/<draft>/applies/`: what each publish of a draft wrote into
 * the working tree, one record a file, named so that they sort oldest first.
 * A record is the publish's own redo journal, renamed here once every path is
 * written: completing a publish costs one rename, and there is no file that
 * grows with every apply. Unlike draft.json (a cache rebuilt from the
 * commits) these records are state: what `shadow unapply` puts back, and what
 * the draft's bases become.
 */

export type ApplyRecord = Journal;

function appliesDir(shadowDir: string, draft: string): string {
  return `${draftDir(shadowDir, draft)}/applies`;
}

function recordName(j: Journal): string {
  return `${j.created_at.replace(/[-:.]/g, '')}-${j.id}.json`;
}

/** The publishes of a draft, oldest first (none when it was never applied). */
export function readApplies(ctx: Context, shadowDir: string, draft: string): ApplyRecord[] {
  const dir = appliesDir(shadowDir, draft);
  const out: ApplyRecord[] = [];
  for (const name of listDir(ctx.fs, dir).sort()) {
    if (!name.endsWith('.json')) continue;
    let json: unknown;
    try {
      json = JSON.parse(readTextIfExists(ctx.fs, `${dir}/${name}`) ?? '');
    } catch {
      json = undefined;
    }
    const parsed = JournalSchema.safeParse(json);
    if (!parsed.success) {
      throw new ShadowError('CORRUPT_STATE', `${dir}/${name} is damaged`, {
        hint: 'it records what an apply wrote; restore it, or remove it to forget that apply (its paths fall back to their captured bases)',
        data: { path: `${dir}/${name}` },
      });
    }
    out.push(parsed.data);
  }
  return out;
}

/** Turn a finished apply journal into the draft's newest apply record (one rename). */
export function recordApply(ctx: Context, shadowDir: string, journal: Journal): void {
  const dir = appliesDir(shadowDir, journal.draft);
  ctx.fs.mkdirSync(dir, { recursive: true });
  const from = `${journalDir(shadowDir)}/${journal.id}.json`;
  try {
    ctx.fs.renameSync(from, `${dir}/${recordName(journal)}`);
  } catch (e) {
    // Already moved by an earlier, interrupted run of the same journal.
    if (errnoCode(e) !== 'ENOENT') throw e;
  }
  // Not fsynced: the files it records are durable already, and should the
  // rename be lost in a crash, the journal is back in its place: recovery
  // carries it out again, finds every path already written, and records it
  // once more. (An unapply's journal fsyncs the journal directory before it
  // drops this record, so a journal it reverted never comes back.)
}

/** Forget an apply (after unapply put its paths back). */
export function dropApply(ctx: Context, shadowDir: string, record: ApplyRecord): void {
  const dir = appliesDir(shadowDir, record.draft);
  tryUnlink(ctx.fs, `${dir}/${recordName(record)}`);
  fsyncDir(ctx.fs, dir);
}
