import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import type { Context } from '../context.js';
import { ShadowError } from '../errors.js';
import { parentDirs } from '../core/path-rules.js';
import type { FileEntry } from './format/tree-lookup.js';

/**
 * git's index (versions 2 and 3), read and written for `apply --commit` and
 * `--squash`: only the entries of published paths change; every other entry
 * keeps its bytes (flags such as skip-worktree and intent-to-add included).
 * Extensions: the cache tree is kept with the changed paths invalidated,
 * resolve-undo is kept, caches that could hide the change (fsmonitor,
 * untracked cache) and offset tables are dropped, as git itself may do; a
 * required extension shadow does not know (sparse index) is refused.
 */

interface IndexEntry {
  path: string;
  stage: number;
  /** The entry's bytes as read, or undefined for an entry shadow made. */
  raw?: Buffer;
  oid: string;
  mode: number;
  stat?: Stats;
}

interface Extension {
  signature: string;
  data: Buffer;
}

export interface GitIndex {
  version: number;
  entries: IndexEntry[];
  extensions: Extension[];
}

function unsupported(message: string): ShadowError {
  return new ShadowError('UNSUPPORTED_REPOSITORY', message, {
    hint: 'rewrite the index with `git update-index --index-version 3` (and turn off sparse index or split index)',
  });
}

/** Parse an index file. */
export function parseIndex(buf: Buffer): GitIndex {
  if (buf.length < 32 || buf.toString('latin1', 0, 4) !== 'DIRC')
    throw unsupported('the index file is not a git index');
  const version = buf.readUInt32BE(4);
  if (version !== 2 && version !== 3) throw unsupported(`index version ${version} is not supported`);
  const count = buf.readUInt32BE(8);
  const entries: IndexEntry[] = [];
  let p = 12;
  for (let i = 0; i < count; i++) {
    const flags = buf.readUInt16BE(p + 60);
    const extended = version >= 3 && (flags & 0x4000) !== 0;
    const fixed = 62 + (extended ? 2 : 0);
    let nameLength = flags & 0xfff;
    if (nameLength === 0xfff) nameLength = buf.indexOf(0, p + fixed) - (p + fixed);
    const size = (fixed + nameLength + 8) & ~7;
    entries.push({
      path: buf.toString('utf8', p + fixed, p + fixed + nameLength),
      stage: (flags >> 12) & 3,
      raw: buf.subarray(p, p + size),
      oid: buf.toString('hex', p + 40, p + 60),
      mode: buf.readUInt32BE(p + 24),
    });
    p += size;
  }
  const extensions: Extension[] = [];
  const end = buf.length - 20;
  while (p + 8 <= end) {
    const signature = buf.toString('latin1', p, p + 4);
    const size = buf.readUInt32BE(p + 4);
    extensions.push({ signature, data: buf.subarray(p + 8, p + 8 + size) });
    p += 8 + size;
  }
  for (const e of extensions) {
    if (e.signature === 'sdir') throw unsupported('this repository uses a sparse index, which shadow does not support');
    if (e.signature === 'link') throw unsupported('this repository uses a split index, which shadow does not support');
    if (/^[a-z]/.test(e.signature))
      throw unsupported(`the index needs the extension "${e.signature}", which shadow does not know`);
  }
  return { version, entries, extensions };
}

