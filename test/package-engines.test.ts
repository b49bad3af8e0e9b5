/**
 * Installing shadow on the oldest node its package.json admits (>= 20.19)
 * gives no engine warning: no dependency in the lockfile, and none installed
 * at the version the lockfile names, asks for a newer node. (fastify asks
 * for light-my-request ^6, whose latest came with cookie@2, which wants
 * node >= 22: package.json names light-my-request ~6.6, the last on
 * cookie@1, and npm gives fastify that one. An `overrides` entry would bind
 * only a clone's own install: npm ignores it in an installed package.) And
 * the package is installable by a name of its own while its command stays
 * `shadow`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

interface Semver {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
}
const semver = createRequire(import.meta.url)('semver') as Semver;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  engines: { node: string };
};

interface LockEntry {
  version?: string;
  engines?: unknown;
  link?: boolean;
}
type Lock = { packages: Record<string, LockEntry> };

/** Packages whose `engines.node` leaves `node` out: `path@version wants range`. */
function excluding(node: string, entries: Iterable<[string, LockEntry]>): string[] {
  const out: string[] = [];
  for (const [path, e] of entries) {
    // An engines field that is an array or has no node key is old npm's form, ignored by npm too.
    const range =
      e.engines && typeof e.engines === 'object' && !Array.isArray(e.engines)
        ? (e.engines as { node?: unknown }).node
        : undefined;
    if (typeof range !== 'string' || path === '') continue;
    if (!semver.satisfies(node, range)) out.push(`${path}@${e.version} wants node ${range}`);
  }
  return out;
}

/** Every package.json under node_modules, keyed as the lockfile keys them (`node_modules/a/node_modules/b`). */
function installed(dir: string, prefix = 'node_modules'): Map<string, LockEntry> {
  const out = new Map<string, LockEntry>();
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      for (const [k, v] of installed(join(dir, name), `${prefix}/${name}`)) out.set(k, v);
      continue;
    }
    const file = join(dir, name, 'package.json');
    if (!existsSync(file)) continue;
    out.set(`${prefix}/${name}`, JSON.parse(readFileSync(file, 'utf8')) as LockEntry);
    for (const [k, v] of installed(join(dir, name, 'node_modules'), `${prefix}/${name}/node_modules`)) out.set(k, v);
  }
  return out;
}

const MIN_NODE = semver.minVersion(pkg.engines.node)!.version;
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;

const Engines = suite('dependency engines');

Engines('package.json admits node 20.19 and later, and so does every package the lockfile installs', () => {
  assert.is(MIN_NODE, '20.19.0');
  assert.equal(excluding(MIN_NODE, Object.entries(lock.packages)), []);
});

Engines('so does every package installed at the version the lockfile names', () => {
  // A tree installed from an older lockfile is not this one's to judge: only what matches it is.
  const tree = [...installed(join(ROOT, 'node_modules'))].filter(
    ([path, e]) => lock.packages[path]?.version === e.version,
  );
  assert.ok(tree.length > 100, `only ${tree.length} installed packages match the lockfile`);
  assert.equal(excluding(MIN_NODE, tree), []);
});

Engines('the check finds a package that wants a newer node', () => {
  const found = excluding('20.19.0', [
    ['node_modules/cookie', { version: '2.0.2', engines: { node: '>=22' } }],
    ['node_modules/ok', { version: '1.0.0', engines: { node: '>=18' } }],
    ['node_modules/old-style', { version: '1.0.0', engines: ['node >= 0.8'] }],
  ]);
  assert.equal(found, ['node_modules/cookie@2.0.2 wants node >=22']);
});

Engines('the package has a name of its own on npm; its command is shadow', () => {
  // `shadow` on npm is an unrelated package: `npx shadow` would run that one.
  assert.is(pkg.name, 'shadow-drafts');
  assert.equal(Object.keys(pkg.bin), ['shadow']);
  assert.is(
    lock.packages['']?.version,
    (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
  );
});

Engines.run();
