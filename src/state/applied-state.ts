import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import type { Context } from '../context.js';
import { errnoCode, ShadowError } from '../errors.js';
import { draftDir } from './draft-meta.js';
import { ensureDir, fsyncDir, listDir, readTextIfExists, tryUnlink, writeFileAtomic } from '../durable/durable-file.js';
import { readJsonFile } from '../durable/json-file.js';
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

/** The file name of an apply's record: they sort oldest first. */
export function recordName(j: Journal): string {
  return `${j.created_at.replace(/[-:.]/g, '')}-${j.id}.json`;
}

/** The record files of a draft's applies directory, oldest first. */
function recordNames(ctx: Context, dir: string): string[] {
  return listDir(ctx.fs, dir)
    .filter((n) => n.endsWith('.json'))
    .sort();
}

function readRecord(ctx: Context, dir: string, name: string): ApplyRecord {
  // An I/O error reading it is not damage: it propagates as it is.
  const text = readTextIfExists(ctx.fs, `${dir}/${name}`) ?? '';
  let json: unknown;
  try {
    json = JSON.parse(text);
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
  return parsed.data;
}

/** The record of the apply with `id`, if the draft has it. */
export function findApply(ctx: Context, shadowDir: string, draft: string, id: string): ApplyRecord | undefined {
  const dir = appliesDir(shadowDir, draft);
  const name = recordNames(ctx, dir).find((n) => n.endsWith(`-${id}.json`));
  return name === undefined ? undefined : readRecord(ctx, dir, name);
}

/** What each path holds after a draft's publishes, laid over one another in order (null: absent). */
export type AppliedOverrides = Record<string, { mode: string; oid: string } | null>;

/** What a draft's apply records amount to. */
export interface AppliedState {
  /** The newest apply (what `unapply` reverses), if any. */
  last: ApplyRecord | undefined;
  /** Every apply's entries laid over one another, oldest first. */
  overrides: AppliedOverrides;
}

/**
 * `applies/fold.cache`: the records' overrides folded, keyed by the list of
 * record names it covers, and the fold of all but the newest. A cache (never
 * fsynced, checked against the directory on every read, rebuilt when it does
 * not match): it spares every command of a draft applied many times reading
 * every record. After an apply the new fold is the old one plus one record;
 * after an unapply, the fold of all but the newest.
 */
const FoldSchema = z.object({
  version: z.literal(1),
  key: z.string(),
  overrides: z.record(z.string(), z.nullable(z.object({ mode: z.string(), oid: z.string() }))),
  before: z.optional(
    z.object({
      key: z.string(),
      overrides: z.record(z.string(), z.nullable(z.object({ mode: z.string(), oid: z.string() }))),
    }),
  ),
});
type Fold = z.infer<typeof FoldSchema>;

const FOLD_FILE = 'fold.cache';

function keyOf(names: readonly string[]): string {
  return createHash('sha256').update(names.join('\n')).digest('hex');
}

function fold(base: AppliedOverrides, record: ApplyRecord): AppliedOverrides {
  const out = { ...base };
  // A merged path's base is the draft's entry, not the merge: the person's part of it stays theirs.
  for (const e of record.entries) out[e.path] = e.base !== undefined ? e.base : e.new;
  return out;
}

/**
 * The applied state of a draft: the newest record, and the overrides of all
 * of them, or with `after` (a record's name) of those newer than it only: a
 * rebase took in what the older ones wrote (drafts/rebase/rebase.ts). Reads one
 * record and the fold cache when the cache matches the directory (the usual
 * case), every record when it does not.
 */
export function readAppliedState(
  ctx: Context,
  shadowDir: string,
  draft: string,
  memo?: AppliedMemo,
  after?: string,
): AppliedState {
  const dir = appliesDir(shadowDir, draft);
  const all = recordNames(ctx, dir);
  if (all.length === 0) return { last: undefined, overrides: {} };
  const names = after === undefined ? all : all.filter((n) => n > after);
  if (names.length < all.length) {
    const last = readRecord(ctx, dir, all[all.length - 1]!);
    if (names.length === 0) return { last, overrides: {} };
    let overrides: AppliedOverrides = {};
    for (const name of names)
      overrides = fold(overrides, name === all[all.length - 1] ? last : readRecord(ctx, dir, name));
    return { last, overrides };
  }
  const key = keyOf(names);
  const known = memo?.get(draft);
  if (known?.key === key) return known.state;
  const state = readAppliedStateOf(ctx, dir, names, key);
  memo?.set(draft, { key, state });
  return state;
}

/**
 * Applied states a handle already read, by draft, under the key of the
 * record names they were read from. Records are never rewritten (each has
 * its own name; unapply removes one), so the names decide the state: a
 * handle re-reads nothing until an apply or unapply changes the directory.
 * The states are shared: read-only.
 */
export type AppliedMemo = Map<string, { key: string; state: AppliedState }>;

function readAppliedStateOf(ctx: Context, dir: string, names: readonly string[], key: string): AppliedState {
  const lastName = names[names.length - 1]!;
  const cached = readJsonFile(ctx.fs, `${dir}/${FOLD_FILE}`, FoldSchema);
  if (cached?.key === key) return { last: readRecord(ctx, dir, lastName), overrides: cached.overrides };
  const allButLast = keyOf(names.slice(0, -1));
  let before: Fold['before'];
  if (cached?.key === allButLast) before = { key: allButLast, overrides: cached.overrides };
  else if (cached?.before?.key === key) {
    // An unapply dropped the newest record: its fold was kept.
    const overrides = cached.before.overrides;
    writeFold(ctx, dir, { version: 1, key, overrides });
    return { last: readRecord(ctx, dir, lastName), overrides };
  } else {
    let acc: AppliedOverrides = {};
    for (const name of names.slice(0, -1)) acc = fold(acc, readRecord(ctx, dir, name));
    before = { key: allButLast, overrides: acc };
  }
  const last = readRecord(ctx, dir, lastName);
  const overrides = fold(before.overrides, last);
  writeFold(ctx, dir, { version: 1, key, overrides, before });
  return { last, overrides };
}

function writeFold(ctx: Context, dir: string, f: Fold): void {
  try {
    writeFileAtomic(ctx.fs, `${dir}/${FOLD_FILE}`, JSON.stringify(f), { token: ctx.ids.token(), durable: false });
  } catch {
    // A cache: a read-only directory only costs the next reader the records again.
  }
}

/** Turn a finished apply journal into the draft's newest apply record (one rename). */
export function recordApply(ctx: Context, shadowDir: string, journal: Journal): void {
  const dir = appliesDir(shadowDir, journal.draft);
  ensureDir(ctx.fs, dir);
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
