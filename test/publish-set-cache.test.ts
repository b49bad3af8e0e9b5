import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Shadow } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';

/**
 * publish.cache: a large draft's publish set, kept under the tip and the
 * bases it came from, so that a new process finds it without reading trees.
 */

const CACHE = '/repo/.git/shadow/drafts/default/publish.cache';
const PATHS = 150; // over the size from which a set is cached

const Sets = suite<{ repo: MemRepo; sh: Shadow }>('publish set cache');
Sets.before.each(async (c) => {
  const files: Record<string, string> = {};
  for (let i = 0; i < PATHS; i++) files[`d${i % 10}/f${i}.txt`] = `${i}\n`;
  c.repo = await memRepo(files);
  c.sh = await c.repo.open();
  const r = await c.sh.batch({
    operations: Array.from({ length: PATHS }, (_, i) => ({
      operation: 'write' as const,
      path: `d${i % 10}/f${i}.txt`,
      content: `${i} changed\n`,
    })),
  });
  assert.ok(r.success);
});

/** A dry run on a new handle: the paths it lists and the objects it read. */
async function fresh(repo: MemRepo): Promise<{ paths: string[]; fingerprint: string; read: number }> {
  const sh = await repo.open();
  const before = sh.stats.objectsRead;
  const r = await sh.apply({ dryRun: true });
  return {
    paths: r.paths.map((p) => `${p.action} ${p.path}`),
    fingerprint: r.fingerprint,
    read: sh.stats.objectsRead - before,
  };
}

Sets(
  "a new handle finds a reviewed draft's set and its review reading only what the path gate reads (the tip and the trees on the touched paths, no blob); without the caches it reads trees and blobs for the same answer",
  async ({ repo, sh }) => {
    await sh.apply({ dryRun: true });
    assert.ok(repo.fs.existsSync(CACHE));
    const cached = await fresh(repo);
    // The gate reads each touched path in the tip's tree: the commit, the root tree and the ten directories.
    assert.is(cached.read, 1 + 1 + 10);
    repo.fs.unlinkSync(CACHE);
    repo.fs.unlinkSync('/repo/.git/shadow/drafts/default/review.cache');
    const computed = await fresh(repo);
    assert.ok(computed.read > PATHS, `${computed.read} objects read`);
    assert.equal(cached.paths, computed.paths);
    assert.is(cached.paths.length, PATHS);
    assert.is(cached.fingerprint, computed.fingerprint);
  },
);

Sets(
  'a new batch or an apply moves the key: the set is found again, never taken from the old one',
  async ({ repo, sh }) => {
    await sh.apply({ dryRun: true });
    await sh.batch({
      operations: [
        { operation: 'write', path: 'new.txt', content: 'n\n' },
        { operation: 'write', path: 'd0/f0.txt', content: '0\n' },
      ],
    });
    const after = await fresh(repo);
    assert.is(after.paths.length, PATHS, 'd0/f0.txt is back to its base; new.txt joins');
    assert.ok(after.paths.includes('create new.txt') && !after.paths.some((p) => p.endsWith(' d0/f0.txt')));
    await sh.apply();
    assert.equal((await fresh(repo)).paths, [], 'applied: the bases are the published contents');
  },
);

Sets(
  "a damaged or tampered cache is not trusted: a path that is not the draft's, another base, a bad line",
  async ({ repo, sh }) => {
    await sh.apply({ dryRun: true });
    const good = String(repo.fs.readFileSync(CACHE, 'utf8'));
    const want = (await fresh(repo)).paths;
    const line = good.split('\n')[2]!;
    const [path, old, next] = line.split('\t') as [string, string, string];
    const tampered = [
      good.replace(line, `../../etc/passwd\t${old}\t${next}`),
      good.replace(line, `${path}\t-\t${next}`),
      good.replace(line, `${path}\t${old}`),
      good.replace(line, `${path}\t${old}\t100644 nothex`),
      good.slice(0, -1),
    ];
    for (const text of tampered) {
      repo.fs.writeFileSync(CACHE, text);
      const r = await fresh(repo);
      assert.equal(r.paths, want);
      assert.ok(r.read > 0, 'the set was found from the trees');
    }
  },
);

Sets.run();
