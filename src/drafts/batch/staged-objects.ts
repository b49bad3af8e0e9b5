import type { Oid, TreeEntry } from '../../git/format/git-objects.js';
import type { ResolveSource } from './resolve-batch.js';
import type { NewTree } from '../../git/format/tree-edit.js';
import type { ObjectDatabase } from '../../git/object-db.js';

/**
 * Objects made in memory by a transaction, in front of the object database:
 * trees and blobs a batch has built but not written yet are read from here.
 */
export class StagedObjects implements ResolveSource {
  readonly trees = new Map<Oid, NewTree>();
  readonly blobs = new Map<Oid, Buffer>();

  constructor(private readonly db: ObjectDatabase) {}

  readTree(oid: Oid): readonly TreeEntry[] {
    return this.trees.get(oid)?.entries ?? this.db.readTree(oid);
  }

  readBlob(oid: Oid): Buffer {
    return this.blobs.get(oid) ?? this.db.readBlob(oid);
  }

  addTrees(trees: readonly NewTree[]): void {
    for (const t of trees) this.trees.set(t.oid, t);
  }
}
