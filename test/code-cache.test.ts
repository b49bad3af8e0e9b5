import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { crc32 } from 'node:zlib';
import { basename, dirname, join } from 'node:path';
import { loadBundle, RACY_MS } from '../cli/code-cache.js';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';

/**
 * The CLI bundle is compiled with V8's code cache, one file per command
 * beside the bundle: used when it is there and sound, written again when it
 * is missing, damaged, refused by V8 or from another build, and never a
 * reason for a command to fail.
 */

const C = suite<{ dir: string; bundle: string }>('code cache');
C.before.each((c) => {
  c.dir = mkdtempSync(join(tmpdir(), 'shadow-code-cache-'));
  c.bundle = join(c.dir, 'bundle.cjs');
  writeFileSync(c.bundle, bundleSource(42));
});
C.after.each((c) => rmSync(c.dir, { recursive: true, force: true }));

function bundleSource(answer: number): string {
  return [
    `exports.answer = function () { return ${answer}; };`,
    'exports.strict = (function () { return this === undefined; })();',
    'exports.file = __filename;',
    "exports.eol = require('node:os').EOL;",
  ].join('\n');
}

const cacheDir = (dir: string) => join(dir, '.code-cache');
const files = (dir: string): string[] => {
  try {
    return readdirSync(cacheDir(dir)).sort();
  } catch {
    return [];
  }
};
const stamp = (path: string) => {
  const s = statSync(path);
  return `${s.ino}:${s.mtimeMs}`;
};

const CODE_CACHE = new URL('../cli/code-cache.js', import.meta.url).href;

/**
 * Load the bundle in a fresh node process, run it, save its cache, and say
 * what became of the cache. (One process that compiled a script once never
 * reads a cache for it again: V8 reuses what it compiled.)
 */
function loadFresh(bundle: string, key: string, env: Record<string, string> = {}): { cache: string; answer: number } {
  const code = `import(${JSON.stringify(CODE_CACHE)}).then((m) => {
    const l = m.loadBundle(${JSON.stringify(bundle)}, ${JSON.stringify(key)}, process.env);
    const out = { cache: l.cache, answer: l.exports.answer() };
    l.saveCache(${JSON.stringify(key)});
    process.stdout.write(JSON.stringify(out));
  })`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stderr, '', 'nothing on stderr (no warning)');
  return JSON.parse(r.stdout) as { cache: string; answer: number };
}

C(
  "a command's compiled code is kept beside the bundle and used by the next run; a used cache is not written again",
  ({ dir, bundle }) => {
    assert.equal(loadFresh(bundle, 'batch'), { cache: 'none', answer: 42 });
    const [file] = files(dir);
    assert.match(file!, /^[0-9a-f]{16}-batch\.bin$/);
    const written = stamp(join(cacheDir(dir), file!));
    assert.equal(loadFresh(bundle, 'batch'), { cache: 'used', answer: 42 });
    assert.equal(files(dir), [file]);
    assert.is(stamp(join(cacheDir(dir), file!)), written, 'not written again');
    assert.is(loadFresh(bundle, 'status').cache, 'none', 'each command has its own');
    assert.equal(
      files(dir).map((f) => f.slice(17)),
      ['batch.bin', 'status.bin'],
    );
    assert.is(loadFresh(bundle, 'status').cache, 'used');
  },
);

C('the bundle runs as strict CommonJS: require, module, __filename', ({ bundle }) => {
  const { exports } = loadBundle(bundle, 'batch', {});
  assert.is(exports.strict, true);
  assert.is(exports.file, bundle);
  assert.is(exports.eol, '\n');
});

C(
  'the CLI bundle calls no import(): a vm.Script could only import through an experimental hook (packages outside it are required)',
  () => {
    const source = readFileSync(join(dirname(SHADOW_BIN), 'shadow-cli.cjs'), 'utf8');
    assert.not.match(source, /\bimport\(/);
    assert.match(source, /require\("chokidar"\)/);
  },
);

C('a damaged cache file is not used, the command runs, and a sound file replaces it', ({ dir, bundle }) => {
  loadFresh(bundle, 'log');
  const path = join(cacheDir(dir), files(dir)[0]!);
  const bytes = readFileSync(path);
  bytes[bytes.length >> 1]! ^= 0xff;
  writeFileSync(path, bytes);
  assert.equal(loadFresh(bundle, 'log'), { cache: 'damaged', answer: 42 });
  assert.is(loadFresh(bundle, 'log').cache, 'used');
  writeFileSync(path, bytes.subarray(0, 10));
  assert.equal(loadFresh(bundle, 'log'), { cache: 'damaged', answer: 42 }, 'a truncated file too');
});

C('a cache V8 refuses (sound by our checksum, but not code V8 made) is made again', ({ dir, bundle }) => {
  loadFresh(bundle, 'log');
  const path = join(cacheDir(dir), files(dir)[0]!);
  const junk = Buffer.alloc(4096, 7);
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc32(junk) >>> 0);
  writeFileSync(path, Buffer.concat([sum, junk]));
  assert.equal(loadFresh(bundle, 'log'), { cache: 'rejected', answer: 42 });
  assert.is(loadFresh(bundle, 'log').cache, 'used');
});

