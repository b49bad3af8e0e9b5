import { suite } from 'uvu';
import { blobOid } from '../src/git/format/git-objects.js';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Volume, createFsFromVolume } from 'memfs';
import { openShadow, type FileSystem } from '../src/index.js';
import { validateSessionContent, type SessionContent, type SessionTarget } from '../src/sessions/session-content.js';
import { nodeContext } from '../src/node-context.js';
import { ObjectDatabase } from '../src/git/object-db.js';
import { contentSlices } from '../src/state/session-files.js';
import { testContext } from './helpers/context.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { memRepo } from './helpers/mem-repo.js';
import { prng } from './helpers/prng.js';

/*
 * A write session's content is never held whole at finalize: it is checked
 * in slices cut at line ends (contentSlices, validateSessionContent over
 * them) and streamed into a pack of its own (ObjectDatabase.writeBlobFromFile).
 * These tests hold the slices to the whole-buffer results, the streamed
 * pack to native git, and finalize to reading content.txt in slices only.
 */

const MiB = 1024 * 1024;

function memFs(): FileSystem {
  const vol = new Volume();
  vol.mkdirSync('/d', { recursive: true });
  return createFsFromVolume(vol) as unknown as FileSystem;
}

/** Text of about `bytes` bytes: lines of varying length with two- and three-byte characters. */
function text(bytes: number, seed = 1): Buffer {
  const rand = prng(seed);
  const words = ['alpha', 'βeta', 'gamma', '€uro', 'naïve', 'x', 'longer-word-here', '日本'];
  const lines: string[] = [];
  for (let size = 0; size < bytes;) {
    const n = 1 + Math.floor(rand() * 30);
    const line: string[] = [];
    for (let i = 0; i < n; i++) line.push(words[Math.floor(rand() * words.length)]!);
    const l = `${line.join(' ')}\n`;
    lines.push(l);
    size += Buffer.byteLength(l);
  }
  return Buffer.from(lines.join(''));
}

// ---------------------------------------------------------------- slices

const Slices = suite('contentSlices');

Slices('every slice but the last ends a line; together they are the first `length` bytes', () => {
  const fs = memFs();
  const ctx = testContext(fs);
  const body = text(3 * MiB + 12345);
  fs.writeFileSync('/d/c.txt', Buffer.concat([body, Buffer.from('junk past the saved length')]));
  const seen: Buffer[] = [];
  for (const s of contentSlices(ctx, '/d/c.txt', body.length)) seen.push(Buffer.from(s));
  assert.ok(seen.length >= 3, `${seen.length} slices`);
  for (const s of seen.slice(0, -1)) assert.is(s[s.length - 1], 0x0a);
  assert.ok(Buffer.concat(seen).equals(body));
});

Slices(
  'a line longer than the buffer is one slice; a last line without a newline comes whole; nothing for length 0',
  () => {
    const fs = memFs();
    const ctx = testContext(fs);
    const long = Buffer.alloc(2.5 * MiB, 0x61);
    const body = Buffer.concat([Buffer.from('first\n'), long, Buffer.from('\nlast line, no newline')]);
    fs.writeFileSync('/d/c.txt', body);
    const seen: Buffer[] = [];
    for (const s of contentSlices(ctx, '/d/c.txt', body.length)) seen.push(Buffer.from(s)); // a slice lives until the next
    assert.ok(Buffer.concat(seen).equals(body));
    assert.ok(
      seen.some((s) => s.length >= long.length),
      'the long line is not cut',
    );
    assert.is(seen[seen.length - 1]!.toString().endsWith('last line, no newline'), true);
    assert.equal([...contentSlices(ctx, '/d/c.txt', 0)], []);
  },
);

// ---------------------------------------------------------------- validation in slices

/** The content as slices cut at random line ends. */
function sliced(content: Buffer, seed: number): SessionContent {
  const rand = prng(seed);
  const cuts: number[] = [];
  for (let i = content.indexOf(0x0a); i !== -1; i = content.indexOf(0x0a, i + 1)) if (rand() < 0.01) cuts.push(i + 1);
  const slices: Buffer[] = [];
  let at = 0;
  for (const c of [...cuts, content.length]) {
    if (c > at) slices.push(content.subarray(at, c));
    at = c;
  }
  return { size: content.length, slices: () => slices, text: () => content.toString('utf8') };
}

const Validate = suite('validation in slices');
const MD: SessionTarget = { path: 'docs/a.md', operation: 'create', binary: false, exists: false };
const noParse = (): undefined => undefined;

