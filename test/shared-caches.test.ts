import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openShadow, SharedCaches, type FileSystem, type Shadow } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';

/*
 * Handles of one process that share caches (a server's handed-off calls):
 * a handle starts from the draft metadata the one before it kept, without
 * reading draft.json again; what another process changes (the ref, or
 * draft.json alone) is seen by the next handle all the same.
 */

/**
 * The handles' clock runs this far ahead of the file system's (memfs stamps files with real time): a
 * file written before `settle()` is past statStamp's racy window, and trusted, without waiting for it.
 */
let ahead = 0;
const settle = async (): Promise<void> => {
  ahead += 5_000;
};

const S = suite<{ repo: MemRepo; reads: string[]; shared: SharedCaches }>(
  'caches shared between the handles of a process',
);
S.before.each(async (c) => {
  c.repo = await memRepo({ 'README.md': 'Hello\n', 'x.txt': 'x0\n' });
  c.reads = [];
  c.shared = new SharedCaches();
});

/** A handle as a new call opens it: real time moved ahead by settle() (file stamps are read against it), reads of draft.json counted, caches shared or not. */
function open(c: { repo: MemRepo; reads: string[] }, shared: SharedCaches | undefined): Promise<Shadow> {
  const base = c.repo.fs;
  const fs = new Proxy(base, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (prop !== 'readFileSync' || typeof v !== 'function') return typeof v === 'function' ? v.bind(target) : v;
      return (path: unknown, ...rest: unknown[]) => {
        if (String(path).endsWith('/draft.json')) c.reads.push(String(path));
        return (v as (...a: unknown[]) => unknown).call(target, path, ...rest);
      };
    },
  }) as FileSystem;
  const ctx = c.repo.ctx;
  const clock = { ...ctx.clock, now: () => Date.now() + ahead };
  return openShadow({ dir: '/repo', fs, clock, ids: ctx.ids, env: ctx.env, shared });
}

S('a handle sharing caches loads a draft from what the one before it kept: draft.json is not read', async (c) => {
  const a = await open(c, c.shared);
  await a.draftNew('d', { actor: 'alice' });
  assert.ok((await a.write('x.txt', 'x1\n', { draft: 'd' })).success);
  a.close();
  await settle();
  c.reads.length = 0;
  const b = await open(c, c.shared);
  assert.is((await b.cat('x.txt', { draft: 'd' })).content.toString(), 'x1\n');
  assert.ok((await b.write('x.txt', 'x2\n', { draft: 'd' })).success);
  b.close();
  assert.equal(c.reads, [], 'no read of draft.json');
  // Without shared caches, each handle reads it.
  const alone = await open(c, undefined);
  assert.is((await alone.draftShow({ draft: 'd' })).created_by, 'alice');
  alone.close();
  assert.ok(c.reads.length > 0);
});

S('what another process changes is seen: draft.json rewritten at the same tip, and the ref moved', async (c) => {
  const a = await open(c, c.shared);
  await a.draftNew('d', { actor: 'alice' });
  const w = await a.write('x.txt', 'x1\n', { draft: 'd' });
  assert.is((await a.draftShow({ draft: 'd' })).created_by, 'alice');
  a.close();
  await settle();
  // Another process drops the draft and makes it again at the same tip: only draft.json differs.
  const other = await open(c, undefined);
  await other.draftDrop('d');
  await other.draftNew('d', { from: w.commit!, actor: 'carol' });
  other.close();
  await settle();
  const b = await open(c, c.shared);
  const shown = await b.draftShow({ draft: 'd' });
  assert.equal([shown.tip, shown.created_by], [w.commit, 'carol']);
  assert.ok((await b.write('x.txt', 'x2\n', { draft: 'd' })).success);
  const root = shown.root;
  b.close();
  // The ref moved back by plain git: the next handle sees the draft as it stands there.
  c.repo.fs.writeFileSync('/repo/.git/refs/shadow/drafts/d', `${root}\n`);
  const d = await open(c, c.shared);
  assert.is((await d.cat('x.txt', { draft: 'd' })).content.toString(), 'x0\n');
  assert.is((await d.status({ draft: 'd' })).changed.length, 0);
  d.close();
});

S.run();
