/**
 * What a user installs is what runs, read statically from the built output:
 * every package that a shipped file reachable from the package's entry
 * points (its `exports`, and the executables in dist/bin) loads at run time
 * is in package.json's `dependencies`, and every dependency is loaded by
 * one (what only the build bundles, such as the review page's diff2html and
 * highlight.js or the MCP SDK, is a devDependency). Every file those entry
 * points reach, and the page's built assets, are in `npm pack`'s list; no
 * test, benchmark or TypeScript source is. A package moved to the wrong
 * list is caught here without installing anything (bench/install.bench.ts
 * installs the tarball and runs it).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, { default: string }>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/**
 * Dependencies that no shipped file loads, each with why it is installed all the same.
 */
const PINNED: Record<string, string> = {
  'light-my-request': "fastify's own, held to ~6.6 for node 20 (test/package-engines.test.ts)",
};

/** The review page's files, which the server reads from dist/src/http/page/ (src/http/routes-page.ts). */
const PAGE_ASSETS = ['index.html', 'app.js', 'highlighter.js', 'app.css'];

/** What a shipped file loads at run time, by package name, with the files that load it. */
type Loads = Map<string, Set<string>>;

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`; undefined for a relative path or a built-in module. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return builtinModules.includes(name) ? undefined : name;
}

/** Packages a file names to a `createRequire(…)` of its own, which a bundler does not follow. */
export function requiredByName(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/createRequire\)?\([^()]*\)\(\s*(["'])([^"']+)\1\s*\)/g)) out.push(m[2]!);
  return out;
}

/** What `entries` (files under ROOT) load at run time, and every file of the package they reach. */
async function runtimeLoads(entries: readonly string[]): Promise<{ loads: Loads; reached: Set<string> }> {
  const loads: Loads = new Map();
  const reached = new Set<string>();
  const add = (spec: string, from: string): void => {
    const name = packageOf(spec);
    if (name) loads.set(name, (loads.get(name) ?? new Set()).add(from));
  };
  for (const entry of entries) {
    const r = await build({
      entryPoints: [join(ROOT, entry)],
      absWorkingDir: ROOT,
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      packages: 'external',
      logLevel: 'silent',
      outdir: 'unused',
    });
    for (const [file, input] of Object.entries(r.metafile.inputs)) {
      reached.add(file);
      for (const i of input.imports) if (i.external) add(i.path, file);
      for (const spec of requiredByName(readFileSync(join(ROOT, file), 'utf8'))) add(spec, file);
    }
  }
  return { loads, reached };
}

/** `name (loaded by file, …)` for each package loaded but not a dependency. */
export function undeclared(loads: Loads, dependencies: Record<string, string>): string[] {
  return [...loads]
    .filter(([name]) => !(name in dependencies))
    .map(([name, from]) => `${name} (loaded by ${[...from].sort().join(', ')})`)
    .sort();
}

/** Dependencies nothing loads and that are not pinned for a reason. */
export function unused(loads: Loads, dependencies: Record<string, string>, pinned: Record<string, string>): string[] {
  return Object.keys(dependencies)
    .filter((name) => !loads.has(name) && !(name in pinned))
    .sort();
}

const entries = [
  ...Object.values(pkg.exports).map((e) => relative(ROOT, join(ROOT, e.default))),
  ...readdirSync(join(ROOT, 'dist/bin'))
    .filter((f) => /\.(c|m)?js$/.test(f))
    .map((f) => `dist/bin/${f}`),
];
const { loads, reached } = await runtimeLoads(entries);
const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
if (packed.status !== 0) throw new Error(`npm pack --dry-run failed: ${packed.stderr}`);
const shipped = new Set((JSON.parse(packed.stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path));

const Deps = suite('runtime dependencies');

Deps('the entry points are the library and every executable, and they load packages', () => {
  assert.ok(entries.includes('dist/src/index.js'), entries.join(', '));
  for (const f of ['dist/bin/shadow.cjs', 'dist/bin/shadow-cli.cjs', 'dist/bin/mcp-sdk.cjs'])
    assert.ok(entries.includes(f), `${f} not among ${entries.join(', ')}`);
  // The scan sees both kinds of load: fastify by import, picomatch also through createRequire in the CLI bundle.
  assert.ok(loads.get('fastify')?.has('dist/bin/shadow-cli.cjs'));
  assert.ok(loads.get('picomatch')?.has('dist/bin/shadow-cli.cjs'));
});

Deps('every package a shipped file loads at run time is a dependency', () => {
  assert.equal(undeclared(loads, pkg.dependencies), []);
});

Deps('every dependency is loaded at run time by a shipped file, or pinned for a reason', () => {
  assert.equal(unused(loads, pkg.dependencies, PINNED), []);
  for (const name of Object.keys(PINNED)) assert.ok(name in pkg.dependencies, `${name} is pinned but not a dependency`);
});

Deps('what only the build bundles is a devDependency: the page, the MCP SDK, the command-line parser', () => {
  for (const name of ['diff2html', 'highlight.js', '@modelcontextprotocol/sdk', 'yargs']) {
    assert.not.ok(name in pkg.dependencies, `${name} is installed with the package`);
    assert.ok(name in pkg.devDependencies, `${name} is not there to build with`);
  }
});

Deps('the checks find a loaded package that is not a dependency, and a dependency nothing loads', () => {
  const made: Loads = new Map([
    ['fastify', new Set(['dist/src/http/http-server.js'])],
    ['@scope/pkg', new Set(['dist/bin/b.cjs', 'dist/bin/a.cjs'])],
  ]);
  const deps = { fastify: '^5', 'light-my-request': '~6.6', 'highlight.js': '^11' };
  assert.equal(undeclared(made, deps), ['@scope/pkg (loaded by dist/bin/a.cjs, dist/bin/b.cjs)']);
  assert.equal(unused(made, deps, PINNED), ['highlight.js']);
});

Deps('specifiers name packages; relative paths and built-in modules are none', () => {
  const cases: [string, string | undefined][] = [
    ['@modelcontextprotocol/sdk/server/index.js', '@modelcontextprotocol/sdk'],
    ['zod/mini', 'zod'],
    ['yaml', 'yaml'],
    ['./mcp-sdk.cjs', undefined],
    ['node:fs', undefined],
    ['fs', undefined],
    ['util', undefined],
  ];
  for (const [spec, name] of cases) assert.is(packageOf(spec), name, spec);
  assert.equal(
    requiredByName(
      `const a=(0,import_node_module.createRequire)(__importMetaUrl)("picomatch");` +
        `const b = createRequire(import.meta.url)('ignore'); require("not-this")`,
    ),
    ['picomatch', 'ignore'],
  );
});

Deps('npm pack ships every file the entry points reach, and the review page', () => {
  assert.equal(
    [...reached].filter((f) => !shipped.has(f)),
    [],
  );
  assert.equal(
    PAGE_ASSETS.map((a) => `dist/src/http/page/${a}`).filter((f) => !shipped.has(f)),
    [],
  );
  for (const f of ['package.json', 'README.md', 'dist/bin/shadow', 'dist/src/index.d.ts'])
    assert.ok(shipped.has(f), `${f} is not packed`);
});

Deps('npm pack ships no test, benchmark, TypeScript source or code cache', () => {
  const stray = [...shipped].filter(
    (f) =>
      /^(test|bench|cli|src|dist\/(test|bench|cli))\//.test(f) ||
      (f.endsWith('.ts') && !f.endsWith('.d.ts')) ||
      f.includes('/.code-cache/'),
  );
  assert.equal(stray, []);
});

Deps.run();
