import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type Shadow } from '../src/index.js';
import { callTool } from '../src/agent-tools/call-tool.js';
import { DiskRepo, treeHashes, withShadow } from './helpers/disk-repo.js';
import { Api } from './helpers/session-http.js';
import { bareRemote } from './helpers/remotes.js';
import { noteBatches, withRemote } from './helpers/remote-repos.js';

/*
 * A decision is bound to what was seen: apply, approve and deny take the
 * review fingerprint `shadow review` printed (`expect`), and a draft that
 * moved since is STALE_REVIEW on every surface, with nothing written, no
 * ledger line, no journal. The new fingerprint then works.
 */

const REF = 'refs/shadow/drafts/d';

interface Ctx {
  repo: DiskRepo;
}

function ledgerTypes(repo: DiskRepo): string[] {
  const file = join(repo.dir, '.git/shadow/drafts/d/events.jsonl');
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).type as string);
}

function journals(repo: DiskRepo): string[] {
  const dir = join(repo.dir, '.git/shadow/journal');
  return existsSync(dir) ? readdirSync(dir) : [];
}

async function write(sh: Shadow, path: string, content: string): Promise<void> {
  const r = await sh.batch(
    { intent: `write ${path}`, operations: [{ operation: 'write', path, content }] },
    { draft: 'd' },
  );
  assert.ok(r.success, JSON.stringify(r.error));
}

async function caught(
  f: () => Promise<unknown>,
): Promise<{ code?: string; data?: Record<string, unknown>; hint?: string; message: string }> {
  try {
    await f();
  } catch (e) {
    return e as { code?: string; data?: Record<string, unknown>; hint?: string; message: string };
  }
  assert.unreachable('no error');
  throw new Error('unreachable');
}

/** Everything a refused apply must have left as it was: the working tree's bytes, the ledger, the journals, the ref. */
function snapshot(repo: DiskRepo): string {
  const tree = treeHashes(repo.dir);
  delete tree['.git'];
  return JSON.stringify({
    tree: Object.entries(tree).filter(([p]) => !p.startsWith('.git/')),
    ledger: ledgerTypes(repo),
    journals: journals(repo),
    ref: repo.ref(REF),
    head: repo.ref('HEAD'),
  });
}

const Expect = suite<Ctx>('apply --expect');
Expect.before.each((c) => {
  c.repo = new DiskRepo();
});
Expect.after.each(({ repo }) => repo.cleanup());

Expect(
  'library: a batch between review and apply is STALE_REVIEW naming both fingerprints, nothing written; the new fingerprint applies',
  async ({ repo }) => {
    await withShadow(repo, async (sh) => {
      await write(sh, 'a.txt', 'reviewed\n');
      const seen = await sh.review({ draft: 'd' });
      assert.match(seen.review_fingerprint, /^review:[0-9a-f]{64}$/);
      await write(sh, 'b.txt', 'nobody reviewed this\n');
      const before = snapshot(repo);
      for (const paths of [undefined, ['a.txt']]) {
        const e = await caught(() => sh.apply({ draft: 'd', expect: seen.review_fingerprint, paths }));
        assert.is(e.code, 'STALE_REVIEW', e.message);
        assert.is(e.data?.expected, seen.review_fingerprint);
        const now = await sh.review({ draft: 'd' });
        assert.is(e.data?.current, now.review_fingerprint);
        assert.match(e.hint ?? '', /review it again/);
        assert.is(snapshot(repo), before, `nothing written (paths ${String(paths)})`);
      }
      assert.not.ok(repo.exists('a.txt') || repo.exists('b.txt'));
      const fresh = await sh.review({ draft: 'd' });
      const r = await sh.apply({ draft: 'd', expect: fresh.review_fingerprint });
      assert.is(r.applied, true);
      assert.is(r.review_fingerprint, fresh.review_fingerprint);
      assert.is(repo.read('b.txt'), 'nobody reviewed this\n');
      assert.is(repo.read('a.txt'), 'reviewed\n');
    });
  },
);

