import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openShadow, type Shadow } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { FsSeam } from './helpers/fs-seam.js';

/**
 * `git gc --prune=now` (its `git prune`) removes every `tmp_*` file in
 * objects/pack, however young: a batch whose temporary pack vanishes before
 * its rename writes the pack again, and after too many losses fails BUSY
 * with the ref unmoved; never INTERNAL.
 */

const Race = suite('a temporary pack removed under a batch');
const PACK_DIR = '/repo/.git/objects/pack';

/** A handle whose fs removes the temporary pack just before the first `times` renames of one into place, as git prune would. */
async function pruned(repo: MemRepo, times: number): Promise<{ sh: Shadow; removed: () => number }> {
  const seam = new FsSeam(repo.fs);
  const { clock, ids, env } = repo.ctx;
  const sh = await openShadow({ dir: '/repo', fs: seam.fs, clock, ids, env });
  let removed = 0;
  seam.record = true;
  seam.arm();
  seam.onCall = (_n, op) => {
    const rec = seam.log[seam.log.length - 1]!;
    if (op === 'renameSync' && rec.from?.startsWith(`${PACK_DIR}/tmp_pack_`) && removed < times) {
      removed++;
      repo.fs.unlinkSync(rec.from);
    }
  };
  return { sh, removed: () => removed };
}

for (const times of [1, 3]) {
  Race(`removed ${times} time(s): the batch writes its pack again and commits`, async () => {
    const repo = await memRepo({ 'README.md': 'Hello\n' });
    const { sh, removed } = await pruned(repo, times);
    const r = await sh.batch({ operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] });
    assert.is(r.success, true, JSON.stringify(r.error));
    assert.is(removed(), times);
    sh.close();
    const fresh = await repo.open();
    assert.is(
      (await fresh.cat('a.txt')).content.toString(),
      'a\n',
      'the commit and its blob are readable by a new handle',
    );
    assert.equal(
      (repo.fs.readdirSync(PACK_DIR) as string[]).filter((n) => n.startsWith('tmp_')),
      [],
    );
  });
}

Race('removed every time: BUSY, naming git gc, and no batch commit lands', async () => {
  const repo = await memRepo({ 'README.md': 'Hello\n' });
  const { sh } = await pruned(repo, Infinity);
  let code: string | undefined;
  let message = '';
  try {
    const r = await sh.batch({ operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] });
    code = r.error?.code;
    message = r.error?.message ?? '';
  } catch (e) {
    code = (e as { code?: string }).code;
    message = (e as Error).message;
  }
  assert.is(code, 'BUSY', message);
  assert.match(message, /git gc --prune=now/);
  // The draft may exist (it is made before its first commit), at its root only.
  if (await sh.hasDraft()) assert.is((await sh.draftShow()).batches, 0);
});

Race.run();
