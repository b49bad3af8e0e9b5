/**
 * What must stay on this machine, kept out of what a push sends.
 *
 * `shadow.allowIgnored` lets a draft hold paths `.gitignore` ignores (an
 * `.env`, build output) for local work; a push sends every commit of the
 * draft and of its checkpoints and proposal, so such a path would leave
 * even after a later batch took it out. They are found here with shadow's
 * own ignore matching (the working tree's rules, as a batch's first touch
 * asks them), over every commit a pushed ref (the draft, its checkpoints
 * and proposal) reaches down to the draft's root, and the push is refused.
 *
 * There is no flag to push them anyway: the opt-in is the ignore rules
 * themselves (a `!<path>` line in `.gitignore`),
 * which names the path, where a flag would wave through whatever a batch
 * happened to capture.
 */
import { ShadowError } from '../errors.js';
import type { Oid } from '../git/format/git-objects.js';
import { diffTrees } from '../git/format/tree-diff.js';
import { lookupPath } from '../git/format/tree-lookup.js';
import { requireDraft } from '../drafts/drafts.js';
import { treePathProblem } from '../core/tree-path-rules.js';
import { unsafePath } from '../drafts/path-gate.js';
import type { Workspace } from '../drafts/workspace.js';

/** At most this many paths are named in an error's message (all of them are in its data). */
const NAMED = 5;

/** The commit `oid` names, through annotated tags (a checkpoint is one). */
export function peelToCommit(ws: Workspace, oid: Oid): Oid {
  while (ws.repo.objects.read(oid).type === 'tag') oid = ws.repo.objects.readTag(oid).object;
  return oid;
}

/**
 * The ignored paths each ref's commits hold, down to draft `name`'s root:
 * paths the root does not track (a tracked path is never ignored, as for
 * git) that the working tree's ignore rules ignore. Only the refs that hold
 * some; none for a bare repository. A path git would refuse to check out
 * is UNSAFE_PATH: such a draft is not sent.
 */
export function ignoredInRefs(
  ws: Workspace,
  name: string,
  refs: ReadonlyArray<{ ref: string; oid: Oid }>,
): Array<{ ref: string; paths: string[] }> {
  const rules = ws.ignoreRules();
  if (rules === undefined) return [];
  const repo = ws.repo;
  const root = requireDraft(ws, name).meta.root;
  const rootTree = repo.objects.readCommit(root).tree;
  const byCommit = new Map<Oid, string[]>();
  const ignored = new Map<string, boolean>();
  const out: Array<{ ref: string; paths: string[] }> = [];
  for (const { ref, oid: tip } of refs) {
    const paths = new Set<string>();
    for (let oid: Oid | undefined = peelToCommit(ws, tip); oid !== undefined && oid !== root;) {
      const commit = repo.objects.readCommit(oid);
      let own = byCommit.get(oid);
      if (own === undefined) {
        const parent = commit.parents[0];
        const parentTree = parent === undefined ? null : repo.objects.readCommit(parent).tree;
        own = [];
        for (const change of diffTrees(repo.objects, parentTree, commit.tree)) {
          if (change.new === null) continue;
          // A path git refuses to check out never leaves (nor reaches the ignore rules, which take only relative paths).
          const unsafe = treePathProblem(change.path, change.new.mode);
          if (unsafe) {
            throw unsafePath(
              change.path,
              unsafe,
              { commit: oid, draft: name, ref },
              {
                verb: `push draft "${name}", which holds`,
                outcome: 'nothing was pushed',
                hint: `\`shadow rollback\` the draft past that commit (\`shadow log --draft ${name}\`), then push again`,
              },
            );
          }
          let is = ignored.get(change.path);
          if (is === undefined) {
            is = lookupPath(repo.objects, rootTree, change.path).kind === 'absent' && rules.ignores(change.path);
            ignored.set(change.path, is);
          }
          if (is) own.push(change.path);
        }
        byCommit.set(oid, own);
      }
      for (const p of own) paths.add(p);
      oid = commit.parents[0];
    }
    if (paths.size > 0) out.push({ ref, paths: [...paths].sort() });
  }
  return out;
}

/** IGNORED_PATH for draft `name` when the commits of the refs its push would send hold ignored paths. */
export function guardIgnored(ws: Workspace, name: string, refs: ReadonlyArray<{ ref: string; oid: Oid }>): void {
  const holding = ignoredInRefs(ws, name, refs);
  if (holding.length === 0) return;
  const paths = [...new Set(holding.flatMap((h) => h.paths))].sort();
  const named = `${paths.slice(0, NAMED).join(', ')}${paths.length > NAMED ? `, … (${paths.length} in all)` : ''}`;
  const others = holding.filter((h) => !h.ref.startsWith('refs/shadow/drafts/')).map((h) => h.ref);
  throw new ShadowError(
    'IGNORED_PATH',
    `draft "${name}" holds paths .gitignore ignores (${named}); they stay on this machine: nothing was pushed`,
    {
      hint:
        `\`shadow rollback\` the draft past the batch that first wrote them (\`shadow log --draft ${name}\`)` +
        (others.length > 0
          ? ` and delete the refs that still hold them (\`git update-ref -d ${others[0]}\`${others.length > 1 ? ', data.refs lists all' : ''})`
          : '') +
        `; or, to share such a path, stop ignoring it (a \`!<path>\` line in .gitignore)`,
      data: { draft: name, paths, refs: holding },
    },
  );
}