Expect(
  'library: a batch that leaves the diff as it was still changes the review fingerprint (apply --commit would publish its commits); the patch fingerprint stays',
  async ({ repo }) => {
    await withShadow(repo, async (sh) => {
      await write(sh, 'a.txt', 'reviewed\n');
      const seen = await sh.review({ draft: 'd' });
      await write(sh, 'tmp.txt', 'a token once\n');
      const gone = await sh.batch(
        { intent: 'remove tmp', operations: [{ operation: 'delete', path: 'tmp.txt' }] },
        { draft: 'd' },
      );
      assert.ok(gone.success);
      const now = await sh.review({ draft: 'd' });
      assert.is(now.fingerprint, seen.fingerprint);
      assert.is.not(now.review_fingerprint, seen.review_fingerprint);
      const head = repo.ref('HEAD');
      const e = await caught(() => sh.apply({ draft: 'd', commit: true, expect: seen.review_fingerprint }));
      assert.is(e.code, 'STALE_REVIEW');
      assert.is(repo.ref('HEAD'), head);
      assert.not.ok(repo.exists('a.txt'));
      const r = await sh.apply({ draft: 'd', commit: true, expect: now.review_fingerprint });
      assert.ok(r.branch);
      assert.is(repo.ref('HEAD'), r.branch!.new);
      // Native git: the branch holds the draft's three commits, the file and no tmp.txt.
      assert.is(repo.git('rev-list', '--count', `${head}..HEAD`).trim(), '3');
      assert.is(repo.git('show', 'HEAD:a.txt'), 'reviewed\n');
      assert.is(repo.gitResult('cat-file', '-e', 'HEAD:tmp.txt').status === 0, false);
    });
  },
);

Expect(
  'library: a rollback, and an apply of part of the draft, change it too; an expect that is no review fingerprint is INVALID_ARGUMENT',
  async ({ repo }) => {
    await withShadow(repo, async (sh) => {
      await write(sh, 'a.txt', 'one\n');
      await write(sh, 'b.txt', 'two\n');
      const seen = await sh.review({ draft: 'd' });
      await sh.apply({ draft: 'd', paths: ['a.txt'], expect: seen.review_fingerprint });
      assert.is(repo.read('a.txt'), 'one\n');
      assert.is((await caught(() => sh.apply({ draft: 'd', expect: seen.review_fingerprint }))).code, 'STALE_REVIEW');
      const partial = await sh.review({ draft: 'd' });
      await sh.rollback('~1', { draft: 'd' });
      assert.is(
        (await caught(() => sh.apply({ draft: 'd', expect: partial.review_fingerprint }))).code,
        'STALE_REVIEW',
      );
      for (const bad of [seen.fingerprint, 'nonsense', '']) {
        assert.is((await caught(() => sh.apply({ draft: 'd', expect: bad }))).code, 'INVALID_ARGUMENT', bad);
      }
      assert.not.ok(repo.exists('b.txt'));
    });
  },
);

Expect(
  'CLI: review prints the review fingerprint; apply --expect refuses a draft that moved (exit 1, STALE_REVIEW, nothing written), then applies with the new one',
  async ({ repo }) => {
    await withShadow(repo, (sh) => write(sh, 'a.txt', 'reviewed\n'));
    const text = repo.shadow(['review', '--draft', 'd']);
    assert.is(text.status, 0, text.stderr);
    const line = /^review fingerprint (review:[0-9a-f]{64}) /m.exec(text.stdout);
    assert.ok(line, text.stdout);
    const seen = repo.shadow(['review', '--draft', 'd', '--json']).json().review_fingerprint;
    assert.is(seen, line![1]);
    await withShadow(repo, (sh) => write(sh, 'b.txt', 'nobody reviewed this\n'));
    const before = snapshot(repo);
    const r = repo.shadow(['apply', '--draft', 'd', '--expect', seen, '--json']);
    assert.is(r.status, 1, r.stdout + r.stderr);
    const error = r.json().error;
    assert.is(error.code, 'STALE_REVIEW');
    assert.is(error.data.expected, seen);
    assert.is(snapshot(repo), before);
    const human = repo.shadow(['apply', '--draft', 'd', '--expect', seen]);
    assert.is(human.status, 1);
    assert.match(human.stderr + human.stdout, /no longer what was reviewed/);
    assert.not.match(human.stderr + human.stdout, /\n\s+at /);
    const fresh = repo.shadow(['review', '--draft', 'd', '--json']).json().review_fingerprint;
    assert.is(fresh, error.data.current);
    const ok = repo.shadow(['apply', '--draft', 'd', '--expect', fresh, '--json']);
    assert.is(ok.status, 0, ok.stdout + ok.stderr);
    assert.is(repo.read('b.txt'), 'nobody reviewed this\n');
  },
);

