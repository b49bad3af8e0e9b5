/**
 * A small seeded fuzzer for the path gate: random hostile names (`.git`,
 * `git~1`, `.gitmodules` and the marker in mixed case, with trailing dots
 * and spaces, NTFS streams, HFS+ ignorable code points, backslashes, `..`
 * and `.`) put in crafted commits and applied on a real repository. Whatever
 * the names: nothing is written into `.git` or outside the working tree,
 * shadow refuses exactly when a path breaks the rules, and never with
 * INTERNAL. The seed is fixed: every run throws the same names.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { treePathProblem } from '../src/core/tree-path-rules.js';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { snapshotTree } from './helpers/dir-snapshot.js';
import { craftOn, type CraftedEntry, moveDraftByHand } from './helpers/crafted-trees.js';
import { prng } from './helpers/prng.js';

const SEED = 0x5eed9a7e;
const ROUNDS = 30;
const BASES = [
  '.git',
  'git~1',
  '.gitmodules',
  'gitmod~1',
  '.shadow-worktree',
  '..',
  '.',
  'git',
  '.github',
  'a..b',
  '...',
  'hooks',
  'config',
];
const SUFFIXES = ['', '', '.', ' ', '. .', ':x', '::$INDEX_ALLOCATION', '~1', '.txt'];
const IGNORABLE = ['\u200c', '\u200d', '\u200e', '\u200f', '\u202a', '\u202e', '\u206a', '\u206f', '\ufeff'];

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)]!;
}

function component(rand: () => number): string {
  let name = [...pick(rand, BASES)].map((c) => (rand() < 0.4 ? c.toUpperCase() : c)).join('');
  if (name !== '..' && name !== '.') name += pick(rand, SUFFIXES);
  if (rand() < 0.25) {
    const at = Math.floor(rand() * (name.length + 1));
    name = name.slice(0, at) + pick(rand, IGNORABLE) + name.slice(at);
  }
  if (rand() < 0.15) name = `a\\${name}`;
  return name;
}

function hostilePath(rand: () => number, leaf: string): string {
  const depth = 1 + Math.floor(rand() * 3);
  const parts = Array.from({ length: depth }, () => component(rand));
  if (rand() < 0.7) parts.push(leaf);
  return parts.join('/');
}

/** What shadow itself keeps in .git: left out; hooks, config, info and the rest of .git are in. */
const OWN = ['shadow', 'objects', 'refs', 'logs', 'index', 'ORIG_HEAD'];

/** Does `git fsck` flag one of the trees of `commit` (warnings included)? */
function fsckFlags(repo: DiskRepo, commit: string): boolean {
  const trees = repo
    .git('ls-tree', '-r', '-t', '--format=%(objecttype) %(objectname)', commit)
    .split('\n')
    .filter((l) => l.startsWith('tree '))
    .map((l) => l.slice(5));
  trees.push(repo.git('rev-parse', `${commit}^{tree}`).trim());
  const r = spawnSync('git', ['fsck', '--no-dangling'], { cwd: repo.dir, env: repo.env, encoding: 'utf8' });
  return (r.stdout + r.stderr).split('\n').some((l) => trees.some((t) => l.includes(t)));
}

const Fuzz = suite('path gate fuzzer');