C(
  'a rebuilt bundle of the same length never meets the old cache, and the old files go when the new one is written',
  ({ dir, bundle }) => {
    loadFresh(bundle, 'batch');
    loadFresh(bundle, 'log');
    const before = files(dir);
    writeFileSync(bundle, bundleSource(43));
    assert.equal(loadFresh(bundle, 'batch'), { cache: 'none', answer: 43 });
    const after = files(dir);
    assert.is(after.length, 1);
    assert.ok(!before.includes(after[0]!), 'a new name');
    assert.is(loadFresh(bundle, 'batch').cache, 'used');
  },
);

C(
  'off: with NODE_DISABLE_COMPILE_CACHE, and for keys that are not command names; nothing is written',
  ({ dir, bundle }) => {
    assert.equal(loadFresh(bundle, 'batch', { NODE_DISABLE_COMPILE_CACHE: '1' }), { cache: 'off', answer: 42 });
    for (const key of ['../escape', 'Batch', '', 'a/b', 'x'.repeat(40)]) {
      const l = loadBundle(bundle, key, {});
      assert.is(l.cache, 'off', key);
      l.saveCache(key);
    }
    assert.equal(files(dir), []);
  },
);

C(
  'a cache directory that cannot be made: the bundle runs without a cache, and saving does not throw',
  ({ dir, bundle }) => {
    writeFileSync(cacheDir(dir), 'a file where the directory would be');
    assert.equal(loadFresh(bundle, 'batch'), { cache: 'none', answer: 42 });
    assert.is(readFileSync(cacheDir(dir), 'utf8'), 'a file where the directory would be');
    assert.equal(readdirSync(dir).sort(), ['.code-cache', 'bundle.cjs'], 'no temporary file left');
  },
);

C(
  'a cache that cannot be read (a directory in its place): the bundle runs without it, and saving does not throw',
  ({ dir, bundle }) => {
    loadFresh(bundle, 'log');
    const path = join(cacheDir(dir), files(dir)[0]!);
    rmSync(path);
    mkdirSync(path);
    assert.equal(loadFresh(bundle, 'log'), { cache: 'none', answer: 42 });
    assert.ok(statSync(path).isDirectory(), 'left as it was');
    assert.equal(files(dir), [basename(path)], 'no temporary file left');
  },
);

C('first runs at once: each runs, and one sound cache is left, which the next run uses', async ({ dir, bundle }) => {
  const code = `import(${JSON.stringify(CODE_CACHE)}).then((m) => {
    const l = m.loadBundle(${JSON.stringify(bundle)}, 'batch', process.env);
    l.saveCache('batch');
    process.stdout.write(JSON.stringify({ cache: l.cache, answer: l.exports.answer() }));
  })`;
  const one = (): Promise<string> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', code], { env: { PATH: process.env.PATH } });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
      child.once('close', (status) => resolve(`${status} ${out}`));
    });
  const runs = await Promise.all([one(), one(), one(), one()]);
  // A run that starts after another wrote the cache uses it; none finds it damaged or refused.
  for (const r of runs) assert.match(r, /^0 \{"cache":"(none|used)","answer":42\}$/);
  assert.is(files(dir).length, 1, `one file, no temporary ones: ${files(dir).join(', ')}`);
  assert.equal(loadFresh(bundle, 'batch'), { cache: 'used', answer: 42 });
});

/** The stamp file of this node (one per node version, architecture and cache layout). */
const stampFile = (dir: string): string | undefined => files(dir).find((f) => f.endsWith('.stamp'));
/** A clock past the racy window of a bundle written just now. */
const later = (): number => Date.now() + RACY_MS + 1000;
/** The build a load used, read from the name of the cache it saves. */
function buildUsed(bundle: string, key: string, now?: () => number): { build: string; answer: number } {
  const dir = dirname(bundle);
  const before = new Set(files(dir));
  const l = loadBundle(bundle, key, {}, now);
  l.saveCache(key);
  const made = files(dir).find((f) => !before.has(f) && f.endsWith(`-${key}.bin`));
  assert.ok(made, `a cache for ${key} was written: ${files(dir).join(', ')}`);
  return { build: made.slice(0, 16), answer: (l.exports.answer as () => number)() };
}

