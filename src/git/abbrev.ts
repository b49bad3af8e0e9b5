import { ShadowError } from '../errors.js';
import type { Oid } from './format/git-objects.js';

/**
 * Object ids abbreviated as git abbreviates them (object-name.c,
 * `find_unique_abbrev`): to a length that grows with the repository, then
 * longer where another object shares the prefix. `git diff` writes its
 * `index` lines so: 7 hex digits in a small repository, 9 in one of 100,000
 * packed objects.
 */

/** git's shortest abbreviation (`MINIMUM_ABBREV`), and the one a small repository gets (`FALLBACK_DEFAULT_ABBREV`). */
const MINIMUM = 4;
const FALLBACK = 7;
const HEX = 40;

/**
 * The length git starts from when `core.abbrev` is unset or `auto`: enough
 * hex digits (4 bits each) for half the bits of the number of packed
 * objects, as a collision is expected at the square root of it; at least 7.
 * git counts the objects of the pack indexes only (repo_approximate_object_count).
 *
 * @example autoAbbrev(5000); // 7
 * @example autoAbbrev(110000); // 9: 2^16 <= 110,000 < 2^17, 17 bits, 9 hex digits
 */
export function autoAbbrev(packedObjects: number): number {
  const bits = packedObjects > 0 ? Math.floor(Math.log2(packedObjects)) + 1 : 1;
  return Math.max(FALLBACK, Math.ceil(bits / 2));
}

/**
 * The length `core.abbrev` asks for: `auto` (or unset), a number from 4 to
 * 40, or a false value for whole ids, as git reads it; anything else is
 * refused as git refuses it.
 */
export function configuredAbbrev(value: string | undefined): number | 'auto' {
  if (value === undefined || value.toLowerCase() === 'auto') return 'auto';
  if (['', 'false', 'no', 'off'].includes(value.toLowerCase())) return HEX;
  const m = /^\s*(-?\d+)\s*$/.exec(value);
  const n = m ? Number(m[1]) : NaN;
  if (!Number.isInteger(n) || n < MINIMUM || n > HEX) {
    throw new ShadowError('INVALID_ARGUMENT', `abbrev length out of range: core.abbrev is "${value}"`, {
      hint: `set it to auto, a number from ${MINIMUM} to ${HEX}, or no (\`git config core.abbrev auto\`)`,
      data: { name: 'core.abbrev', value },
    });
  }
  return n;
}

/** How many leading hex digits two ids share; `b` is 20 bytes at `at` of `bytes`. */
function sharedHex(a: Buffer, bytes: Buffer, at: number): number {
  for (let i = 0; i < 20; i++) {
    const x = a[i]! ^ bytes[at + i]!;
    if (x !== 0) return 2 * i + (x & 0xf0 ? 0 : 1);
  }
  return HEX;
}

/**
 * The longest hex prefix `oid` shares with another id of a sorted list (20
 * bytes each): one of its two neighbours has it, as git's
 * find_abbrev_len_for_pack looks.
 */
function sharedInSorted(key: Buffer, ids: Buffer): number {
  let a = 0;
  let b = ids.length / 20 - 1;
  while (a <= b) {
    const mid = (a + b) >> 1;
    const c = key.compare(ids, mid * 20, mid * 20 + 20);
    if (c === 0) {
      a = mid;
      b = mid;
      break;
    }
    if (c > 0) a = mid + 1;
    else b = mid - 1;
  }
  // `a` is where the key is or would go; its neighbours are around it, itself left out.
  let shared = 0;
  for (const i of [a - 1, a, a + 1]) {
    if (i < 0 || i >= ids.length / 20 || key.compare(ids, i * 20, i * 20 + 20) === 0) continue;
    shared = Math.max(shared, sharedHex(key, ids, i * 20));
  }
  return shared;
}

/** What an abbreviator reads of a repository's objects (ObjectDatabase.abbrevSource). */
export interface AbbrevSource {
  idsStartingWith(first: number): { packed: Buffer[]; loose: string[] };
}

/**
 * A function that abbreviates ids to `length` hex digits, or longer until
 * no other object of `objects` starts the same (git's
 * find_unique_abbrev, for an id the repository has and for one it does
 * not: a submodule's commit, the zero id). Each first byte's ids are read
 * once per abbreviator.
 */
export function abbreviator(objects: AbbrevSource, length: number): (oid: Oid) => string {
  const start = Math.min(Math.max(length, MINIMUM), HEX);
  if (start === HEX) return (oid) => oid;
  const byFirst = new Map<number, { packed: Buffer[]; loose: string[] }>();
  return (oid) => {
    const key = Buffer.from(oid, 'hex');
    const first = key[0]!;
    let ids = byFirst.get(first);
    if (!ids) byFirst.set(first, (ids = objects.idsStartingWith(first)));
    let shared = 0;
    for (const sorted of ids.packed) shared = Math.max(shared, sharedInSorted(key, sorted));
    for (const other of ids.loose) {
      if (other === oid) continue;
      let i = 0;
      while (i < HEX && other[i] === oid[i]) i++;
      shared = Math.max(shared, i);
    }
    return oid.slice(0, Math.min(HEX, Math.max(start, shared + 1)));
  };
}