Fuzz(
  `${ROUNDS} rounds of random hostile names: nothing lands in .git or outside the working tree; refused exactly when a path breaks the rules`,
  async () => {
    const repo = new DiskRepo({ 'README.md': 'Hello\n' });
    const rand = prng(SEED);
    try {
      repo.git('config', 'shadow.protectDefaults', 'false');
      const gitDir = `${repo.dir}/.git`;
      const dotGit = snapshotTree(gitDir, OWN);
      const beside = snapshotTree(repo.root, ['repo', 'home']);
      let refused = 0;
      await withShadow(repo, async (sh) => {
        for (let i = 0; i < ROUNDS; i++) {
          const draft = `f${i}`;
          await sh.batch(
            { intent: 'seed', operations: [{ operation: 'write', path: `seed${i}.txt`, content: `${i}\n` }] },
            { draft },
          );
          const entries: CraftedEntry[] = Array.from({ length: 1 + Math.floor(rand() * 3) }, (_, k) => {
            const mode = pick(rand, ['100644', '100644', '100755', '120000']);
            return {
              path: hostilePath(rand, `fz${i}-${k}`),
              mode,
              content: mode === '120000' ? '/tmp' : `fuzz ${i} ${k}\n`,
            };
          });
          const unique = entries.filter(
            (e, k) =>
              entries.findIndex(
                (o) => o.path === e.path || o.path.startsWith(`${e.path}/`) || e.path.startsWith(`${o.path}/`),
              ) === k,
          );
          const crafted = craftOn(
            repo,
            repo.ref(`refs/shadow/drafts/${draft}`)!,
            unique,
            `fuzz\n\nShadow-Draft: ${draft}\nShadow-Batch: 2\n`,
          );
          moveDraftByHand(repo, draft, crafted);
          const bad = unique.some((e) => treePathProblem(e.path, e.mode!) !== undefined);
          let code = 'ok';
          try {
            await sh.apply({ draft });
          } catch (e) {
            code = (e as { code: string }).code;
          }
          const label = `round ${i}: ${JSON.stringify(unique.map((e) => [e.path, e.mode]))} → ${code}`;
          assert.is.not(code, 'INTERNAL', label);
          for (const e of unique) {
            // Where a path ending in its own leaf would land if written as it reads (a backslash is a name character here).
            if (!/\/fz\d+-\d+$|^fz\d+-\d+$/.test(e.path)) continue;
            const at = resolve(repo.dir, e.path);
            const rel = relative(repo.dir, at);
            if (rel === '..' || rel.startsWith('../'))
              assert.not.ok(existsSync(at), `${label}: ${at} written outside the working tree`);
          }
          assert.is(code === 'UNSAFE_PATH', bad, label);
          if (bad) refused++;
        }
      });
      assert.equal(snapshotTree(gitDir, OWN), dotGit, 'nothing written into .git');
      assert.equal(snapshotTree(repo.root, ['repo', 'home']), beside, 'nothing written beside the repository');
      // The seed throws both kinds: the check is not vacuous.
      assert.ok(refused > 0 && refused < ROUNDS, `refused ${refused} of ${ROUNDS}`);
    } finally {
      repo.cleanup();
    }
  },
);

Fuzz(
  'git agrees on random names: what shadow accepts git checks out, what it refuses git refuses (or fsck flags)',
  () => {
    const repo = new DiskRepo({ 'README.md': 'Hello\n' });
    const rand = prng(SEED ^ 0x9e3779b9);
    const oracle = `${repo.root}/oracle`;
    const git = (cwd: string, ...args: string[]) =>
      spawnSync('git', ['-c', 'core.protectNTFS=true', '-c', 'core.protectHFS=true', ...args], {
        cwd,
        env: repo.env,
        encoding: 'utf8',
      });
    try {
      assert.is(
        spawnSync('git', ['clone', '-q', '--shared', '--no-checkout', repo.dir, oracle], { env: repo.env }).status,
        0,
      );
      const head = repo.ref('HEAD')!;
      const accepted: CraftedEntry[] = [];
      let refused = 0;
      for (let i = 0; i < 60; i++) {
        const mode = pick(rand, ['100644', '100644', '120000']);
        const entry = { path: hostilePath(rand, `fz${i}`), mode, content: 'x\n' };
        if (treePathProblem(entry.path, mode) === undefined) {
          if (
            !accepted.some(
              (o) =>
                o.path === entry.path || o.path.startsWith(`${entry.path}/`) || entry.path.startsWith(`${o.path}/`),
            )
          )
            accepted.push(entry);
          continue;
        }
        // Shadow's own stricter rules (its marker, an HFS+ spelling after a backslash) have no git verdict to match.
        if (
          /shadow-worktree/i.test(entry.path.replace(/[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g, '')) ||
          entry.path.includes('\\')
        )
          continue;
        const commit = craftOn(repo, head, [entry]);
        const checkedOut = git(oracle, 'checkout', '-q', '--detach', commit).status === 0;
        assert.ok(
          !checkedOut || fsckFlags(repo, commit),
          `${JSON.stringify(entry.path)} ${mode}: shadow refuses (${treePathProblem(entry.path, mode)}), git checks it out and fsck says nothing`,
        );
        refused++;
        // Back to an empty checkout for the next one.
        git(oracle, 'checkout', '-q', '--detach', head);
      }
      const all = craftOn(repo, head, accepted);
      const r = git(oracle, 'checkout', '-q', '--detach', all);
      assert.is(r.status, 0, `git refuses what shadow accepts: ${r.stderr}`);
      assert.ok(accepted.length > 5 && refused > 5, `${accepted.length} accepted, ${refused} refused`);
    } finally {
      repo.cleanup();
    }
  },
);

Fuzz.run();