Validate(
  'the same errors as over the whole content: stray DONE (its line), bad UTF-8 (its byte), an open fence',
  () => {
    const body = text(400_000, 7);
    const cases: Array<[string, Buffer]> = [
      ['fine', body],
      ['stray DONE', Buffer.concat([body, Buffer.from('\n  \nDONE.\n\n')])],
      ['bad UTF-8 late', Buffer.concat([body, Buffer.from([0x61, 0xc3, 0x28, 0x0a]), body.subarray(0, 1000)])],
      ['open fence early', Buffer.concat([Buffer.from('```ts\n'), body])],
      [
        'fences across slices',
        Buffer.concat([Buffer.from('```\n'), body, Buffer.from('```\n'), body, Buffer.from('   ~~~\n')]),
      ],
      ['empty', Buffer.alloc(0)],
    ];
    for (const [name, content] of cases) {
      const whole = validateSessionContent(MD, content, noParse);
      for (const seed of [1, 2, 3])
        assert.equal(validateSessionContent(MD, sliced(content, seed), noParse), whole, `${name}, cut ${seed}`);
    }
    // And the whole-content results are what they should be.
    assert.equal(validateSessionContent(MD, body, noParse), []);
    const lines = body.toString().split('\n').length;
    assert.equal(validateSessionContent(MD, Buffer.concat([body, Buffer.from('\n  \nDONE.\n\n')]), noParse), [
      `a stray "DONE" marker ends the content (line ${lines + 2}); send DONE alone on its own line to end a session`,
    ]);
    assert.match(validateSessionContent(MD, cases[2]![1], noParse)[0]!, new RegExp(`byte ${body.length + 1}\\)`));
  },
);

// ---------------------------------------------------------------- the streamed pack, read by git

const Pack = suite<{ repo: DiskRepo }>('ObjectDatabase.writeBlobFromFile');
Pack.before.each((c) => {
  c.repo = new DiskRepo(null);
});
Pack.after.each((c) => c.repo.cleanup());

