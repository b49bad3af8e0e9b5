import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hashObject, type ObjectType } from '../src/git/format/git-objects.js';
import { ObjectDatabase } from '../src/git/object-db.js';
import { PackSet } from '../src/git/pack-set.js';
import { nodeContext, type FileSystem } from '../src/index.js';
import { withRepo } from './helpers/disk-repo.js';
import { FsSeam } from './helpers/fs-seam.js';

/*
 * A pack's entries are read through a 64 KB window kept by its reader: the
 * small entries near one another (a draft's commits and trees, which
 * `status` reads one by one) come from one read, and an entry larger than
 * the window, or one that runs past its end, reads whole as before; an
 * entry far from the last one read reads only what it needs. The pack that
 * answered is tried first for the next object. Every object reads back as
 * git reads it.
 */

const W = suite('reads of a pack through a window');

function object(type: ObjectType, content: Buffer): { oid: string; type: ObjectType; content: Buffer } {
  return { oid: hashObject(type, content), type, content };
}

W('sixty small entries of one pack take two reads of it; large and straddling entries read whole', () =>
  withRepo((repo) => {
    const small = Array.from({ length: 60 }, (_, i) =>
      object('commit', Buffer.from(`tree ${'4b825dc642cb6eb9a060e54bf8d69288fbee4904'}\n\ncommit ${i}\n`)),
    );
    // Incompressible blobs: one larger than the window, and ones that end past it.
    const large = [
      object('blob', randomBytes(100 * 1024)),
      object('blob', randomBytes(40 * 1024)),
      object('blob', randomBytes(40 * 1024)),
    ];
    const writer = new ObjectDatabase(nodeContext({ env: repo.env }), `${repo.dir}/.git/objects`);
    const idx = writer.write([...small, ...large])!;
    writer.close();
    const pack = `${idx.slice(0, -4)}.pack`;

    const seam = new FsSeam(nodeFs as unknown as FileSystem);
    seam.record = true;
    seam.arm();
    const reader = new ObjectDatabase(nodeContext({ env: repo.env, fs: seam.fs }), `${repo.dir}/.git/objects`);
    for (const o of small) assert.equal(reader.read(o.oid)?.content, o.content, 'a small entry');
    const packReads = () => seam.log.filter((c) => c.op === 'readSync' && c.path === pack).length;
    // The first read takes what the first entry needs (it may be a lone one), the next one near it a window.
    assert.ok(packReads() <= 2, `at most two reads of the pack for sixty entries, not ${packReads()}`);
    for (const o of large) assert.equal(reader.read(o.oid)?.content, o.content, 'a large entry');
    reader.close();

    // git reads the same objects from the same pack.
    const git = spawnSync('git', ['cat-file', '--batch'], {
      cwd: repo.dir,
      env: repo.env,
      input: [...small, ...large].map((o) => o.oid).join('\n'),
      maxBuffer: 1 << 24,
    });
    assert.is(git.status, 0, String(git.stderr));
    let at = 0;
    for (const o of [...small, ...large]) {
      const nl = git.stdout.indexOf(0x0a, at);
      assert.is(git.stdout.toString('latin1', at, nl), `${o.oid} ${o.type} ${o.content.length}`);
      assert.ok(git.stdout.subarray(nl + 1, nl + 1 + o.content.length).equals(o.content), `${o.oid}: git's bytes`);
      at = nl + 1 + o.content.length + 1;
    }
  }),
);

W('entries far apart read only what each needs, not a window each', () =>
  withRepo((repo) => {
    // Incompressible 20 KB blobs, so that every fourth one lies further than a window from the last.
    const blobs = Array.from({ length: 24 }, () => object('blob', randomBytes(20 * 1024)));
    const writer = new ObjectDatabase(nodeContext({ env: repo.env }), `${repo.dir}/.git/objects`);
    const idx = writer.write(blobs)!;
    writer.close();
    const packFile = `${idx.slice(0, -4)}.pack`;
    let bytes = 0;
    let packFd = -1;
    const counted = {
      ...nodeFs,
      openSync: (path: nodeFs.PathLike, ...rest: unknown[]) => {
        const fd = (nodeFs.openSync as (...a: unknown[]) => number)(path, ...rest);
        if (String(path) === packFile) packFd = fd;
        return fd;
      },
      readSync: (fd: number, buf: NodeJS.ArrayBufferView, ...rest: unknown[]) => {
        const n = (nodeFs.readSync as (...a: unknown[]) => number)(fd, buf, ...rest);
        if (fd === packFd) bytes += n;
        return n;
      },
    } as unknown as FileSystem;
    const reader = new ObjectDatabase(nodeContext({ env: repo.env, fs: counted }), `${repo.dir}/.git/objects`);
    const far = blobs.filter((_, i) => i % 4 === 0);
    for (const o of far) assert.equal(reader.read(o.oid)?.content, o.content, 'a blob');
    reader.close();
    assert.ok(packFd !== -1, 'the pack was read');
    // Each needs about 20.5 KB (a 4 KB first read, then the rest); a 64 KB window each would read 384 KB.
    assert.ok(bytes <= far.length * 26 * 1024, `${bytes} bytes read for ${far.length} blobs of 20 KB`);
  }),
);

