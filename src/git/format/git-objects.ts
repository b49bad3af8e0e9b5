import { createHash } from 'node:crypto';
import { ShadowError } from '../../errors.js';

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

/** A git object id: 40 lowercase hex digits (SHA-1). */
export type Oid = string;

export const EMPTY_TREE_OID = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
export const ZERO_OID = '0000000000000000000000000000000000000000';

/** Git's file modes, as written in trees. */
export const MODE = {
  file: '100644',
  executable: '100755',
  symlink: '120000',
  tree: '40000',
  gitlink: '160000',
} as const;

/** The header git hashes in front of an object's content. */
export function objectHeader(type: ObjectType, length: number): Buffer {
  return Buffer.from(`${type} ${length}\0`, 'latin1');
}

/** The id git gives an object of `type` with `content`. */
export function hashObject(type: ObjectType, content: Uint8Array): Oid {
  return createHash('sha1').update(objectHeader(type, content.length)).update(content).digest('hex');
}

/** The blob id of `bytes`, as `git hash-object` gives it. */
export function blobOid(bytes: Uint8Array): string {
  return hashObject('blob', bytes);
}

/** True for a full 40-hex object id. */
export function isOid(s: string): boolean {
  return s.length === 40 && /^[0-9a-f]{40}$/.test(s);
}

// ---------------------------------------------------------------- trees

/** One entry of a tree. `nameBytes` keeps a name that is not valid UTF-8 byte-exact. */
export interface TreeEntry {
  mode: string;
  name: string;
  oid: Oid;
  nameBytes?: Buffer;
}

export function isTreeMode(mode: string): boolean {
  return mode === MODE.tree || mode === '040000';
}

// ignoreBOM: a leading U+FEFF is part of the name, not a mark to drop (a tree may name `\ufeff.git`).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A byte that is not ASCII, in a string decoded as latin1 (one character a byte). */
const NOT_ASCII = /[\x80-\xff]/;

/** The mode text as one of the MODE constants when it is one (one string each, for comparison and memory). */
function knownMode(text: string): string {
  return text === MODE.file
    ? MODE.file
    : text === MODE.tree
      ? MODE.tree
      : text === MODE.executable
        ? MODE.executable
        : text;
}

/**
 * Parse a tree object's content.
 *
 * The content is decoded twice as a whole (as latin1, one character a byte,
 * and as hex) and each entry cut from those strings: a tree of 100 entries
 * parses in one fifth of the time that decoding each name and id on its own
 * took in a process that has just started (where a one-shot command spends
 * its life), as each Buffer decoding call goes through several functions
 * not yet compiled. The strings cut keep the decoded text alive as long as
 * the entries live: about half again the memory of the parsed tree.
 */
export function parseTree(content: Buffer, oid = '?'): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const text = content.toString('latin1');
  const hex = content.toString('hex');
  const end = text.length;
  let i = 0;
  while (i < end) {
    const space = text.indexOf(' ', i);
    const nul = space === -1 ? -1 : text.indexOf('\0', space + 1);
    if (space === -1 || nul === -1 || nul + 21 > end) {
      throw new ShadowError('CORRUPT_OBJECT', `tree ${oid} is malformed at byte ${i}`, {
        hint: 'run `git fsck` to inspect the repository',
        data: { oid },
      });
    }
    const entry: TreeEntry = {
      mode: knownMode(text.slice(i, space)),
      name: text.slice(space + 1, nul),
      oid: hex.slice(2 * nul + 2, 2 * nul + 42),
    };
    if (NOT_ASCII.test(entry.name)) {
      const raw = content.subarray(space + 1, nul);
      try {
        entry.name = utf8.decode(raw);
      } catch {
        // A name that is not UTF-8 cannot be addressed by a shadow path, but it
        // must survive a rewrite of its tree unchanged.
        entry.nameBytes = Buffer.from(raw);
      }
    }
    entries.push(entry);
    i = nul + 21;
  }
  return entries;
}

function nameBuffer(e: TreeEntry): Buffer {
  return e.nameBytes ?? Buffer.from(e.name, 'utf8');
}

/**
 * Git's tree order: names compared as bytes, a tree's name as if it ended
 * in `/`.
 */