Pack(
  'a file (after a prefix) becomes one blob in a pack of its own that git reads back byte for byte',
  async ({ repo }) => {
    const db = new ObjectDatabase(nodeContext(), join(repo.dir, '.git/objects'));
    const prefix = Buffer.from('what the file held before\n');
    const body = text(3 * MiB, 11);
    const file = join(repo.root, 'content.txt');
    writeFileSync(file, Buffer.concat([body, Buffer.from('not content')]));
    const r = await db.writeBlobFromFile(file, body.length, prefix);
    const whole = Buffer.concat([prefix, body]);
    assert.equal(r, { oid: blobOid(whole), size: whole.length });
    const cat = spawnSync('git', ['cat-file', 'blob', r.oid], { cwd: repo.dir, env: repo.env, maxBuffer: 64 * MiB });
    assert.is(cat.status, 0, String(cat.stderr));
    assert.ok(Buffer.compare(cat.stdout, whole) === 0, 'git reads the same bytes');
    assert.equal(db.readBlob(r.oid), whole);
    repo.git('fsck', '--strict', '--no-dangling');
    const packs = repo.git('count-objects', '-v');
    assert.match(packs, /^packs: 1$/m);
    // An empty file, no prefix: the empty blob.
    writeFileSync(file, '');
    assert.equal(await db.writeBlobFromFile(file, 0), { oid: 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391', size: 0 });
    db.close();
  },
);

// ---------------------------------------------------------------- finalize streams

const Finalize = suite('finalize reads the content in slices, never whole');

Finalize('a 3 MB create and an append: committed byte for byte, content.txt never read whole', async () => {
  const repo = await memRepo({ 'README.md': 'Hello\n' });
  const wholeReads: string[] = [];
  const fs = new Proxy(repo.ctx.fs, {
    get(target, key) {
      const v = (target as unknown as Record<string | symbol, unknown>)[key];
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (key === 'readFileSync' && typeof args[0] === 'string' && args[0].endsWith('/content.txt'))
          wholeReads.push(args[0]);
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as FileSystem;
  const sh = await openShadow({ dir: repo.dir, fs, clock: repo.ctx.clock, ids: repo.ctx.ids, env: repo.ctx.env });
  try {
    const body = text(3 * MiB, 5);
    const feed = async (input: { target_file: string; operation: 'create' | 'append' }, content: Buffer) => {
      const { session_id } = await sh.sessions.begin({ intent: `${input.operation} ${input.target_file}`, ...input });
      for (let i = 0; i < content.length; i += 65536) sh.sessions.push(session_id, content.subarray(i, i + 65536));
      sh.sessions.end(session_id);
      return sh.sessions.finalize(session_id);
    };
    const made = await feed({ target_file: 'docs/big.md', operation: 'create' }, body);
    assert.ok(made.success, JSON.stringify(made.error));
    assert.ok((await sh.cat('docs/big.md')).content.equals(body));
    const more = await feed({ target_file: 'README.md', operation: 'append' }, Buffer.from('appended\n'));
    assert.ok(more.success, JSON.stringify(more.error));
    assert.is((await sh.cat('README.md')).content.toString(), 'Hello\nappended\n');
    assert.equal(wholeReads, [], 'content.txt is read in slices only');
  } finally {
    sh.close();
  }
});

// ---------------------------------------------------------------- failures while streaming, and a writer meanwhile

const Faults = suite('streaming faults and other writers');

/** An fs whose writes to a temporary pack fail with ENOSPC after `budget` bytes; opens and closes counted. */
function fullDisk(fs: FileSystem, budget: number): { fs: FileSystem; open: () => number } {
  let written = 0;
  const fds = new Set<number>();
  const packFds = new Set<number>();
  const wrapped = new Proxy(fs, {
    get(target, key) {
      const v = (target as unknown as Record<string | symbol, unknown>)[key];
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (key === 'writeSync' && packFds.has(args[0] as number)) {
          written += typeof args[3] === 'number' ? (args[3] as number) : (args[1] as Buffer).length;
          if (written > budget)
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        }
        const r = (v as (...a: unknown[]) => unknown).apply(target, args);
        if (key === 'openSync') {
          fds.add(r as number);
          if (String(args[0]).includes('tmp_pack_')) packFds.add(r as number);
        }
        if (key === 'closeSync') fds.delete(args[0] as number);
        return r;
      };
    },
  }) as FileSystem;
  return { fs: wrapped, open: () => fds.size };
}

Faults(
  'a full disk while the pack is written: the call rejects with ENOSPC, no temporary pack is left, nothing stays open',
  async () => {
    const vol = new Volume();
    vol.mkdirSync('/objects/pack', { recursive: true });
    const base = createFsFromVolume(vol) as unknown as FileSystem;
    base.writeFileSync('/content.txt', text(3 * MiB, 3));
    const disk = fullDisk(base, 200_000);
    const db = new ObjectDatabase(testContext(disk.fs), '/objects');
    let code: string | undefined;
    try {
      await db.writeBlobFromFile('/content.txt', 3 * MiB);
    } catch (e) {
      code = (e as { code?: string }).code;
    }
    assert.is(code, 'ENOSPC');
    assert.equal(
      (vol.readdirSync('/objects/pack') as string[]).filter((n) => n.startsWith('tmp_')),
      [],
    );
    assert.is(disk.open(), 0, 'every file opened was closed');
    // A source that is gone: ENOENT, and nothing left open either.
    await db.writeBlobFromFile('/missing.txt', 10).then(
      () => assert.unreachable('a missing source must fail'),
      (e: { code?: string }) => assert.is(e.code, 'ENOENT'),
    );
    assert.is(disk.open(), 0);
  },
);

Finalize(
  'an append whose target another writer changes while the content streams: the other writer’s work is never overwritten',
  async () => {
    const repo = await memRepo({ 'README.md': 'Hello\n' });
    const sh = await repo.open();
    try {
      const body = Buffer.from('appended line\n'.repeat(300_000));
      const { session_id } = await sh.sessions.begin({
        intent: 'append',
        target_file: 'README.md',
        operation: 'append',
      });
      for (let i = 0; i < body.length; i += 65536) sh.sessions.push(session_id, body.subarray(i, i + 65536));
      sh.sessions.end(session_id);
      const finalizing = sh.sessions.finalize(session_id); // reads README.md now, then streams
      const other = await sh.write('README.md', 'Hello\nanother writer\n');
      assert.ok(other.success);
      const f = await finalizing;
      const now = (await sh.cat('README.md')).content.toString();
      assert.ok(now.includes('another writer'), 'the other writer’s content is kept');
      if (f.success)
        assert.ok(now.endsWith(body.toString()), 'a finalize that succeeded appended to what is there now');
      else assert.match(JSON.stringify(f.error), /no longer holds the expected content/);
    } finally {
      sh.close();
    }
  },
);

Faults.run();

Slices.run();
Validate.run();
Pack.run();
Finalize.run();
