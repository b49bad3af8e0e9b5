import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setUp, tearDown, gitShow, type Ctx } from './helpers/http-server.js';
import { get, pageSession, pathOf } from './helpers/page-client.js';
import { SESSION_IDLE_MS } from '../src/http/page-sessions.js';

/*
 * The review page's own API, in-process: what it reads (a draft's state and
 * decisions, its timeline, its diff: byte for byte git's, with secrets
 * masked), what it does (decide, apply in full or in part, unapply, roll
 * back: each the CLI's call, with its error codes), its live stream, and
 * its sessions (idle expiry, login URLs from `shadow page`).
 */

const TOKEN = 'ghp_' + 'k7Q2mZ9xR4tB8wN1vC6yL3pH5sD0fJ2gA9eU'; // made up, shaped like a classic GitHub token

const P = suite<Ctx>('review page API');
P.before.each((c) => setUp(c));
P.after.each((c) => tearDown(c));

async function batch(c: Ctx, operations: unknown[], intent = 'work'): Promise<void> {
  const r = await c.api.call('POST', '/api/batch', { json: { intent, operations } });
  assert.is(r.status, 200, JSON.stringify(r.body));
}

const draftTip = (c: Ctx): string => c.repo.git('rev-parse', 'refs/shadow/drafts/default').trim();

P('a draft: its state, findings with secrets masked, approvals, drifted paths, checkpoints and batches', async (c) => {
  const page = await pageSession(c);
  // The person's uncommitted edit, which the draft captures before its first batch writes the file.
  c.repo.write('README.md', 'Hello from me\n');
  await batch(c, [{ operation: 'write', path: 'README.md', content: 'Hello, world\n' }], 'greet');
  await c.api.call('POST', '/api/drafts/default/checkpoints', { json: { name: 'greeted' } });
  await batch(
    c,
    [{ operation: 'write', path: 'config.ts', content: `export const token = '${TOKEN}';\n` }],
    'configure',
  );
  // The person edits a file the draft changes.
  c.repo.write('README.md', 'Hello there\n');

  const r = await page.get('/ui/api/drafts/default');
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.not.ok(JSON.stringify(r.body).includes(TOKEN), 'the secret is never sent');
  assert.is(r.body.draft.name, 'default');
  assert.is(r.body.draft.tip, draftTip(c));
  assert.equal(
    r.body.review.secrets.map((s: any) => [s.path, s.line, s.rule, s.redacted.slice(0, 8)]),
    [['config.ts', 1, 'github-token', 'ghp_****']],
  );
  assert.equal(
    r.body.review.approvals.map((a: any) => [a.kind, a.status]),
    [['secrets_override', 'pending']],
  );
  assert.equal(
    r.body.review.files.map((f: any) => f.path),
    ['README.md', 'config.ts'],
  );
  assert.is(r.body.review.diff, undefined, 'the diff comes from its own route');
  assert.equal(
    r.body.drifted.map((d: any) => d.path),
    ['README.md'],
  );
  assert.equal(
    r.body.checkpoints.map((k: any) => k.name),
    ['greeted'],
  );
  assert.equal(
    r.body.batches.map((b: any) => [b.batch, b.intent]),
    [
      [2, 'configure'],
      [1, 'greet'],
    ],
  );

  const t = await page.get('/ui/api/drafts/default/timeline');
  assert.is(t.status, 200);
  const whats = t.body.events.map((e: any) => e.what);
  assert.ok(
    whats.includes('batch 1: greet (1 operation); captured README.md from the working tree first'),
    whats.join('|'),
  );
  assert.ok(whats.includes('batch 2: configure (1 operation)'), whats.join('|'));
  assert.ok(whats.includes('checkpoint greeted at batch 1'), whats.join('|'));
  assert.equal(
    t.body.events.map((e: any) => e.seq),
    (await c.sh.events()).map((e) => e.seq),
  );

  const missing = await page.get('/ui/api/drafts/nope');
  assert.is(missing.status, 404);
  assert.is(missing.body.error.code, 'DRAFT_NOT_FOUND');
});