Expect(
  'HTTP: the apply route takes expect; a batch since is 409 STALE_REVIEW with nothing written; MCP apply the same',
  async ({ repo }) => {
    await withShadow(repo, async (sh) => {
      await write(sh, 'a.txt', 'reviewed\n');
      const seen = (await sh.review({ draft: 'd' })).review_fingerprint;
      await write(sh, 'b.txt', 'nobody reviewed this\n');
      const before = snapshot(repo);
      const server = await startServer(sh, { allowApply: true });
      try {
        const api = new Api(server.url, server.token);
        const r = await api.call('POST', '/api/drafts/d/apply', { json: { expect: seen } });
        assert.is(r.status, 409, JSON.stringify(r.body));
        assert.is(r.body.error.code, 'STALE_REVIEW');
        assert.is(r.body.error.data.expected, seen);
        assert.is(snapshot(repo), before);
        const tool = await callTool({ sh, draft: 'd', actor: 'agent', allowApply: true }, 'apply', { expect: seen });
        assert.is(tool.isError, true);
        assert.match(tool.text, /STALE_REVIEW/);
        assert.is(snapshot(repo), before);
        const status = await callTool({ sh, draft: 'd', actor: 'agent' }, 'apply_status', {});
        const current = JSON.parse(status.text).review_fingerprint;
        const ok = await api.call('POST', '/api/drafts/d/apply', { json: { expect: current } });
        assert.is(ok.status, 200, JSON.stringify(ok.body));
        assert.is(repo.read('b.txt'), 'nobody reviewed this\n');
      } finally {
        await server.close();
      }
    });
  },
);

const Decide = suite<Ctx>('approve and deny --expect');
Decide.before.each((c) => {
  c.repo = new DiskRepo();
});
Decide.after.each(({ repo }) => repo.cleanup());

Decide(
  'an approval or a deny given with a stale fingerprint is STALE_REVIEW and records nothing; with the current one it counts',
  async ({ repo }) => {
    await withShadow(repo, async (sh) => {
      await write(sh, '.github/workflows/ci.yml', 'on: push\n');
      const seen = await sh.review({ draft: 'd' });
      const id = seen.approvals[0]!.id;
      // A batch that leaves the diff (and so the approval's id) as it was: only the review fingerprint tells.
      await write(sh, 'tmp.txt', 'x\n');
      assert.ok(
        (await sh.batch({ intent: 'rm', operations: [{ operation: 'delete', path: 'tmp.txt' }] }, { draft: 'd' }))
          .success,
      );
      const ledger = ledgerTypes(repo);
      for (const call of [
        () => sh.approve(id, { draft: 'd', expect: seen.review_fingerprint }),
        () => sh.deny(id, { draft: 'd', reason: 'no', expect: seen.review_fingerprint }),
      ]) {
        const e = await caught(call);
        assert.is(e.code, 'STALE_REVIEW', e.message);
        assert.equal(ledgerTypes(repo), ledger);
      }
      const cli = repo.shadow(['approve', id, '--draft', 'd', '--expect', seen.review_fingerprint, '--json']);
      assert.is(cli.status, 1);
      assert.is(cli.json().error.code, 'STALE_REVIEW');
      assert.equal(ledgerTypes(repo), ledger);
    });
    const now = repo.shadow(['review', '--draft', 'd', '--json']).json();
    const ok = repo.shadow([
      'approve',
      now.approvals[0].id,
      '--draft',
      'd',
      '--expect',
      now.review_fingerprint,
      '--json',
    ]);
    assert.is(ok.status, 0, ok.stdout + ok.stderr);
    assert.is(ok.json().status, 'approved');
  },
);

const Fetched = suite('apply --draft <remote>/<draft> --expect');

Fetched(
  'a fetched draft that moved since it was reviewed is STALE_REVIEW before it is continued here: no local draft, nothing written',
  () =>
    withRemote(bareRemote, async ({ a, clone }) => {
      const b = clone();
      await noteBatches(a, 'd', 1, 'a');
      assert.is(a.shadow(['push', 'origin', 'd']).status, 0);
      assert.is(b.shadow(['fetch', 'origin']).status, 0);
      const seen = b.shadow(['review', 'origin/d', '--json']).json().review_fingerprint;
      await noteBatches(a, 'd', 1, 'b');
      assert.is(a.shadow(['push', 'origin', 'd']).status, 0);
      assert.is(b.shadow(['fetch', 'origin']).status, 0);
      const tree = JSON.stringify(treeHashes(b.dir));
      const r = b.shadow(['apply', '--draft', 'origin/d', '--expect', seen, '--json']);
      assert.is(r.status, 1, r.stdout + r.stderr);
      assert.is(r.json().error.code, 'STALE_REVIEW');
      assert.is(b.ref(REF), undefined, 'no local draft made from it');
      assert.is(JSON.stringify(treeHashes(b.dir)), tree);
      const now = b.shadow(['review', 'origin/d', '--json']).json().review_fingerprint;
      assert.is(r.json().error.data.current, now);
      const ok = b.shadow(['apply', '--draft', 'origin/d', '--expect', now, '--json']);
      assert.is(ok.status, 0, ok.stdout + ok.stderr);
      assert.is(b.read('notes/b1.txt'), 'b 1\n');
    }),
);

Expect.run();
Decide.run();
Fetched.run();
