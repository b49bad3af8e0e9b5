/** The in-memory caches of the object database. */
import type { Commit, TreeEntry } from './format/git-objects.js';

const TREE_CACHE_ENTRIES = 20_000;
const COMMIT_CACHE_ENTRIES = 5_000;
const RECENT_BLOB_BYTES = 8 * 1024 * 1024;
const RECENT_BLOB_LARGEST = 256 * 1024;

/** A map that forgets its least recently used entry past `max` entries. */
export class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
  delete(key: string): void {
    this.map.delete(key);
  }
}

/**
 * Blobs this process wrote lately, by id, up to a byte budget (oldest out
 * first): the commands that follow a batch (review, apply, diff) read the
 * contents it just wrote, which would otherwise come back from the new pack.
 */
export class RecentBlobs {
  private readonly map = new Map<string, Buffer>();
  private bytes = 0;
  constructor(
    private readonly budget = RECENT_BLOB_BYTES,
    private readonly largest = RECENT_BLOB_LARGEST,
  ) {}
  get(oid: string): Buffer | undefined {
    return this.map.get(oid);
  }
  add(oid: string, content: Uint8Array): void {
    if (content.length > this.largest || this.map.has(oid)) return;
    this.map.set(oid, Buffer.from(content.buffer, content.byteOffset, content.length));
    this.bytes += content.length;
    for (const [old, c] of this.map) {
      if (this.bytes <= this.budget) break;
      this.map.delete(old);
      this.bytes -= c.length;
    }
  }
}

/**
 * Parsed trees and commits by id. Objects never change, so one set can serve
 * every handle a process opens on one repository (see SharedCaches): a
 * handed-off command then starts with what the calls before it read.
 */
export interface ParsedObjects {
  readonly trees: Lru<readonly TreeEntry[]>;
  readonly commits: Lru<Commit>;
}

/** An empty set of parsed-object caches. */
export function parsedObjects(): ParsedObjects {
  return { trees: new Lru(TREE_CACHE_ENTRIES), commits: new Lru(COMMIT_CACHE_ENTRIES) };
}