P('the diff is git diff -M of the same two commits, byte for byte, with a secret masked', async (c) => {
  const page = await pageSession(c);
  const body = Array.from({ length: 30 }, (_, i) => `line ${i}\n`).join('');
  await batch(c, [{ operation: 'write', path: 'src/long.txt', content: body }]);
  await batch(c, [
    { operation: 'rename', path: 'src/long.txt', to: 'lib/long.txt' },
    { operation: 'write', path: 'notes.txt', content: 'one\ntwo\n' },
  ]);
  const root = (await c.sh.draftShow()).root;
  const r = await page.get('/ui/api/drafts/default/diff?range=..');
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.patch, c.repo.git('diff', '-M', '--no-color', '--no-ext-diff', root, draftTip(c)));
  assert.equal(
    r.body.files.map((f: any) => [f.status, f.from ?? null, f.path]),
    [
      ['A', null, 'lib/long.txt'],
      ['M', null, 'notes.txt'],
    ],
  );

  const oneToTwo = await page.get('/ui/api/drafts/default/diff?range=1..2');
  assert.is(
    oneToTwo.body.patch,
    c.repo.git('diff', '-M', '--no-color', c.repo.git('rev-parse', 'refs/shadow/drafts/default~1').trim(), draftTip(c)),
  );
  assert.equal(
    oneToTwo.body.files.map((f: any) => [f.status, f.from ?? null, f.path]),
    [
      ['R', 'src/long.txt', 'lib/long.txt'],
      ['M', null, 'notes.txt'],
    ],
  );
  const unpaired = await page.get('/ui/api/drafts/default/diff?range=1..2&renames=0');
  assert.is(
    unpaired.body.patch,
    c.repo.git(
      'diff',
      '--no-renames',
      '--no-color',
      c.repo.git('rev-parse', 'refs/shadow/drafts/default~1').trim(),
      draftTip(c),
    ),
  );

  await batch(c, [{ operation: 'write', path: 'config.ts', content: `export const token = '${TOKEN}';\n` }]);
  for (const q of ['', '?range=..', '?range=2..']) {
    const d = await page.get(`/ui/api/drafts/default/diff${q}`);
    assert.is(d.status, 200);
    assert.not.ok(d.body.patch.includes(TOKEN), q);
    assert.match(d.body.patch, /^\+export const token = 'ghp_\*+';$/m, q);
  }
  // The library's option the page uses; without it a diff is git's, secrets and all.
  const config = async (redact: boolean): Promise<string> =>
    (await c.sh.diff({ content: 'patch', redact, paths: ['config.ts'] })).files[0]!.patch!;
  assert.ok((await config(false)).includes(TOKEN));
  assert.not.ok((await config(true)).includes(TOKEN));
  const bad = await page.get('/ui/api/drafts/default/diff?renames=yes');
  assert.is(bad.status, 400);
  assert.is(bad.body.error.code, 'INVALID_ARGUMENT');
  const badRange = await page.get('/ui/api/drafts/default/diff?range=nowhere..');
  assert.is(badRange.status, 400);
  assert.is(badRange.body.error.code, 'INVALID_TARGET');
});

P('a diff of more than 20,000 changed lines comes as its file list, without patches', async (c) => {
  const page = await pageSession(c);
  await batch(c, [{ operation: 'write', path: 'big.txt', content: 'x\n'.repeat(20_001) }]);
  const r = await page.get('/ui/api/drafts/default/diff');
  assert.is(r.status, 200);
  assert.is(r.body.too_large, true);
  assert.is(r.body.lines, 20_001);
  assert.is(r.body.patch, '');
  assert.equal(
    r.body.files.map((f: any) => [f.path, f.insertions]),
    [['big.txt', 20_001]],
  );
});