export function compareTreeEntries(a: TreeEntry, b: TreeEntry): number {
  return compareTreeNames(a.name, isTreeMode(a.mode), b.name, isTreeMode(b.mode), a.nameBytes, b.nameBytes);
}

function isSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit < 0xe000;
}

/**
 * Compare two entry names in git's tree order (the sign is what counts).
 * Names without raw bytes are compared as UTF-16 code units up to their
 * first difference: for characters of the Basic Multilingual Plane that is
 * UTF-8's byte order too, so only a difference at a surrogate (a character
 * past U+FFFF) needs the names encoded.
 */
export function compareTreeNames(
  a: string,
  aIsTree: boolean,
  b: string,
  bIsTree: boolean,
  aBytes?: Buffer,
  bBytes?: Buffer,
): number {
  if (!aBytes && !bBytes) {
    const n = Math.min(a.length, b.length);
    let i = 0;
    while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
    const ca = i < a.length ? a.charCodeAt(i) : aIsTree ? 0x2f : 0;
    const cb = i < b.length ? b.charCodeAt(i) : bIsTree ? 0x2f : 0;
    if (!isSurrogate(ca) && !isSurrogate(cb)) return ca - cb;
  }
  const ab = aBytes ?? Buffer.from(a, 'utf8');
  const bb = bBytes ?? Buffer.from(b, 'utf8');
  const n = Math.min(ab.length, bb.length);
  const d = Buffer.compare(ab.subarray(0, n), bb.subarray(0, n));
  if (d !== 0) return d;
  const ca = ab.length > n ? ab[n]! : aIsTree ? 0x2f : 0;
  const cb = bb.length > n ? bb[n]! : bIsTree ? 0x2f : 0;
  return ca - cb;
}

/** Hex digit values by character code (-1: not a lowercase hex digit). */
const HEX_VALUES = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let i = 0; i < 10; i++) t[0x30 + i] = i;
  for (let i = 0; i < 6; i++) t[0x61 + i] = 10 + i;
  return t;
})();

function badOid(oid: string): ShadowError {
  return new ShadowError(
    'CORRUPT_OBJECT',
    `a tree entry has the object id "${oid}", which is not 40 lowercase hex digits`,
    { data: { oid } },
  );
}

/** Length in UTF-8 of `s` when it is ASCII, else -1. */
function asciiLength(s: string): number {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return -1;
  return s.length;
}

/**
 * Serialize tree entries; they must already be in git's order. One
 * allocation, and ASCII names, modes and ids written byte by byte: a
 * `Buffer.write` per field cost twice as much on a tree of 200 entries.
 */
export function serializeTree(entries: readonly TreeEntry[]): Buffer {
  const names: Array<Buffer | undefined> = new Array(entries.length);
  let size = 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    let length = e.nameBytes ? -1 : asciiLength(e.name);
    if (length === -1) {
      const bytes = nameBuffer(e);
      names[i] = bytes;
      length = bytes.length;
    }
    size += (e.mode === '040000' ? 5 : e.mode.length) + 1 + length + 1 + 20;
  }
  const out = Buffer.allocUnsafe(size);
  let p = 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const mode = e.mode === '040000' ? MODE.tree : e.mode;
    for (let k = 0; k < mode.length; k++) out[p++] = mode.charCodeAt(k);
    out[p++] = 0x20;
    const bytes = names[i];
    if (bytes) p += bytes.copy(out, p);
    else for (let k = 0; k < e.name.length; k++) out[p++] = e.name.charCodeAt(k);
    out[p++] = 0;
    const oid = e.oid;
    if (oid.length !== 40) throw badOid(oid);
    for (let k = 0; k < 40; k += 2) {
      const hi = HEX_VALUES[oid.charCodeAt(k) & 0x7f]!;
      const lo = HEX_VALUES[oid.charCodeAt(k + 1) & 0x7f]!;
      if ((hi | lo) < 0 || (oid.charCodeAt(k) | oid.charCodeAt(k + 1)) > 0x7f) throw badOid(oid);
      out[p++] = (hi << 4) | lo;
    }
  }
  return out;
}

// ---------------------------------------------------------------- identities

