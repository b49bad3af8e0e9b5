import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import type { Shadow } from '../src/index.js';
import { createRequire } from 'node:module';
import { EXAMINATION_FORMAT } from '../src/review/review.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { codeOf } from './helpers/caught.js';

/** The fingerprint of secretDraftWithEdit's draft: it moves only when the diff's text does. */
const GOLDEN_FINGERPRINT = 'patchset:10a6551faa591c7cf9da2cb2e16383ca84f4fe76988fdfe2e8633e2b358f29f6';

const TOKEN = 'ghp_' + 'k7Q2mZ9xR4tB8wN1vC6yL3pH5sD0fJ2gA9eU'; // made up, shaped like a classic GitHub token

async function withSecretDraft(repo: MemRepo): Promise<Shadow> {
  await git.setConfig({ fs: repo.fs, dir: repo.dir, path: 'shadow.protect', value: '.github/**' });
  const sh = await repo.open();
  const r = await sh.batch({
    intent: 'add ci and a key',
    operations: [
      { operation: 'write', path: '.github/workflows/ci.yml', content: 'on: push\n' },
      { operation: 'write', path: 'src/config.ts', content: `export const token = "${TOKEN}";\n` },
    ],
  });
  assert.ok(r.success);
  return sh;
}

const Review = suite<{ repo: MemRepo }>('review and approvals');
Review.before.each(async (c) => {
  c.repo = await memRepo({ 'README.md': 'Hello\n' });
});

Review(
  'propose freezes the fingerprint; a new batch returns the draft to open with a new fingerprint',
  async ({ repo }) => {
    const sh = await withSecretDraft(repo);
    const p = await sh.propose({ message: 'ci' });
    assert.match(p.patch_fingerprint, /^patchset:[0-9a-f]{64}$/);
    assert.is(p.patch_fingerprint, `patchset:${p.patch_id}`);
    assert.equal(p.target_files, ['.github/workflows/ci.yml', 'src/config.ts']);
    assert.is(p.contains_secret_introductions, true);
    assert.equal(p.base_sha256_by_path, { '.github/workflows/ci.yml': null, 'src/config.ts': null });
    assert.is((await sh.review()).status, 'proposed');
    const meta = JSON.parse(String(repo.fs.readFileSync(`${repo.dir}/.git/shadow/drafts/default/draft.json`, 'utf8')));
    assert.is(meta.pointers.proposal.patch_fingerprint, p.patch_fingerprint);
    await sh.batch({ operations: [{ operation: 'write', path: 'b.txt', content: 'b\n' }] });
    const r = await sh.review();
    assert.is(r.status, 'open');
    assert.is.not(r.fingerprint, p.patch_fingerprint);
    const types = (await sh.events()).map((e) => e.type);
    assert.equal(types, ['draft/open', 'batch/commit', 'proposal', 'tx/status', 'batch/commit', 'tx/status']);
  },
);

Review('apply with pending approvals writes nothing, returns them and logs each request once', async ({ repo }) => {
  const sh = await withSecretDraft(repo);
  for (let i = 0; i < 2; i++) {
    const r = await sh.apply();
    assert.is(r.ok, false);
    assert.is(r.applied, false);
    assert.equal(r.pendingApprovals.map((a) => a.kind).sort(), ['protected_path', 'secrets_override']);
    for (const a of r.pendingApprovals) assert.match(a.id, /^ap-[0-9a-f]{10}$/);
  }
  assert.is(repo.exists('src/config.ts'), false);
  assert.is((await sh.events()).filter((e) => e.type === 'approval/request').length, 2);
});

Review('approve both: apply goes through; secret values never reach the ledger or the review', async ({ repo }) => {
  const sh = await withSecretDraft(repo);
  const review = await sh.review();
  assert.equal(
    review.secrets.map((s) => [s.rule, s.path, s.line, s.redacted.slice(0, 4)]),
    [['github-token', 'src/config.ts', 1, 'ghp_']],
  );
  for (const a of review.approvals) await sh.approve(a.id, { reason: 'reviewed', actor: 'alice' });
  const r = await sh.apply();
  assert.is(r.ok, true);
  assert.is(r.applied, true);
  assert.is(repo.read('src/config.ts'), `export const token = "${TOKEN}";\n`);
  const ledger = String(repo.fs.readFileSync(`${repo.dir}/.git/shadow/drafts/default/events.jsonl`, 'utf8'));
  assert.not.match(ledger, TOKEN.slice(4));
  assert.not.match(JSON.stringify(review), TOKEN.slice(4));
  const types = (await sh.events()).map((e) => e.type);
  assert.equal(types.slice(-5), ['apply/start', 'tx/status', 'apply/complete', 'tx/status', 'tx/close']);
  assert.equal((await sh.verifyEvents()).ok, true);
});