P(
  'decisions: approve and deny with a reason, as shadow approve/deny record them; unknown ids and bad bodies refused',
  async (c) => {
    const page = await pageSession(c);
    await batch(c, [{ operation: 'write', path: 'config.ts', content: `export const token = '${TOKEN}';\n` }]);
    const [approval] = (await c.sh.review()).approvals;
    const denied = await page.post(`/ui/api/drafts/default/approvals/${approval!.id}`, {
      decision: 'deny',
      reason: 'no tokens here',
    });
    assert.is(denied.status, 200, JSON.stringify(denied.body));
    assert.is(denied.body.status, 'denied');
    assert.is(denied.body.decision_reason, 'no tokens here');
    const decision = (await c.sh.events()).filter((e) => e.type === 'approval/decision');
    assert.equal(
      decision.map((e) => [e.data.id, e.data.decision, e.data.reason, e.actor]),
      [[approval!.id, 'deny', 'no tokens here', 'Test User']],
    );

    // Apply refuses a denied draft, and writes nothing.
    const refused = await page.post('/ui/api/drafts/default/apply');
    assert.is(refused.status, 422);
    assert.is(refused.body.error.code, 'DENIED');
    assert.not.ok(c.repo.exists('config.ts'));

    // The deny stands until the draft changes, as for shadow approve.
    const again = await page.post(`/ui/api/drafts/default/approvals/${approval!.id}`, { decision: 'approve' });
    assert.is(again.body.error.code, 'DENIED');
    const unknown = await page.post('/ui/api/drafts/default/approvals/nope', { decision: 'approve' });
    assert.is(unknown.status, 404);
    assert.is(unknown.body.error.code, 'APPROVAL_NOT_FOUND');
    for (const bad of [{}, { decision: 'maybe' }, { decision: 'approve', extra: 1 }]) {
      const r = await page.post(`/ui/api/drafts/default/approvals/${approval!.id}`, bad);
      assert.is(r.status, 400, JSON.stringify(bad));
      assert.is(r.body.error.code, 'INVALID_ARGUMENT');
    }
  },
);

P(
  'a decision is bound to what the page drew: after a batch lands, Apply, Approve and Deny with the drawn fingerprint are 409 STALE_REVIEW, nothing written; drawn again, the new file shows and Apply works',
  async (c) => {
    const page = await pageSession(c);
    await batch(c, [{ operation: 'write', path: '.github/workflows/ci.yml', content: 'on: push\n' }]);
    const drawn = await page.get('/ui/api/drafts/default');
    const seen: string = drawn.body.review.review_fingerprint;
    assert.match(seen, /^review:[0-9a-f]{64}$/);
    assert.is(
      (await page.get('/ui/api/drafts/default/diff')).body.review_fingerprint,
      seen,
      'the diff says which state it shows',
    );
    const [approval] = drawn.body.review.approvals;
    // A batch lands through the library while the page shows the draft.
    const sneak = await c.sh.batch({
      intent: 'unseen',
      operations: [{ operation: 'write', path: 'unseen.txt', content: 'nobody saw this\n' }],
    });
    assert.ok(sneak.success);
    const ledger = (await c.sh.events()).length;
    for (const decision of ['approve', 'deny']) {
      const r = await page.post(`/ui/api/drafts/default/approvals/${approval.id}`, {
        decision,
        reason: 'looked',
        expect: seen,
      });
      assert.is(r.status, 409, JSON.stringify(r.body));
      assert.is(r.body.error.code, 'STALE_REVIEW');
      assert.is(r.body.error.data.expected, seen);
    }
    const refused = await page.post('/ui/api/drafts/default/apply', { expect: seen });
    assert.is(refused.status, 409, JSON.stringify(refused.body));
    assert.is(refused.body.error.code, 'STALE_REVIEW');
    assert.match(refused.body.error.hint, /review it again/);
    assert.is((await c.sh.events()).length, ledger, 'no ledger line');
    assert.not.ok(c.repo.exists('unseen.txt') || c.repo.exists('.github/workflows/ci.yml'), 'nothing written');
    // Drawn again: the new file is there, with the state's own fingerprint.
    const again = await page.get('/ui/api/drafts/default');
    const now: string = again.body.review.review_fingerprint;
    assert.is(refused.body.error.data.current, now);
    assert.equal(
      again.body.review.files.map((f: any) => f.path),
      ['.github/workflows/ci.yml', 'unseen.txt'],
    );
    const [fresh] = again.body.review.approvals;
    const approved = await page.post(`/ui/api/drafts/default/approvals/${fresh.id}`, {
      decision: 'approve',
      expect: now,
    });
    assert.is(approved.status, 200, JSON.stringify(approved.body));
    const applied = await page.post('/ui/api/drafts/default/apply', { expect: now });
    assert.is(applied.status, 200, JSON.stringify(applied.body));
    assert.is(c.repo.read('unseen.txt'), 'nobody saw this\n');
    assert.is(c.repo.read('.github/workflows/ci.yml'), gitShow(c.repo, '.github/workflows/ci.yml'));
  },
);

