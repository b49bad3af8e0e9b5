import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { F, type Spec } from './mem-tree-store.js';

/*
 * The corpus of patches in Codex's apply_patch format under
 * test/fixtures/codex-patch/, laid out as Codex lays out its own scenarios
 * (codex-rs/apply-patch/tests/fixtures/scenarios): each case a directory
 * with patch.txt, the files before (input/) and either the files after
 * (expected/) or, for a patch that must be refused, error.json (the code and
 * a pattern of the message), the files then staying as they were.
 */

export const CORPUS = fileURLToPath(new URL('../../../test/fixtures/codex-patch/', import.meta.url));

export interface PatchFixture {
  name: string;
  /** The case's directory. */
  dir: string;
  patch: string;
  /** Files before: repository path → bytes. */
  input: Record<string, Buffer>;
  /** Files after, for a patch that applies. */
  expected?: Record<string, Buffer>;
  /** The refusal, for a patch that does not. */
  error?: { code: string; message: RegExp };
}

/** Every file below `root`, by its path from there, in name order. */
export function filesUnder(root: string, prefix = ''): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  if (!existsSync(root)) return out;
  for (const name of readdirSync(root).sort()) {
    const full = join(root, name);
    if (statSync(full).isDirectory()) Object.assign(out, filesUnder(full, `${prefix}${name}/`));
    else out[`${prefix}${name}`] = readFileSync(full);
  }
  return out;
}

/** Every case of the corpus, in name order. */
export function patchFixtures(): PatchFixture[] {
  return readdirSync(CORPUS)
    .filter((name) => statSync(join(CORPUS, name)).isDirectory())
    .sort()
    .map((name) => {
      const dir = join(CORPUS, name);
      const f: PatchFixture = {
        name,
        dir,
        patch: readFileSync(join(dir, 'patch.txt'), 'utf8'),
        input: filesUnder(join(dir, 'input')),
      };
      if (existsSync(join(dir, 'error.json'))) {
        const e = JSON.parse(readFileSync(join(dir, 'error.json'), 'utf8')) as { code: string; message: string };
        f.error = { code: e.code, message: new RegExp(e.message) };
      } else {
        f.expected = filesUnder(join(dir, 'expected'));
      }
      return f;
    });
}

/** Flat files as a tree spec for the in-memory store. */
export function specOf(files: Record<string, Buffer>): Spec {
  const root: Spec = {};
  for (const [path, bytes] of Object.entries(files)) {
    const parts = path.split('/');
    let dir = root;
    for (const p of parts.slice(0, -1)) dir = (dir[p] ??= {}) as Spec;
    dir[parts[parts.length - 1]!] = new F(bytes);
  }
  return root;
}
