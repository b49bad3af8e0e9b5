import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';

const DRAFT_REF = 'refs/shadow/drafts/default';

async function refValue(repo: MemRepo, ref: string): Promise<string | undefined> {
  try {
    return await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref });
  } catch {
    return undefined;
  }
}

async function readDraftFile(repo: MemRepo, path: string, ref = DRAFT_REF): Promise<string | undefined> {
  const oid = await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref });
  try {
    const { blob } = await git.readBlob({ fs: repo.fs, dir: repo.dir, oid, filepath: path });
    return Buffer.from(blob).toString('utf8');
  } catch {
    return undefined;
  }
}

const Batch = suite<{ repo: MemRepo }>('batch');
Batch.before.each(async (ctx) => {
  ctx.repo = await memRepo({ 'README.md': 'Hello\n', 'old.txt': 'old\n', 'src/app.ts': 'export {}\n' });
});

Batch('write, edit and delete land as one commit, readable by isomorphic-git', async ({ repo }) => {
  const sh = await repo.open();
  const r = await sh.batch({
    intent: 'add greeting',
    operations: [
      { operation: 'write', path: 'src/hello.ts', content: 'export const hi = 1\n' },
      { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, world' },
      { operation: 'delete', path: 'old.txt' },
    ],
  });
  assert.is(r.success, true);
  assert.is(r.batch, 1);
  assert.equal(r.results.map((x) => x.status), ['created', 'updated', 'deleted']);
  assert.is(await refValue(repo, DRAFT_REF), r.commit);
  assert.is(await readDraftFile(repo, 'src/hello.ts'), 'export const hi = 1\n');
  assert.is(await readDraftFile(repo, 'README.md'), 'Hello, world\n');
  assert.is(await readDraftFile(repo, 'old.txt'), undefined);
  const [commit] = await git.log({ fs: repo.fs, dir: repo.dir, ref: DRAFT_REF, depth: 1 });
  assert.match(commit!.commit.message, /^add greeting\n/);
  assert.match(commit!.commit.message, /Shadow-Draft: default\nShadow-Batch: 1\nShadow-Actor: Test User\n$/);
  // The working tree is untouched.
  assert.is(repo.read('README.md'), 'Hello\n');
  assert.is(repo.exists('src/hello.ts'), false);
});

Batch('a failing op rejects the whole batch and the ref never moves', async ({ repo }) => {
  const sh = await repo.open();
  await sh.batch({ operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] });
  const before = await refValue(repo, DRAFT_REF);
  const r = await sh.batch({
    operations: [
      { operation: 'write', path: 'b.txt', content: 'b\n' },
      { operation: 'edit', path: 'README.md', old_content: 'Goodbye', content: 'x' },
    ],
  });
  assert.is(r.success, false);
  assert.is(r.error?.code, 'EDIT_NO_MATCH');
  assert.equal(r.results.map((x) => x.status), ['not_applied', 'failed']);
  assert.is(await refValue(repo, DRAFT_REF), before);
  assert.is(await readDraftFile(repo, 'b.txt'), undefined);
});

Batch('a rejected first batch does not create the draft', async ({ repo }) => {
  const sh = await repo.open();
  const r = await sh.batch({ operations: [{ operation: 'delete', path: 'missing.txt' }] });
  assert.is(r.error?.code, 'NOT_FOUND');
  assert.is(await refValue(repo, DRAFT_REF), undefined);
});

Batch('an uncommitted change is captured in its own commit before the batch', async ({ repo }) => {
  repo.write('README.md', 'Hello\nlocal note\n');
  const sh = await repo.open();
  const r = await sh.batch({ operations: [{ operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hi' }] });
  assert.is(r.success, true);
  assert.equal(r.captured, ['README.md']);
  assert.is(await readDraftFile(repo, 'README.md'), 'Hi\nlocal note\n');
  const log = await git.log({ fs: repo.fs, dir: repo.dir, ref: DRAFT_REF, depth: 3 });
  assert.match(log[1]!.commit.message, /^capture working tree state of 1 path before batch 1/);
  assert.match(log[1]!.commit.message, /Shadow-Capture: 1/);
  assert.is(log[2]!.commit.message, 'initial commit\n');
});

Batch.run();