Review(
  'a deny sticks: apply fails fast every time, approve after deny is refused, until the draft changes',
  async ({ repo }) => {
    const sh = await withSecretDraft(repo);
    const [secret, prot] = ['secrets_override', 'protected_path'].map((k) => (sh as Shadow) && k);
    const review = await sh.review();
    const secretId = review.approvals.find((a) => a.kind === secret)!.id;
    const protId = review.approvals.find((a) => a.kind === prot)!.id;
    const denied = await sh.deny(secretId, { reason: 'no tokens in the repo', actor: 'bob' });
    assert.is(denied.status, 'denied');
    await sh.approve(protId);
    for (let i = 0; i < 3; i++) {
      try {
        await sh.apply();
        assert.unreachable();
      } catch (e) {
        const err = e as { code: string; message: string };
        assert.is(err.code, 'DENIED');
        assert.match(err.message, /denied by bob \([^)]+ <[^>]+>\) at .*: no tokens in the repo/);
      }
    }
    assert.is(await codeOf(() => sh.approve(secretId)), 'DENIED');
    assert.is(await codeOf(() => sh.deny(secretId, { reason: 'again' })), 'ALREADY_DECIDED');
    assert.is(await codeOf(() => sh.approve(protId)), 'ALREADY_DECIDED');
    assert.is(repo.exists('src/config.ts'), false);
    // The draft changes: the old ids are stale, new ones are asked for.
    await sh.edit('src/config.ts', `"${TOKEN}"`, 'process.env.GITHUB_TOKEN');
    assert.is(await codeOf(() => sh.approve(secretId)), 'STALE_APPROVAL');
    assert.is(await codeOf(() => sh.approve('ap-0000000000')), 'APPROVAL_NOT_FOUND');
    const r = await sh.apply();
    assert.equal(
      r.pendingApprovals.map((a) => a.kind),
      ['protected_path'],
    );
  },
);

Review('mass deletions need an approval past shadow.maxDeletes', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 4; i++) files[`f${i}.txt`] = `${i}\n`;
  const repo = await memRepo(files);
  await git.setConfig({ fs: repo.fs, dir: repo.dir, path: 'shadow.maxDeletes', value: '3' });
  const sh = await repo.open();
  await sh.remove(Object.keys(files));
  const r = await sh.apply();
  assert.equal(
    r.pendingApprovals.map((a) => [a.kind, a.paths.length]),
    [['mass_delete', 4]],
  );
});

Review('read-only sandbox: apply and unapply refused with READ_ONLY, drafts still allowed', async ({ repo }) => {
  await git.setConfig({ fs: repo.fs, dir: repo.dir, path: 'shadow.sandbox', value: 'read-only' });
  const sh = await repo.open();
  const b = await sh.batch({ operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] });
  assert.ok(b.success);
  assert.is(await codeOf(() => sh.apply()), 'READ_ONLY');
  assert.is(await codeOf(() => sh.unapply()), 'READ_ONLY');
  assert.is((await sh.apply({ dryRun: true })).paths.length, 1);
  assert.is((await sh.apply({ sandbox: 'workspace-write' })).applied, true);
  assert.is(repo.read('a.txt'), 'a\n');
});

Review('resume: a new process sees the proposal and its pending approvals, decides, applies', async ({ repo }) => {
  const first = await withSecretDraft(repo);
  await first.propose();
  await first.apply();
  first.close();
  const second = await repo.open();
  const r = await second.review();
  assert.is(r.status, 'proposed');
  assert.equal(
    r.approvals.map((a) => a.status),
    ['pending', 'pending'],
  );
  for (const a of r.approvals) await second.approve(a.id);
  assert.is((await second.apply()).applied, true);
  assert.is((await second.review()).status, 'completed');
});

Review('secrets in binary files are not scanned but reported', async ({ repo }) => {
  const sh = await repo.open();
  await sh.write('blob.bin', Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(TOKEN)]));
  const r = await sh.review();
  assert.equal(r.unscanned, ['blob.bin']);
  assert.equal(r.secrets, []);
});

Review.run();

// ---------------------------------------------------------------- the review cache on disk

const Cache = suite<{ repo: MemRepo }>('review cache');
Cache.before.each(async (c) => {
  c.repo = await memRepo({ 'README.md': 'Hello\n', 'src/app.ts': 'export const a = 1;\n' });
});

const CACHE = '/.git/shadow/drafts/default/review.cache';

async function secretDraftWithEdit(repo: MemRepo, filler = 0): Promise<Shadow> {
  const sh = await withSecretDraft(repo);
  const operations = [{ operation: 'write' as const, path: 'src/app.ts', content: 'export const a = 2;\n' }];
  for (let i = 0; i < filler; i++)
    operations.push({ operation: 'write', path: `docs/n${i}.md`, content: `note ${i}\n` });
  assert.ok((await sh.batch({ operations })).success);
  return sh;
}

/** Paths enough for a review to be saved on disk. */
const LARGE = 40;

