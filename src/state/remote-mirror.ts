/**
 * A draft fetched from a remote (`origin/refactor`) has no files of its own
 * here: its metadata, ledger and proposal travel as git objects, the tree
 * of the commit `refs/shadow/remotes/<remote>/meta/<draft>` points to
 * (written by `shadow push`, remotes/meta-snapshot.ts). This module unpacks
 * that tree into the remote draft's directory, where every reader of a
 * draft finds them (draftDir), and records which snapshot it unpacked
 * (`snapshot`), so a fetch killed between its refs and this unpacking, or a
 * plain `git fetch`, is caught up by the next reader. The files are a cache
 * of the ref: deleting them loses nothing.
 */
import type { Context } from '../context.js';
import { discardDir } from '../durable/discard-dir.js';
import { listDir, readTextIfExists, tryUnlink, writeFileAtomic } from '../durable/durable-file.js';
import type { Oid } from '../git/format/git-objects.js';
import type { ObjectDatabase } from '../git/object-db.js';
import { draftDir } from './draft-meta.js';

/** The files of a snapshot's tree: what a draft is besides its commits. */
export const SNAPSHOT_FILES = ['draft.json', 'events.jsonl', 'proposal.json'] as const;

/** The file naming the snapshot a remote draft's directory holds. */
const MARKER = 'snapshot';

/**
 * Bring remote draft `name`'s directory to the snapshot `meta` (undefined:
 * none was fetched; the metadata is then rebuilt from the commits, with an
 * empty ledger). A no-op when it already holds it.
 */
export function unpackSnapshot(
  ctx: Context,
  shadowDir: string,
  objects: ObjectDatabase,
  name: string,
  meta: Oid | undefined,
): void {
  const dir = draftDir(shadowDir, name);
  const want = meta ?? 'none';
  if (readTextIfExists(ctx.fs, `${dir}/${MARKER}`)?.trim() === want) return;
  const entries = meta === undefined ? [] : objects.readTree(objects.readCommit(meta).tree);
  for (const file of SNAPSHOT_FILES) {
    const entry = entries.find((e) => e.name === file);
    if (!entry) {
      tryUnlink(ctx.fs, `${dir}/${file}`);
      continue;
    }
    let bytes: Buffer | string = objects.readBlob(entry.oid);
    if (file === 'draft.json') {
      // Read here under its remote name (its directory and caches are the remote draft's), and tied to no worktree of this machine.
      const json = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      bytes = `${JSON.stringify({ ...json, name, worktree: null }, null, 1)}\n`;
    }
    writeFileAtomic(ctx.fs, `${dir}/${file}`, bytes, { token: ctx.ids.token(), durable: false });
  }
  writeFileAtomic(ctx.fs, `${dir}/${MARKER}`, `${want}\n`, { token: ctx.ids.token(), durable: false });
}

/**
 * Remove the directories of remote `remote`'s drafts that have no fetched
 * ref any more (`fetched`: the draft names that do), as a fetch that pruned
 * them leaves them, or a plain `git fetch --prune`, or a fetch killed
 * before it got here. Returns the names removed.
 */
export function pruneMirrors(ctx: Context, shadowDir: string, remote: string, fetched: ReadonlySet<string>): string[] {
  const dir = `${shadowDir}/remotes/${remote}/drafts`;
  const gone = listDir(ctx.fs, dir).filter((name) => !fetched.has(name));
  for (const name of gone) discardDir(ctx, shadowDir, `${dir}/${name}`);
  return gone;
}