C(
  "the bundle's hash is stamped and taken from the stamp at the next start; a change in place is hashed again",
  ({ dir, bundle }) => {
    // Whole seconds: a modification time that can be set back exactly, to the nanosecond.
    utimesSync(bundle, 1_700_000_000, 1_700_000_000);
    const hashed = buildUsed(bundle, 'batch', later);
    const name = stampFile(dir);
    assert.ok(name, `a stamp beside the caches: ${files(dir).join(', ')}`);
    assert.equal(JSON.parse(readFileSync(join(cacheDir(dir), name), 'utf8')).build, hashed.build);
    // What the stamp says is taken without hashing the bundle: a build of its own shows in the cache's name.
    const stampPath = join(cacheDir(dir), name);
    const stamped = JSON.parse(readFileSync(stampPath, 'utf8')) as { file: string; build: string };
    writeFileSync(stampPath, JSON.stringify({ ...stamped, build: 'abcdef0123456789' }));
    assert.equal(buildUsed(bundle, 'log', later), { build: 'abcdef0123456789', answer: 42 });
    // Rewritten in place, the same size, its modification time set back: only the change time tells.
    const before = statSync(bundle, { bigint: true });
    writeFileSync(bundle, bundleSource(43));
    utimesSync(bundle, 1_700_000_000, 1_700_000_000);
    const after = statSync(bundle, { bigint: true });
    assert.equal(
      [after.ino, after.size, after.mtimeNs],
      [before.ino, before.size, before.mtimeNs],
      'the same inode, size and modification time',
    );
    assert.not.equal(after.ctimeNs, before.ctimeNs);
    const changed = buildUsed(bundle, 'status', later);
    assert.equal(changed.answer, 43);
    assert.not.equal(changed.build, 'abcdef0123456789', 'not the stamped build');
    assert.not.equal(changed.build, hashed.build, "not the old bundle's");
    assert.equal(JSON.parse(readFileSync(stampPath, 'utf8')).build, changed.build, 'stamped again');
  },
);

C('a bundle changed within the racy window is hashed and not stamped', ({ dir, bundle }) => {
  const first = buildUsed(bundle, 'batch');
  assert.is(stampFile(dir), undefined, `no stamp: ${files(dir).join(', ')}`);
  assert.is(buildUsed(bundle, 'log').build, first.build, 'the same hash, made again');
  assert.is(stampFile(dir), undefined);
});

C('a damaged or foreign stamp is not used: the bundle is hashed', ({ dir, bundle }) => {
  const hashed = buildUsed(bundle, 'batch', later);
  const stampPath = join(cacheDir(dir), stampFile(dir)!);
  const stamped = JSON.parse(readFileSync(stampPath, 'utf8')) as { file: string; build: string };
  for (const text of [
    '{"file":',
    'null',
    JSON.stringify({ ...stamped, build: '../../escape' }),
    JSON.stringify({ file: `${stamped.file}0`, build: 'abcdef0123456789' }),
    JSON.stringify({ file: stamped.file.replace(/ \d+$/, ' 1'), build: 'abcdef0123456789' }),
  ]) {
    writeFileSync(stampPath, text);
    const key = `k${createHash('sha1').update(text).digest('hex').slice(0, 8)}`;
    assert.equal(
      buildUsed(bundle, key, () => 0),
      { build: hashed.build, answer: 42 },
      text,
    );
  }
});

C(
  'the shadow executable: the first run of a command keeps its cache, the next uses it, and the output is the same',
  ({ dir }) => {
    // A copy of the executable and its bundle, so the test owns the cache directory.
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    for (const f of ['shadow.cjs', 'shadow-cli.cjs']) copyFileSync(join(dirname(SHADOW_BIN), f), join(bin, f));
    const repo = new DiskRepo({ 'a.txt': 'a\n' });
    try {
      const run = () =>
        spawnSync(process.execPath, [join(bin, 'shadow.cjs'), 'draft', 'list', '--json'], {
          cwd: repo.dir,
          env: repo.env,
          encoding: 'utf8',
        });
      const first = run();
      assert.is(first.status, 0, first.stderr);
      assert.equal(
        files(bin).map((f) => f.slice(17)),
        ['draft.bin'],
      );
      const kept = stamp(join(cacheDir(bin), files(bin)[0]!));
      const second = run();
      assert.is(second.status, 0, second.stderr);
      assert.is(second.stdout, first.stdout);
      assert.is(stamp(join(cacheDir(bin), files(bin)[0]!)), kept, 'used, not written again');
      const unknown = spawnSync(process.execPath, [join(bin, 'shadow.cjs'), 'no-such-command'], {
        cwd: repo.dir,
        env: repo.env,
        encoding: 'utf8',
      });
      assert.is(unknown.status, 2);
      assert.equal(
        files(bin).map((f) => f.slice(17)),
        ['draft.bin'],
        'a word that is not a command gets no cache',
      );
    } finally {
      repo.cleanup();
    }
  },
);

C.run();