function comparePaths(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The stage-0 entry of `path` as `{mode, oid}`, or null. */
export function indexEntry(index: GitIndex, path: string): FileEntry | null {
  const e = index.entries.find((x) => x.path === path && x.stage === 0);
  return e ? { mode: e.mode.toString(8), oid: e.oid } : null;
}

/** True when `path` has unmerged (conflict) entries. */
export function isUnmerged(index: GitIndex, path: string): boolean {
  return index.entries.some((x) => x.path === path && x.stage > 0);
}

/**
 * Set (or, with `entry` null, remove) the entry of each path. `stat` gives
 * the working-tree file's stat data so that git sees it clean without
 * hashing it again (undefined: zero stat, so git re-hashes).
 */
export function updateIndex(
  index: GitIndex,
  changes: ReadonlyArray<{ path: string; entry: FileEntry | null; stat?: Stats }>,
): void {
  const byPath = new Map(changes.map((c) => [c.path, c]));
  const kept = index.entries.filter((e) => !byPath.has(e.path));
  for (const c of changes) {
    if (c.entry) kept.push({ path: c.path, stage: 0, oid: c.entry.oid, mode: parseInt(c.entry.mode, 8), stat: c.stat });
  }
  kept.sort((a, b) => comparePaths(a.path, b.path) || a.stage - b.stage);
  index.entries = kept;
  invalidateCacheTree(
    index,
    changes.map((c) => c.path),
  );
  index.extensions = index.extensions.filter((e) => e.signature === 'TREE' || e.signature === 'REUC');
}

function encodeEntry(e: IndexEntry): Buffer {
  if (e.raw) return e.raw;
  const name = Buffer.from(e.path, 'utf8');
  const size = (62 + name.length + 8) & ~7;
  const b = Buffer.alloc(size);
  const st = e.stat;
  const secs = (ms: number): number => Math.floor(ms / 1000) >>> 0;
  const nanos = (ms: number): number => Math.round((ms % 1000) * 1e6) >>> 0;
  if (st) {
    b.writeUInt32BE(secs(Number(st.ctimeMs)), 0);
    b.writeUInt32BE(nanos(Number(st.ctimeMs)), 4);
    b.writeUInt32BE(secs(Number(st.mtimeMs)), 8);
    b.writeUInt32BE(nanos(Number(st.mtimeMs)), 12);
    b.writeUInt32BE(Number(st.dev) >>> 0, 16);
    b.writeUInt32BE(Number(st.ino) >>> 0, 20);
    b.writeUInt32BE(Number(st.uid) >>> 0, 28);
    b.writeUInt32BE(Number(st.gid) >>> 0, 32);
    b.writeUInt32BE(Number(st.size) >>> 0, 36);
  }
  b.writeUInt32BE(e.mode, 24);
  b.write(e.oid, 40, 'hex');
  b.writeUInt16BE(Math.min(name.length, 0xfff), 60);
  name.copy(b, 62);
  return b;
}

/** Serialize (version kept; a version-3 index without extended entries stays valid). */
export function serializeIndex(index: GitIndex): Buffer {
  const head = Buffer.alloc(12);
  head.write('DIRC', 0, 'latin1');
  head.writeUInt32BE(index.version, 4);
  head.writeUInt32BE(index.entries.length, 8);
  const parts: Buffer[] = [head, ...index.entries.map(encodeEntry)];
  for (const e of index.extensions) {
    const h = Buffer.alloc(8);
    h.write(e.signature, 0, 'latin1');
    h.writeUInt32BE(e.data.length, 4);
    parts.push(h, e.data);
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

/** Mark the cache-tree nodes on the way to each changed path as invalid (git recomputes them). */
function invalidateCacheTree(index: GitIndex, paths: readonly string[]): void {
  const ext = index.extensions.find((e) => e.signature === 'TREE');
  if (!ext) return;
  const dirty = new Set<string>(['']);
  for (const p of paths) for (const d of parentDirs(p)) dirty.add(d);
  const out: Buffer[] = [];
  let pos = 0;
  const data = ext.data;
  const walk = (prefix: string): void => {
    const nul = data.indexOf(0, pos);
    const name = data.toString('utf8', pos, nul);
    const nl = data.indexOf(0x0a, nul);
    const [countText, subText] = data.toString('latin1', nul + 1, nl).split(' ');
    let count = Number(countText);
    const subtrees = Number(subText);
    pos = nl + 1;
    const path = prefix === '' ? name : name === '' ? prefix : `${prefix}/${name}`;
    let oid: Buffer | undefined;
    if (count >= 0) {
      oid = data.subarray(pos, pos + 20);
      pos += 20;
    }
    if (dirty.has(path)) {
      count = -1;
      oid = undefined;
    }
    out.push(Buffer.from(`${name}\0${count} ${subtrees}\n`, 'utf8'));
    if (oid) out.push(oid);
    for (let i = 0; i < subtrees; i++) walk(path);
  };
  walk('');
  ext.data = Buffer.concat(out);
}

/** Read the index at `path` (an empty one when there is none). */
export function readIndex(ctx: Context, path: string): GitIndex {
  let buf: Buffer;
  try {
    buf = ctx.fs.readFileSync(path) as Buffer;
  } catch {
    return { version: 2, entries: [], extensions: [] };
  }
  return parseIndex(buf);
}
