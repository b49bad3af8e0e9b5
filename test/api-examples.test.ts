/**
 * The `@example` blocks of the library's public API compile: each is
 * type-checked, as the body of an async function with `sh: Shadow` in
 * scope, against the built declarations (dist/src/), in one in-process
 * program. The blocks are those of the facade (src/index.ts, src/shadow.ts,
 * src/open.ts, src/api/) and of the declarations src/index.ts re-exports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkExamples, examplesOf, exportedNames } from './helpers/tsdoc-examples.js';
import type { ExampleBlock, ExampleProblem } from './helpers/tsdoc-examples.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LIBRARY = join(ROOT, 'dist/src');
const read = (rel: string): string => readFileSync(join(ROOT, rel), 'utf8');

const INDEX = read('src/index.ts');
const EXPORTS = exportedNames('src/index.ts', INDEX);
const API = readdirSync(join(ROOT, 'src/api')).filter((f) => f.endsWith('.ts'));
const FACADE = ['src/index.ts', 'src/shadow.ts', 'src/open.ts', ...API.map((f) => `src/api/${f}`)];

/** The files src/index.ts re-exports from, outside the facade. */
function reExported(): string[] {
  const specs = [...INDEX.matchAll(/from '\.\/([^']+)\.js'/g)].map((m) => `src/${m[1]}.ts`);
  return [...new Set(specs)].filter((f) => !FACADE.includes(f));
}

/** Every block of the public API: all of the facade's; elsewhere, those on what src/index.ts exports. */
function publicBlocks(): ExampleBlock[] {
  const facade = FACADE.flatMap((f) => examplesOf(f, read(f)));
  const exported = (member: string): boolean => EXPORTS.has(member.split('.')[0]!);
  return [...facade, ...reExported().flatMap((f) => examplesOf(f, read(f), exported))];
}

// A comment as a facade file might hold it: two blocks, one on the tag's own line, one that does not compile.
const BROKEN = [
  'export interface FakeCalls {',
  '  /**',
  "   * Something a call does. @example await sh.write('a.txt', 'a\\n')",
  '   *',
  '   * @example',
  '   * const r = await sh.batch({ operations: [] });',
  '   * console.log(r.commitId);',
  '   */',
  '  call(): void;',
  '}',
].join('\n');

// A fenced block importing from the package, as a program using the library writes it; and the same with a wrong name.
const FENCED = [
  '/**',
  ' * Open it.',
  ' *',
  ' * @example',
  ' * ```ts',
  " * import { openShadow } from 'shadow-drafts';",
  ' * const sh2 = await openShadow({ dir });',
  ' * ```',
  ' */',
  'export function f(): void {}',
].join('\n');
const FIXTURES: Array<[string, string]> = [
  ['src/api/fake-calls.ts', BROKEN],
  ['src/fake-fenced.ts', FENCED],
  ['src/fake-import.ts', FENCED.replace("'shadow-drafts'", "'shadow-draft'")],
];
const isFixture = (file: string): boolean => FIXTURES.some(([f]) => f === file);

let checked: { blocks: ExampleBlock[]; problems: ExampleProblem[] } | undefined;
/** One program for every block, the fixtures' included. */
function check(): { blocks: ExampleBlock[]; problems: ExampleProblem[] } {
  if (checked) return checked;
  const blocks = [...publicBlocks(), ...FIXTURES.flatMap(([f, text]) => examplesOf(f, text))];
  return (checked = { blocks, problems: checkExamples(blocks, LIBRARY, EXPORTS) });
}
const of = <T extends { file: string }>(items: T[], file: string): T[] => items.filter((i) => i.file === file);

const Examples = suite('api examples');

Examples('every @example of the public API compiles against the built declarations', () => {
  const { blocks, problems } = check();
  const real = blocks.filter((b) => !isFixture(b.file));
  assert.ok(real.length >= 50, `only ${real.length} blocks found`);
  const members = ['(module)', 'BatchCalls.batch', 'Sessions.begin', 'openShadow', 'startServer'];
  members.push('SharedCaches', 'Worktrees.exec');
  for (const member of members) {
    assert.ok(
      real.some((b) => b.member === member),
      `no block found on ${member}`,
    );
  }
  const mine = problems.filter((p) => !isFixture(p.file));
  assert.equal(
    mine.map((p) => `${p.file}:${p.line} ${p.member}: ${p.message}`),
    [],
  );
});

Examples('a block that does not compile is reported with its file, declaration and line', () => {
  const fake = of(check().blocks, 'src/api/fake-calls.ts');
  assert.equal(
    fake.map((b) => [b.member, b.line, b.code]),
    [
      ['FakeCalls.call', 3, "await sh.write('a.txt', 'a\\n')"],
      ['FakeCalls.call', 6, 'const r = await sh.batch({ operations: [] });\nconsole.log(r.commitId);'],
    ],
  );
  const problems = of(check().problems, 'src/api/fake-calls.ts');
  assert.equal(
    problems.map((p) => [p.member, p.line]),
    [['FakeCalls.call', 7]],
  );
  assert.match(problems[0]!.message, /Property 'commitId' does not exist/);
});

Examples('a fenced block, and an import from the package, are read as a program would write them', () => {
  assert.equal(
    of(check().blocks, 'src/fake-fenced.ts').map((b) => [b.member, b.line]),
    [['f', 6]],
  );
  assert.equal(of(check().problems, 'src/fake-fenced.ts'), []);
  const wrong = of(check().problems, 'src/fake-import.ts').map((p) => `${p.line} ${p.message}`);
  assert.equal(wrong.length, 1, wrong.join('\n'));
  assert.match(wrong[0]!, /^6 Cannot find module 'shadow-draft'/);
});

Examples.run();