P(
  'apply from the page without --allow-apply (the person applies), partial by paths; pending approvals refuse with nothing written; unapply; rollback',
  async (c) => {
    const page = await pageSession(c);
    await batch(c, [
      { operation: 'write', path: 'a.txt', content: 'a\n' },
      { operation: 'write', path: 'b.txt', content: 'b\n' },
    ]);
    await c.api.call('POST', '/api/drafts/default/checkpoints', { json: { name: 'ab' } });
    // An agent with the token may not apply; the page may.
    const agent = await c.api.call('POST', '/api/drafts/default/apply', { json: {} });
    assert.is(agent.status, 403);
    assert.is(agent.body.error.code, 'APPLY_NOT_ALLOWED');

    const part = await page.post('/ui/api/drafts/default/apply', { paths: ['a.txt'] });
    assert.is(part.status, 200, JSON.stringify(part.body));
    assert.equal(
      part.body.paths.map((p: any) => p.path),
      ['a.txt'],
    );
    assert.is(c.repo.read('a.txt'), gitShow(c.repo, 'a.txt'));
    assert.not.ok(c.repo.exists('b.txt'));

    const back = await page.post('/ui/api/drafts/default/unapply');
    assert.is(back.status, 200, JSON.stringify(back.body));
    assert.not.ok(c.repo.exists('a.txt'));
    assert.equal((await c.sh.events()).filter((e) => e.type === 'apply/revert').length, 1);

    await batch(c, [{ operation: 'write', path: '.github/workflows/ci.yml', content: 'on: push\n' }]);
    const pending = await page.post('/ui/api/drafts/default/apply');
    assert.is(pending.status, 422);
    assert.is(pending.body.error.code, 'APPROVALS_PENDING');
    assert.equal(
      pending.body.pendingApprovals.map((a: any) => a.kind),
      ['protected_path'],
    );
    assert.not.ok(c.repo.exists('a.txt'));

    const rolled = await page.post('/ui/api/drafts/default/rollback', { target: 'ab' });
    assert.is(rolled.status, 200, JSON.stringify(rolled.body));
    assert.is(draftTip(c), (await c.sh.checkpoints()).find((k) => k.name === 'ab')!.commit);
    const nowhere = await page.post('/ui/api/drafts/default/rollback', { target: 'nowhere' });
    assert.is(nowhere.status, 400);
    assert.is(nowhere.body.error.code, 'INVALID_TARGET');
    const whole = await page.post('/ui/api/drafts/default/apply');
    assert.is(whole.status, 200, JSON.stringify(whole.body));
    for (const p of ['a.txt', 'b.txt']) assert.is(c.repo.read(p), gitShow(c.repo, p));
    assert.not.ok(c.repo.exists('.github/workflows/ci.yml'));
    for (const bad of [{ paths: [] }, { paths: ['../x'] }, { dry: true }]) {
      const r = await page.post('/ui/api/drafts/default/apply', bad);
      assert.is(r.status, 400, JSON.stringify(bad));
      assert.is(r.body.error.code, 'INVALID_ARGUMENT');
    }
  },
);

P('every page request that changes state needs the CSRF token, and every read the cookie', async (c) => {
  const page = await pageSession(c);
  await batch(c, [{ operation: 'write', path: 'a.txt', content: 'a\n' }]);
  for (const path of [
    '/ui/api/drafts/default/approvals/x',
    '/ui/api/drafts/default/apply',
    '/ui/api/drafts/default/unapply',
    '/ui/api/drafts/default/rollback',
  ]) {
    const r = await get(c, path, { method: 'POST', cookie: page.cookie, json: {} });
    assert.is(r.status, 403, path);
    assert.is(r.body.error.code, 'CSRF_FAILED');
    const bearer = await get(c, path, {
      method: 'POST',
      json: {},
      headers: { authorization: `Bearer ${c.server.token}`, 'x-csrf-token': page.csrf },
    });
    assert.is(bearer.status, 401, `${path}: the bearer token does not open the page's API`);
  }
  for (const path of [
    '/ui/api/drafts/default',
    '/ui/api/drafts/default/timeline',
    '/ui/api/drafts/default/diff',
    '/ui/api/live',
  ]) {
    const r = await get(c, path);
    assert.is(r.status, 401, path);
    assert.is(r.body.error.code, 'UNAUTHORIZED');
  }
  assert.not.ok(c.repo.exists('a.txt'));
});