/** A git identity with its time. */
export interface Signature {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** Offset from UTC in minutes, east positive. */
  tzOffset: number;
}

/** Names and emails may not hold `<`, `>` or line breaks in a git header. */
export function sanitizeIdentPart(s: string): string {
  return s.replace(/[<>\0\n\r]/g, '').trim();
}

function formatTz(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

export function formatSignature(s: Signature): string {
  return `${sanitizeIdentPart(s.name) || 'unknown'} <${sanitizeIdentPart(s.email)}> ${s.timestamp} ${formatTz(s.tzOffset)}`;
}

export function parseSignature(line: string): Signature {
  const m = /^(.*?) ?<([^>]*)> (\d+) ([+-])(\d\d)(\d\d)$/.exec(line);
  if (!m) return { name: line, email: '', timestamp: 0, tzOffset: 0 };
  const tz = (Number(m[5]) * 60 + Number(m[6])) * (m[4] === '-' ? -1 : 1);
  return { name: m[1]!, email: m[2]!, timestamp: Number(m[3]), tzOffset: tz };
}

// ---------------------------------------------------------------- commits

export interface Commit {
  tree: Oid;
  parents: Oid[];
  author: Signature;
  committer: Signature;
  message: string;
}

export function serializeCommit(c: Commit): Buffer {
  let s = `tree ${c.tree}\n`;
  for (const p of c.parents) s += `parent ${p}\n`;
  s += `author ${formatSignature(c.author)}\ncommitter ${formatSignature(c.committer)}\n\n${c.message}`;
  return Buffer.from(s, 'utf8');
}

/** Parse a commit object; unknown headers (gpgsig, encoding, …) are skipped. */
export function parseCommit(content: Buffer, oid = '?'): Commit {
  const text = content.toString('utf8');
  const split = text.indexOf('\n\n');
  const head = split === -1 ? text : text.slice(0, split);
  const message = split === -1 ? '' : text.slice(split + 2);
  let tree: string | undefined;
  const parents: string[] = [];
  let author: Signature | undefined;
  let committer: Signature | undefined;
  for (const line of head.split('\n')) {
    if (line.startsWith(' ')) continue; // continuation of a multi-line header
    const sp = line.indexOf(' ');
    const key = line.slice(0, sp);
    const value = line.slice(sp + 1);
    if (key === 'tree') tree = value;
    else if (key === 'parent') parents.push(value);
    else if (key === 'author') author = parseSignature(value);
    else if (key === 'committer') committer = parseSignature(value);
  }
  if (!tree || !isOid(tree)) {
    throw new ShadowError('CORRUPT_OBJECT', `commit ${oid} has no tree`, { hint: 'run `git fsck`', data: { oid } });
  }
  const none: Signature = { name: '', email: '', timestamp: 0, tzOffset: 0 };
  return { tree, parents, author: author ?? none, committer: committer ?? author ?? none, message };
}

// ---------------------------------------------------------------- tags

export interface Tag {
  object: Oid;
  type: ObjectType;
  tag: string;
  tagger: Signature;
  message: string;
}

export function serializeTag(t: Tag): Buffer {
  return Buffer.from(
    `object ${t.object}\ntype ${t.type}\ntag ${t.tag}\ntagger ${formatSignature(t.tagger)}\n\n${t.message}`,
    'utf8',
  );
}

export function parseTag(content: Buffer, oid = '?'): Tag {
  const text = content.toString('utf8');
  const split = text.indexOf('\n\n');
  const head = split === -1 ? text : text.slice(0, split);
  const fields = new Map<string, string>();
  for (const line of head.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp > 0 && !fields.has(line.slice(0, sp))) fields.set(line.slice(0, sp), line.slice(sp + 1));
  }
  const object = fields.get('object');
  if (!object || !isOid(object)) {
    throw new ShadowError('CORRUPT_OBJECT', `tag ${oid} has no object`, { hint: 'run `git fsck`', data: { oid } });
  }
  return {
    object,
    type: (fields.get('type') ?? 'commit') as ObjectType,
    tag: fields.get('tag') ?? '',
    tagger: parseSignature(fields.get('tagger') ?? ''),
    message: split === -1 ? '' : text.slice(split + 2),
  };
}
