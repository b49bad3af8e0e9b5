/**
 * The library's API reference, docs/api/, is what TypeDoc makes of the
 * built declarations of src/index.ts with typedoc.json, and TypeDoc says
 * nothing while making it: a warning (a type in a signature that is not
 * exported, a `{@link}` to nothing) fails, as `npm run docs:api` does with
 * `treatWarningsAsErrors`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runTypedoc } from './helpers/typedoc-run.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = join(ROOT, 'typedoc.json');
const COMMITTED = join(ROOT, 'docs/api');

/** Every file under `dir`, by its path relative to it, with its text. */
function tree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(e.parentPath, e.name);
    if (e.isFile()) files.set(relative(dir, path), readFileSync(path, 'utf8'));
  }
  return files;
}

const Reference = suite('api reference');

Reference('docs/api is what TypeDoc makes of the library now, with no warning', async () => {
  const out = mkdtempSync(join(tmpdir(), 'shadow-api-'));
  try {
    const run = await runTypedoc(CONFIG, { out, logLevel: 'Warn' }, true);
    assert.ok(run.converted, 'TypeDoc produced no project');
    assert.equal(run.messages, []);
    const made = tree(out);
    const kept = tree(COMMITTED);
    assert.ok(made.has('README.md') && made.has('classes/Shadow.md'), [...made.keys()].join(', '));
    const stale = [...new Set([...made.keys(), ...kept.keys()])].filter((f) => made.get(f) !== kept.get(f)).sort();
    const why = `docs/api differs from the code in these files: run \`npm run docs:api\`\n${stale.join('\n')}`;
    assert.equal(stale, [], why);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

Reference('a type missing from the exports and a link to nothing are each reported', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shadow-api-bad-'));
  try {
    // A package, as TypeDoc checks exports only within the package it documents.
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'fixture', type: 'module' }));
    // `Hidden` comes from a module of its own, as the library's types do, and index.ts does not export it.
    writeFileSync(join(dir, 'hidden.ts'), 'export interface Hidden { a: number }\n');
    const source = [
      "import type { Hidden } from './hidden.js';",
      '/** Reads {@link Nowhere}. */',
      'export function f(h: Hidden): number { return h.a; }',
      '',
    ];
    writeFileSync(join(dir, 'index.ts'), source.join('\n'));
    const compilerOptions = { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', types: [], noEmit: true };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['index.ts', 'hidden.ts'] }));
    // The repository's options, on this file: an options file that extends typedoc.json.
    const options = {
      extends: [CONFIG],
      entryPoints: ['index.ts'],
      tsconfig: 'tsconfig.json',
      out: 'out',
      intentionallyNotExported: [],
    };
    writeFileSync(join(dir, 'typedoc.json'), JSON.stringify(options));
    const run = await runTypedoc(join(dir, 'typedoc.json'), { logLevel: 'Warn' }, false);
    assert.ok(run.converted, run.messages.join('\n'));
    const said = run.messages.join('\n');
    assert.match(said, /Hidden, defined in .*hidden\.ts, is referenced by f\.h but not included in the documentation/);
    assert.match(said, /Failed to resolve link to "Nowhere" in comment for f/);
    assert.is(run.messages.length, 2, said);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Reference.run();