/** Read server-sent events until `until` says enough (the server's poll finds the change: no sleep here). */
async function readEvents(
  c: Ctx,
  cookie: string,
  act: () => Promise<void>,
  until: (events: Array<{ event: string; data: any }>) => boolean,
): Promise<Array<{ event: string; data: any }>> {
  const ctrl = new AbortController();
  const r = await fetch(`${c.server.url}/ui/api/live`, { headers: { cookie }, signal: ctrl.signal });
  assert.is(r.status, 200);
  assert.match(r.headers.get('content-type')!, /^text\/event-stream/);
  const reader = r.body!.getReader();
  const events: Array<{ event: string; data: any }> = [];
  let text = '';
  let acted = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
      let end;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) });
      }
      if (!acted && events.some((e) => e.event === 'ready')) {
        acted = true;
        await act();
      }
      if (acted && until(events)) break;
    }
  } finally {
    ctrl.abort();
  }
  return events;
}

P('the live stream: ready with each ledger’s place, then each new event of any draft, and new drafts', async (c) => {
  const page = await pageSession(c);
  await batch(c, [{ operation: 'write', path: 'a.txt', content: 'a\n' }]);
  const before = (await c.sh.events()).at(-1)!.seq;
  const events = await readEvents(
    c,
    page.cookie,
    async () => {
      await batch(c, [{ operation: 'write', path: 'b.txt', content: 'b\n' }]);
      const r = await c.api.call('POST', '/api/batch?draft=other', {
        json: { intent: 'x', operations: [{ operation: 'write', path: 'c.txt', content: 'c\n' }] },
      });
      assert.is(r.status, 200);
    },
    (es) =>
      es.some((e) => e.event === 'ledger' && e.data.draft === 'default' && e.data.type === 'batch/commit') &&
      es.some((e) => e.event === 'ledger' && e.data.draft === 'other' && e.data.type === 'batch/commit'),
  );
  assert.equal(events[0], { event: 'ready', data: { seen: { default: before } } });
  const ledger = events.filter((e) => e.event === 'ledger');
  const mine = (await c.sh.events()).filter((e) => e.seq > before);
  assert.equal(
    ledger.filter((e) => e.data.draft === 'default').map((e) => [e.data.seq, e.data.type]),
    mine.map((e) => [e.seq, e.type]),
    'every new event of the draft, once, in order',
  );
  assert.equal(
    ledger.filter((e) => e.data.draft === 'other').map((e) => e.data.seq),
    (await c.sh.events({ draft: 'other' })).map((e) => e.seq),
  );
  assert.ok(events.some((e) => e.event === 'drafts' && e.data.drafts.includes('other')));
});

P('a session unused for 12 hours is over; a used one lasts', async (c) => {
  const page = await pageSession(c);
  c.skew.ms += SESSION_IDLE_MS - 1000;
  assert.is((await page.get('/ui/api/drafts')).status, 200);
  c.skew.ms += SESSION_IDLE_MS - 1000;
  assert.is((await page.get('/ui/api/drafts')).status, 200, 'each use keeps it');
  c.skew.ms += SESSION_IDLE_MS + 1;
  const r = await page.get('/ui/api/drafts');
  assert.is(r.status, 401);
  assert.is(r.body.error.code, 'UNAUTHORIZED');
});

P(
  'shadow page prints a new one-time URL of the running server, good once; without a server SERVER_NOT_RUNNING',
  async (c) => {
    const out = c.repo.shadow(['page', '--json']);
    assert.is(out.status, 0, out.stderr);
    const url = out.json().page_url as string;
    assert.match(url, new RegExp(`^http://127\\.0\\.0\\.1:${c.server.port}/ui/login\\?once=[A-Za-z0-9_-]{43}$`));
    const first = await get(c, pathOf(url));
    assert.is(first.status, 303);
    assert.match(first.headers.get('set-cookie')!, new RegExp(`^shadow_ui_${c.server.port}=`));
    assert.is((await get(c, pathOf(url))).status, 401, 'spent');
    // One that waited past its 5 minutes.
    const late = c.repo.shadow(['page', '--json']).json().page_url as string;
    c.skew.ms += 5 * 60 * 1000 + 1;
    assert.is((await get(c, pathOf(late))).status, 401);

    await c.server.close();
    const none = c.repo.shadow(['page', '--json']);
    assert.is(none.status, 1);
    assert.is(none.json().error.code, 'SERVER_NOT_RUNNING');
    assert.match(none.json().error.hint, /shadow serve/);
  },
);

P.run();
