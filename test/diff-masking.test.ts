import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { maskSecrets } from '../src/core/secret-scan.js';
import { setUp, tearDown, type Ctx } from './helpers/http-server.js';
import { pageSession } from './helpers/page-client.js';

/**
 * A diff shows no secret on any of its lines: added, removed or context,
 * nor in a header's path. The review page, the HTTP API and `shadow review`
 * mask them alike; the response bytes are what is checked.
 */

const TOKEN = 'ghp_' + 'k7Q2mZ9xR4tB8wN1vC6yL3pH5sD0fJ2gA9eU'; // made up, shaped like a classic GitHub token
const KEY_BODY = [
  'MIIEowIBAAKCAQEAx4Qm9Zk2Lr8Tn5Wv3Yp7Hs1Dj6Fg0Ba2Ce4Ui8Oq',
  'Rt5Yw7Zx9Kb3Nm1Lp6Hj8Gf2Dd4Ss0Aa9Qq7Ww5Ee3Rr1Tt6Yy8Uu2Ii4Oo',
];
const KEY = ['-----BEGIN RSA PRIVATE KEY-----', ...KEY_BODY, '-----END RSA PRIVATE KEY-----'];

// ---------------------------------------------------------------- the masking of diff text

const Mask = suite('maskSecrets over a diff');

Mask(
  'a token on an added, a removed and a context line, and in a header path, is masked on each; a key block is masked whole',
  () => {
    const diff = [
      `diff --git a/keys/${TOKEN}.txt b/keys/${TOKEN}.txt`,
      `--- a/keys/${TOKEN}.txt`,
      `+++ b/keys/${TOKEN}.txt`,
      '@@ -1,4 +1,4 @@',
      ` const kept = "${TOKEN}";`,
      `-const gone = "${TOKEN}";`,
      `+const added = "${TOKEN}";`,
      ...KEY.map((l) => `-${l}`),
      '',
    ].join('\n');
    const masked = maskSecrets(diff);
    assert.not.ok(masked.includes(TOKEN.slice(4)), masked);
    for (const body of KEY_BODY) assert.not.ok(masked.includes(body.slice(4)), `key body: ${masked}`);
    assert.match(masked, /^ const kept = "ghp_\*+";$/m);
    assert.match(masked, /^-const gone = "ghp_\*+";$/m);
    assert.match(masked, /^\+const added = "ghp_\*+";$/m);
    assert.match(masked, /^diff --git a\/keys\/ghp_\*+\.txt b\/keys\/ghp_\*+\.txt$/m);
    assert.match(masked, /^------BEGIN RSA PRIVATE KEY-----$/m, 'the header says what was there');
    assert.is(masked.split('\n').length, diff.split('\n').length, 'no line is added or lost');
  },
);

Mask('a diff without a secret is returned as it is', () => {
  const diff =
    'diff --git a/a.ts b/a.ts\n--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-const token = process.env.TOKEN;\n+const token = getToken();\n';
  assert.is(maskSecrets(diff), diff);
});

Mask.run();

// ---------------------------------------------------------------- the page and the HTTP API

const Http = suite<Ctx>('diffs served over HTTP');
Http.before.each((c) => setUp(c));
Http.after.each((c) => tearDown(c));

async function batch(c: Ctx, operations: unknown[]): Promise<void> {
  const r = await c.api.call('POST', '/api/batch', { json: { intent: 'work', operations } });
  assert.is(r.status, 200, JSON.stringify(r.body));
}

