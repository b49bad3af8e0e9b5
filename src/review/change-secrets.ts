import { MODE, type Oid } from '../git/format/git-objects.js';
import { scanAddedLines, type SecretFinding } from '../core/secret-scan.js';
import { scanPath } from './metadata-secrets.js';
import type { FileChange } from '../git/format/tree-diff.js';
import { fileDiff } from '../git/format/unified-diff.js';

/** What the secret guard found in one set of file changes (a commit against its parent, say). */
export interface ChangeSecrets {
  secrets: SecretFinding[];
  /** Binary files (and gitlinks) the guard could not read. */
  unscanned: string[];
}

/**
 * The secrets in the lines and the paths `changes` add, each file diffed old against new
 * exactly as a review diffs it (so a commit and the final diff are judged
 * by the same lines and the same rules). `read` gives a blob's bytes; it is
 * asked only for the two sides of each change. Cost: the changed files'
 * diffs, nothing else of the trees.
 */
export function scanChanges(changes: readonly FileChange[], read: (oid: Oid) => Buffer): ChangeSecrets {
  const secrets: SecretFinding[] = [];
  const unscanned: string[] = [];
  const empty = Buffer.alloc(0);
  for (const c of changes) {
    if (c.new === null) continue; // a deletion adds no line
    if (c.old === null) secrets.push(...scanPath(c.path));
    // A submodule is a commit of another repository: nothing of it is read here.
    if (c.new.mode === MODE.gitlink) {
      unscanned.push(c.path);
      continue;
    }
    // A file or symlink in a submodule's place is new, every line of it.
    const old = c.old?.mode === MODE.gitlink ? null : c.old;
    const d = fileDiff({
      path: c.path,
      old,
      new: c.new,
      oldContent: old ? read(old.oid) : empty,
      newContent: read(c.new.oid),
    });
    if (d.binary) unscanned.push(c.path);
    else if (d.added.length > 0) secrets.push(...scanAddedLines(c.path, d.added));
  }
  return { secrets, unscanned };
}
