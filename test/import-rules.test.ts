/**
 * The import rules of .dependency-cruiser.cjs hold over src/ and cli/: no
 * cycle, and no room imports a room above it. The second test proves the
 * check can fail: the same config, run on a small tree that breaks the
 * rules, reports each break by name.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

function depcruise(cwd: string, dirs: string[]): { status: number | null; out: string } {
  const r = spawnSync(
    process.execPath,
    [DEPCRUISE, ...dirs, '--config', '.dependency-cruiser.cjs', '--output-type', 'err-long'],
    { cwd, encoding: 'utf8' },
  );
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const Rules = suite('import rules');

Rules("src/ and cli/ keep the rooms' import rules, with no cycle", () => {
  const r = depcruise(ROOT, ['src', 'cli']);
  assert.is(r.status, 0, r.out);
  assert.match(r.out, /no dependency violations found \((\d{3,}) modules/);
});

Rules('a cycle, a room importing one above it, and I/O in core/ or drafts/text/ are each reported by rule name', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shadow-rules-'));
  try {
    const files: Record<string, string> = {
      'src/errors.ts': 'export class ShadowError extends Error {}\n',
      'src/drafts/a.ts': "import { b } from './b.js';\nexport const a = (): number => b() + 1;\n",
      'src/drafts/b.ts': "import { a } from './a.js';\nexport const b = (): number => (a.length > 9 ? a() : 0);\n",
      'src/git/refs.ts': "import { a } from '../drafts/a.js';\nexport const refs = a;\n",
      'src/core/pure.ts': "import { readFileSync } from 'node:fs';\nexport const pure = readFileSync;\n",
      'src/drafts/codex-patch/parse.ts': "import { a } from '../a.js';\nexport const parse = a;\n",
      'src/drafts/text/edit.ts': "import { readFileSync } from 'node:fs';\nexport const edit = readFileSync;\n",
      'src/drafts/rebase/land.ts': 'export const land = 1;\n',
      'src/drafts/batch/run.ts': "import { land } from '../rebase/land.js';\nexport const run = land;\n",
      'tsconfig.json': JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
        include: ['src'],
      }),
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
    const r = depcruise(dir, ['src']);
    assert.is.not(r.status, 0, r.out);
    assert.match(r.out, /no-circular/);
    assert.match(r.out, /git-imports: src\/git\/refs\.ts → src\/drafts\/a\.ts/);
    assert.match(r.out, /core-is-pure: src\/core\/pure\.ts/);
    assert.match(r.out, /drafts-codex-patch-is-pure: src\/drafts\/codex-patch\/parse\.ts → src\/drafts\/a\.ts/);
    assert.match(r.out, /drafts-text-no-io: src\/drafts\/text\/edit\.ts/);
    assert.match(r.out, /drafts-batch-imports: src\/drafts\/batch\/run\.ts → src\/drafts\/rebase\/land\.ts/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Rules.run();
