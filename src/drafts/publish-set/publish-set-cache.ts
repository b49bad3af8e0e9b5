import type { Context } from '../../context.js';
import type { PublishEntry } from './publish-set.js';
import type { FileEntry } from '../../git/format/tree-lookup.js';
import { draftDir } from '../../state/draft-meta.js';
import { readTextIfExists, writeFileAtomic } from '../../durable/durable-file.js';

/**
 * `shadow/drafts/<draft>/publish.cache`: a draft's last large publish set,
 * under a key made of the tip and the bases it was computed from. Finding
 * the set looks each touched path up in the tip's trees: for a thousand
 * paths, hundreds of trees read and parsed by every new process. With the
 * cache, a review, dry run or apply of an unchanged draft reads one file.
 *
 * A cache: written without fsync, used only under its exact key, and any
 * line that does not parse means it is ignored. One line per entry,
 * `path TAB old TAB new`, each side `<mode> <oid>` or `-`: the format is
 * parsed by hand, as zod takes ten times longer than the lookups it saves
 * over a thousand entries.
 */

const HEADER = 'shadow publish set 1';
const SIDE = /^(\d{6}) ([0-9a-f]{40})$/;

function cachePath(shadowDir: string, draft: string): string {
  return `${draftDir(shadowDir, draft)}/publish.cache`;
}

function side(e: FileEntry | null): string {
  return e === null ? '-' : `${e.mode} ${e.oid}`;
}

function parseSide(text: string): FileEntry | null | undefined {
  if (text === '-') return null;
  const m = SIDE.exec(text);
  return m ? { mode: m[1]!, oid: m[2]! } : undefined;
}

/** The set saved under `key`, or undefined (none, another key, or a damaged file). */
export function readPublishSet(
  ctx: Context,
  shadowDir: string,
  draft: string,
  key: string,
): PublishEntry[] | undefined {
  const text = readTextIfExists(ctx.fs, cachePath(shadowDir, draft));
  if (text === undefined || !text.endsWith('\n')) return undefined;
  const lines = text.slice(0, -1).split('\n');
  if (lines[0] !== HEADER || lines[1] !== key) return undefined;
  const out: PublishEntry[] = [];
  for (let i = 2; i < lines.length; i++) {
    const [path, o, n, extra] = lines[i]!.split('\t');
    if (!path || o === undefined || n === undefined || extra !== undefined) return undefined;
    const old = parseSide(o);
    const next = parseSide(n);
    if (old === undefined || next === undefined) return undefined;
    out.push({ path, old, new: next });
  }
  return out;
}

/** Save `entries` under `key`, replacing the last set; a failure to write is ignored. */
export function savePublishSet(
  ctx: Context,
  shadowDir: string,
  draft: string,
  key: string,
  entries: readonly PublishEntry[],
): void {
  // A path holding a tab or a newline cannot be written in this format: such a set is not cached.
  if (entries.some((e) => /[\t\n]/.test(e.path))) return;
  const lines = [HEADER, key, ...entries.map((e) => `${e.path}\t${side(e.old)}\t${side(e.new)}`)];
  try {
    writeFileAtomic(ctx.fs, cachePath(shadowDir, draft), `${lines.join('\n')}\n`, {
      token: ctx.ids.token(),
      durable: false,
    });
  } catch {
    // A read-only .git, a full disk: the cache is only ever an optimisation.
  }
}
