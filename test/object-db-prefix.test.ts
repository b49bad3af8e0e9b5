import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { nodeContext } from '../src/node-context.js';
import { ObjectDatabase } from '../src/git/object-db.js';
import { PackIndex } from '../src/git/pack-reader.js';
import { buildPack } from '../src/git/format/pack-writer.js';
import { hashObject } from '../src/git/format/git-objects.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { looseCount, obj, objectsDir, packs } from './helpers/object-store.js';

/*
 * ObjectDatabase.expandPrefix: abbreviated ids across packed and loose
 * objects, as git rev-parse expands them.
 */

// ---------------------------------------------------------------- abbreviated ids

/** Ids of every object, as git lists them. */
function allIds(repo: DiskRepo): string[] {
  return repo.git('cat-file', '--batch-all-objects', '--batch-check=%(objectname)').trim().split('\n');
}

/** A prefix of `length` hex digits shared by at least two of `ids`. */
function sharedPrefix(ids: string[], length: number): string {
  const seen = new Set<string>();
  for (const id of ids) {
    const p = id.slice(0, length);
    if (seen.has(p)) return p;
    seen.add(p);
  }
  throw new Error(`no two ids share ${length} digits`);
}

const Prefix = suite<{ repo: DiskRepo; ids: string[] }>('ObjectDatabase.expandPrefix');
const PACKED = Array.from({ length: 1000 }, (_, i) => obj('blob', `packed ${i}\n`));
const LOOSE = Array.from({ length: 200 }, (_, i) => obj('blob', `loose ${i}\n`));

Prefix.before.each((ctx) => {
  // Many objects, most in a pack (indexed by git index-pack) and some loose
  // (written by git unpack-objects), so that short prefixes collide.
  ctx.repo = new DiskRepo(null);
  for (const [args, objects] of [
    [['index-pack', '--stdin'], PACKED],
    [['unpack-objects', '-q'], LOOSE],
  ] as const) {
    const r = spawnSync('git', args, {
      cwd: ctx.repo.dir,
      env: ctx.repo.env,
      input: Buffer.concat(buildPack(objects).pack),
    });
    assert.is(r.status, 0, String(r.stderr));
  }
  ctx.ids = allIds(ctx.repo);
  assert.is(ctx.ids.length, PACKED.length + LOOSE.length);
  assert.is(looseCount(ctx.repo), LOOSE.length);
});
Prefix.after.each((ctx) => ctx.repo.cleanup());

Prefix('a unique abbreviation expands to its one id (packed and loose)', ({ repo, ids }) => {
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  const packedId = hashObject('blob', Buffer.from('packed 7\n'));
  const looseId = hashObject('blob', Buffer.from('loose 7\n'));
  for (const id of [packedId, looseId]) {
    const unique = [7, 8, 10, 12]
      .map((n) => id.slice(0, n))
      .find((p) => ids.filter((x) => x.startsWith(p)).length === 1)!;
    assert.equal(db.expandPrefix(unique), [id]);
    assert.is(repo.git('rev-parse', '--disambiguate=' + unique).trim(), id);
    assert.equal(db.expandPrefix(id), [id]);
  }
});

Prefix('an ambiguous abbreviation finds every candidate, as git rev-parse --disambiguate does', ({ repo, ids }) => {
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  const prefix = sharedPrefix(ids, 4);
  const git = repo.git('rev-parse', `--disambiguate=${prefix}`).trim().split('\n').sort();
  assert.ok(git.length >= 2);
  assert.equal(db.expandPrefix(prefix, 1000).sort(), git, `prefix ${prefix}`);
  // The default limit still tells ambiguous from unique.
  assert.is(db.expandPrefix(prefix).length, 2);
});

Prefix('a prefix shared by a packed and a loose object finds both', ({ repo }) => {
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  const packed = PACKED.map((o) => o.oid);
  const loose = LOOSE.map((o) => o.oid);
  let prefix = '';
  for (const p of packed) {
    const l = loose.find((x) => x.slice(0, 4) === p.slice(0, 4));
    if (l) {
      prefix = p.slice(0, 4);
      break;
    }
  }
  assert.is(prefix.length, 4, 'the fixture has a packed and a loose id sharing 4 digits');
  const expected = [...packed, ...loose].filter((id) => id.startsWith(prefix)).sort();
  assert.equal(db.expandPrefix(prefix, 100).sort(), expected);
  assert.equal(repo.git('rev-parse', `--disambiguate=${prefix}`).trim().split('\n').sort(), expected);
});

Prefix('short prefixes of 1 to 3 digits, across packed and loose objects', ({ repo, ids }) => {
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  for (const prefix of ['a', '7', 'f', '0c', 'e3', '5a1', ids[0]!.slice(0, 3)]) {
    const expected = ids.filter((id) => id.startsWith(prefix)).sort();
    assert.equal(db.expandPrefix(prefix, 10_000).sort(), expected, `prefix ${prefix}`);
  }
});

Prefix('every object of a pack indexed by git index-pack, and the loose ones, reads back', ({ repo }) => {
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  for (const o of [...PACKED, ...LOOSE]) {
    const got = db.read(o.oid);
    assert.is(got.type, 'blob');
    assert.ok(got.content.equals(o.content), o.oid);
  }
  assert.equal(
    packs(repo).map((idx) => new PackIndex(nodeContext().fs, idx).size()),
    [PACKED.length],
  );
  db.close();
});

Prefix('a prefix no object has expands to nothing', ({ repo, ids }) => {
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  let prefix = '';
  for (let n = 0; ; n++) {
    prefix = n.toString(16).padStart(6, '0');
    if (!ids.some((id) => id.startsWith(prefix))) break;
  }
  assert.equal(db.expandPrefix(prefix), []);
});

Prefix.run();
