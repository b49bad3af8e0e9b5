import type { Oid } from '../../git/format/git-objects.js';
import type { Repository } from '../../git/repository.js';

/**
 * True when commits `a` and `b` share an ancestor (git would find a merge
 * base): a walk back from both at once, over every parent, one generation
 * at a time from each side, that stops as soon as one side reaches a commit
 * the other has seen. A commit that descends from the other is found after
 * as many steps as lie between them; two unrelated histories are walked
 * whole, as `git merge-base` walks them.
 */
export function related(repo: Repository, a: Oid, b: Oid): boolean {
  if (a === b) return true;
  const seen = [new Set<Oid>([a]), new Set<Oid>([b])];
  let fronts: Oid[][] = [[a], [b]];
  while (fronts[0]!.length > 0 || fronts[1]!.length > 0) {
    const next: Oid[][] = [[], []];
    for (const side of [0, 1]) {
      const other = seen[1 - side]!;
      for (const oid of fronts[side]!) {
        if (other.has(oid)) return true;
        for (const p of repo.objects.readCommit(oid).parents) {
          if (other.has(p)) return true;
          if (!seen[side]!.has(p)) {
            seen[side]!.add(p);
            next[side]!.push(p);
          }
        }
      }
    }
    fronts = next;
  }
  return false;
}