/** A dry run on a fresh handle (a new process's view): its result and the objects it read. */
async function freshDryRun(repo: MemRepo): Promise<{ fingerprint: string; secrets: unknown; read: number }> {
  const sh = await repo.open();
  const before = sh.stats.objectsRead;
  const r = await sh.apply({ dryRun: true });
  return { fingerprint: r.fingerprint, secrets: r.findings.secrets, read: sh.stats.objectsRead - before };
}

Cache(
  'a fresh handle reads the fingerprint and findings a review saved, not the blobs: the same answer with every blob unread',
  async ({ repo }) => {
    const sh = await secretDraftWithEdit(repo, LARGE);
    const review = await sh.review();
    assert.ok(repo.fs.existsSync(repo.dir + CACHE));
    const cached = await freshDryRun(repo);
    repo.fs.unlinkSync(repo.dir + CACHE);
    const computed = await freshDryRun(repo);
    assert.is(cached.fingerprint, review.fingerprint);
    assert.is(computed.fingerprint, review.fingerprint);
    assert.equal(cached.secrets, computed.secrets);
    assert.equal(
      (cached.secrets as Array<{ rule: string }>).map((s) => s.rule),
      ['github-token'],
    );
    // Every new blob and the one base: none is read through the cache.
    assert.is(computed.read - cached.read, 3 + LARGE + 1);
    assert.not.match(
      String(repo.fs.readFileSync(repo.dir + CACHE, 'utf8')),
      TOKEN.slice(4),
      'no secret value in the cache',
    );
  },
);

Cache(
  'a damaged or foreign review cache is never trusted: the review is computed again and the cache rewritten',
  async ({ repo }) => {
    const sh = await secretDraftWithEdit(repo, LARGE);
    const fingerprint = (await sh.review()).fingerprint;
    const good = String(repo.fs.readFileSync(repo.dir + CACHE, 'utf8'));
    for (const bad of [
      '{"version":1,"summaries":[{"key":',
      '[]',
      good.replace(/"patch_id":"[0-9a-f]+"/, '"patch_id":7'),
    ]) {
      repo.fs.writeFileSync(repo.dir + CACHE, bad);
      const r = await freshDryRun(repo);
      assert.is(r.fingerprint, fingerprint);
      assert.is(String(repo.fs.readFileSync(repo.dir + CACHE, 'utf8')), good);
    }
    // A summary under another key (another publish set) changes nothing.
    const other = good
      .replace(/"key":"[0-9a-f]+"/, `"key":"${'0'.repeat(64)}"`)
      .replace(/"patch_id":"[0-9a-f]+"/, `"patch_id":"${'1'.repeat(64)}"`);
    repo.fs.writeFileSync(repo.dir + CACHE, other);
    assert.is((await freshDryRun(repo)).fingerprint, fingerprint);
  },
);

Cache('after another batch a fresh handle gets the new fingerprint, never the cached one', async ({ repo }) => {
  const sh = await secretDraftWithEdit(repo, LARGE);
  const first = (await sh.review()).fingerprint;
  const sh2 = await repo.open();
  await sh2.batch({ operations: [{ operation: 'write', path: 'src/app.ts', content: 'export const a = 3;\n' }] });
  const second = await freshDryRun(repo);
  assert.is.not(second.fingerprint, first);
  repo.fs.unlinkSync(repo.dir + CACHE);
  assert.is((await freshDryRun(repo)).fingerprint, second.fingerprint);
});

Cache('shadow review shows the diff on a fresh handle too (the cache keeps no text)', async ({ repo }) => {
  const sh = await secretDraftWithEdit(repo, LARGE);
  const diff = (await sh.review()).diff;
  assert.match(diff, 'diff --git a/src/app.ts b/src/app.ts');
  assert.is((await (await repo.open()).review()).diff, diff);
});

Cache("a small draft's review is not saved: examining it costs less than the file", async ({ repo }) => {
  const sh = await secretDraftWithEdit(repo);
  await sh.review();
  await sh.apply({ dryRun: true });
  assert.is(repo.fs.existsSync(repo.dir + CACHE), false);
});

Cache(
  'the examination format names the installed jsdiff, and a known draft keeps its known fingerprint (bump EXAMINATION_FORMAT when this moves)',
  async ({ repo }) => {
    const installed = (createRequire(import.meta.url)('diff/package.json') as { version: string }).version;
    assert.ok(
      EXAMINATION_FORMAT.includes(`jsdiff ${installed}`),
      `EXAMINATION_FORMAT "${EXAMINATION_FORMAT}" names jsdiff ${installed}`,
    );
    const sh = await secretDraftWithEdit(repo);
    const r = await sh.review();
    assert.is(r.fingerprint, GOLDEN_FINGERPRINT);
    assert.equal(
      r.secrets.map((s) => [s.rule, s.path, s.line, s.redacted]),
      [['github-token', 'src/config.ts', 1, 'ghp_****************']],
    );
  },
);

Cache.run();