Http(
  "a token on a context line, on a removed line and in a path is in no byte of the page's or the API's diff",
  async (c) => {
    const page = await pageSession(c);
    const file = (middle: string): string => `first\nsecond\nconst token = "${TOKEN}";\n${middle}\nlast\n`;
    await batch(c, [{ operation: 'write', path: 'config.ts', content: file('one') }]); // 1: adds the token
    await batch(c, [{ operation: 'write', path: 'config.ts', content: file('two') }]); // 2: the token is context
    await batch(c, [
      {
        operation: 'write',
        path: 'config.ts',
        content: 'first\nsecond\nconst token = process.env.TOKEN;\ntwo\nlast\n',
      },
    ]); // 3: removes it
    await batch(c, [{ operation: 'write', path: `keys/${TOKEN}.txt`, content: 'named after it\n' }]); // 4: a path
    const git = (a: string, b: string): string =>
      c.repo.git('diff', '--no-color', `refs/shadow/drafts/default~${a}`, `refs/shadow/drafts/default~${b}`);
    assert.match(git('3', '2'), ` const token = "${TOKEN}";`, 'batch 2 shows the token as context');
    assert.match(git('2', '1'), /^-const token = "ghp_/m, 'batch 3 removes it');
    for (const range of ['1..2', '2..3', '1..4', '..']) {
      const p = await page.get(`/ui/api/drafts/default/diff?range=${range}`);
      assert.is(p.status, 200, JSON.stringify(p.body));
      assert.not.ok(JSON.stringify(p.body).includes(TOKEN.slice(4)), `page ${range}: ${p.body.patch}`);
      for (const content of ['patch', 'stat', 'none']) {
        const a = await c.api.call('GET', `/api/drafts/default/diff?range=${range}&content=${content}`);
        assert.is(a.status, 200, JSON.stringify(a.body));
        assert.not.ok(
          JSON.stringify(a.body).includes(TOKEN.slice(4)),
          `api ${range} ${content}: ${JSON.stringify(a.body)}`,
        );
      }
    }
    const context = await c.api.call('GET', '/api/drafts/default/diff?range=1..2&content=patch');
    assert.match(context.body.files[0].patch, /^ const token = "ghp_\*+";$/m, 'the context line is there, masked');
    const removed = await c.api.call('GET', '/api/drafts/default/diff?range=2..3&content=patch');
    assert.match(removed.body.files[0].patch, /^-const token = "ghp_\*+";$/m, 'the removed line is there, masked');
    const named = await c.api.call('GET', '/api/drafts/default/diff?range=3..4&content=stat');
    assert.equal(
      named.body.files.map((f: { path: string }) => f.path),
      ['keys/ghp_****************.txt'],
    );
  },
);

Http(
  "the page shows no token in a batch's intent or actor, in the drafts list, the draft or its timeline",
  async (c) => {
    const page = await pageSession(c);
    const r = await c.api.call('POST', '/api/batch', {
      json: {
        intent: `wire the client with ${TOKEN}`,
        operations: [{ operation: 'write', path: 'client.ts', content: 'x\n' }],
      },
      headers: { 'x-shadow-actor': `bot-${TOKEN}` },
    });
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.ok((await c.sh.log())[0]!.intent.includes(TOKEN), 'the draft holds what it was given');
    for (const path of ['/ui/api/drafts', '/ui/api/drafts/default', '/ui/api/drafts/default/timeline']) {
      const got = await page.get(path);
      assert.is(got.status, 200, JSON.stringify(got.body));
      assert.not.ok(JSON.stringify(got.body).includes(TOKEN.slice(4)), `${path}: ${JSON.stringify(got.body)}`);
    }
    const draft = await page.get('/ui/api/drafts/default');
    assert.equal(
      draft.body.batches.map((b: { intent: string; actor: string }) => [b.intent, b.actor]),
      [['wire the client with ghp_****************', 'bot-ghp_****************']],
    );
  },
);

Http("shadow review masks a token the draft removes from the person's committed file", async (c) => {
  c.repo.write('config.ts', `const token = "${TOKEN}";\nconst debug = false;\n`);
  c.repo.git('add', 'config.ts');
  c.repo.git('commit', '-qm', 'config');
  await batch(c, [
    { operation: 'write', path: 'config.ts', content: 'const token = process.env.TOKEN;\nconst debug = false;\n' },
  ]);
  const r = await c.sh.review();
  assert.equal(r.secrets, [], 'removing a secret adds none');
  assert.match(r.diff, /^-const token = "ghp_\*+";$/m);
  assert.not.ok(JSON.stringify(r).includes(TOKEN.slice(4)));
});

Http.run();