/**
 * Two packs written in `dir` (an objects directory), `first` listed first
 * whatever order the directory gives, with a count of the searches made in
 * it; `none` refuses a delta base from elsewhere (the packs hold none).
 */
function twoPacks(
  dir: string,
  env: NodeJS.ProcessEnv,
  first: ReturnType<typeof object>[],
  second: ReturnType<typeof object>[],
) {
  const writer = new ObjectDatabase(nodeContext({ env }), dir);
  const firstIdx = writer.write(first)!;
  const secondIdx = writer.write(second)!;
  writer.close();
  const set = new PackSet(nodeFs as unknown as FileSystem, `${dir}/pack`);
  const listed = set.list();
  listed.sort((a, b) => (a.idxPath === firstIdx ? -1 : b.idxPath === firstIdx ? 1 : 0));
  const pack = listed[0]!;
  assert.is(pack.idxPath, firstIdx);
  const searches = { count: 0 };
  const readObject = pack.readObject.bind(pack);
  pack.readObject = (...args) => {
    searches.count++;
    return readObject(...args);
  };
  const none = (oid: string): never => {
    throw new Error(`no base ${oid}`);
  };
  return { set, firstIdx, secondIdx, pack, searches, none };
}

W('the pack that answered is tried first for the next object, as git keeps its packs', () =>
  withRepo((repo) => {
    const dir = `${repo.dir}/.git/objects`;
    const mine = Array.from({ length: 30 }, (_, i) => object('blob', Buffer.from(`mine ${i}\n`)));
    const other = Array.from({ length: 30 }, (_, i) => object('blob', Buffer.from(`other ${i}\n`)));
    // The other pack first, whatever order the directory listed them in.
    const { set, firstIdx: otherIdx, secondIdx: mineIdx, searches, none } = twoPacks(dir, repo.env, other, mine);
    for (const o of mine) assert.equal(set.read(o.oid, none)?.content, o.content);
    assert.is(searches.count, 1, 'the other pack was searched for the first object only');
    assert.is(set.list()[0]!.idxPath, mineIdx, 'the pack that answered is first');
    for (const o of other) assert.equal(set.read(o.oid, none)?.content, o.content);
    assert.is(set.list()[0]!.idxPath, otherIdx);
    set.close();
  }),
);

W('a pack whose index is read in slices is tried after the packs searched in memory', () =>
  withRepo((repo) => {
    const dir = `${repo.dir}/.git/objects`;
    // Over 256 KB of index (28 bytes an object): read slice by slice, as a large history's is.
    const history = Array.from({ length: 10_000 }, (_, i) => object('blob', Buffer.from(`history ${i}\n`)));
    const draft = Array.from({ length: 20 }, (_, i) => object('blob', Buffer.from(`draft ${i}\n`)));
    const {
      set,
      firstIdx: historyIdx,
      secondIdx: draftIdx,
      pack: large,
      searches,
      none,
    } = twoPacks(dir, repo.env, history, draft);
    assert.ok(nodeFs.statSync(historyIdx).size > 256 * 1024, 'a large index');
    // A diff's pattern: a path's old blob from the history, its new one from the draft, in turn.
    for (let i = 0; i < draft.length; i++) {
      const old = history[i * 397]!;
      assert.equal(set.read(old.oid, none)?.content, old.content);
      assert.equal(set.read(draft[i]!.oid, none)?.content, draft[i]!.content);
    }
    assert.ok(large.readInSlices, 'the history pack is read in slices');
    assert.is(searches.count, draft.length, 'the large pack was searched for its own objects only');
    assert.equal(
      set.list().map((p) => p.idxPath),
      [draftIdx, historyIdx],
    );
    set.close();
  }),
);

W.run();
