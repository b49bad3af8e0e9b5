import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { setUp, tearDown, gitShow, type Ctx } from './helpers/http-server.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { pageSession } from './helpers/page-client.js';
import { chromiumFor, launchBrowser, rendered, renderedAfter, watchProblems, type PageCtx } from './helpers/browser.js';

// The functions handed to the page run in the browser, where these exist.
declare const document: any;

/*
 * Hunks taken from the review page: its apply route's `hunks` (ids of the
 * diff's hunks, whole paths beside them), then the page itself in Debian's
 * Chromium: a checkbox in each hunk's header row, Apply taking the ticked
 * hunks and files, git apply of the same hunks as the oracle of the bytes
 * written, the diff and the counts of what is not yet applied afterwards,
 * and a selection the draft moved away from, refused with nothing written.
 * One repository and server for the file, a draft and paths per test.
 */

const lines = (n: number, tag: string): string[] => Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}\n`);
const change = (base: string[], at: Record<number, string>): string =>
  base.map((l, i) => (at[i + 1] !== undefined ? at[i + 1]! : l)).join('');

/** git's side: the `@@` lines of `git diff` from `from` to `to`, and what `git apply` makes of the chosen hunks (from 1). */
function gitHunks(path: string, from: string, to: string, chosen: number[]): { headers: string[]; result: string } {
  const scratch = new DiskRepo(null);
  try {
    scratch.write(path, from);
    scratch.git('add', '-A');
    scratch.git('commit', '-q', '-m', 'base');
    scratch.write(path, to);
    const full = scratch.git('diff');
    scratch.git('checkout', '-q', '--', path);
    const at = full.indexOf('\n@@');
    const hunks = full.slice(at + 1).split(/^(?=@@ )/m);
    // The whole @@ line: the ranges and the function line git writes after them.
    const headers = hunks.map((h) => h.slice(0, h.indexOf('\n')));
    const patch = `${full.slice(0, at + 1)}${hunks.filter((_, i) => chosen.includes(i + 1)).join('')}`;
    const file = join(scratch.root, 'chosen.patch');
    writeFileSync(file, patch);
    if (chosen.length > 0) scratch.git('apply', file);
    return { headers, result: scratch.read(path) };
  } finally {
    scratch.cleanup();
  }
}

async function batch(c: Ctx, draft: string, operations: unknown[]): Promise<void> {
  const r = await c.sh.batch({ intent: `change ${draft}`, operations: operations as never }, { draft });
  assert.ok(r.success, JSON.stringify(r));
}

/** Commit files into the repository: the bases a draft captures. */
function commit(c: Ctx, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) c.repo.write(path, content);
  c.repo.git('add', '-A');
  c.repo.git('commit', '-q', '-m', 'bases');
}

const A = lines(40, 'a');
const A_NEXT = change(A, { 3: 'three\n', 20: 'twenty\n', 37: 'thirty-seven\n' });

const Http = suite<Ctx>('the page applies hunks');
Http.before(async (c) => {
  await setUp(c);
  commit(c, { 'http/a.txt': A.join(''), 'http/b.txt': 'beta\n' });
});
Http.after(async (c) => {
  await tearDown(c);
});

Http('hunks by id and a whole path beside them: base + those hunks on disk, as git apply makes it', async (c) => {
  await batch(c, 'http', [
    { operation: 'write', path: 'http/a.txt', content: A_NEXT },
    { operation: 'write', path: 'http/b.txt', content: 'beta\nmore\n' },
  ]);
  const page = await pageSession(c);
  const diff = await page.get('/ui/api/drafts/http/diff');
  assert.is(diff.status, 200);
  const a = diff.body.files.find((f: { path: string }) => f.path === 'http/a.txt');
  assert.is(a.hunks.length, 3);
  const { review } = (await page.get('/ui/api/drafts/http')).body;
  const r = await page.post('/ui/api/drafts/http/apply', {
    hunks: [a.hunks[2].id, 'http/b.txt'],
    expect: review.review_fingerprint,
  });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.partial, [{ path: 'http/a.txt', chosen: 1, hunks: 3 }]);
  assert.is(c.repo.read('http/a.txt'), gitHunks('http/a.txt', A.join(''), A_NEXT, [3]).result);
  assert.is(c.repo.read('http/b.txt'), 'beta\nmore\n');
  // The page reads what remains and the counts.
  const after = (await page.get('/ui/api/drafts/http')).body.review;
  assert.equal(after.hunks, { applied: 1, remaining: 2, paths: [{ path: 'http/a.txt', applied: 1, remaining: 2 }] });
});

Http(
  'an id the draft no longer has is 409 STALE_HUNKS; hunks with paths is 400: nothing written either way',
  async (c) => {
    await batch(c, 'http-stale', [{ operation: 'write', path: 'http/c.txt', content: A_NEXT }]);
    const page = await pageSession(c);
    const old = (await page.get('/ui/api/drafts/http-stale/diff')).body.files[0].hunks[0].id as string;
    await batch(c, 'http-stale', [{ operation: 'write', path: 'http/c.txt', content: `${A_NEXT}end\n` }]);
    const stale = await page.post('/ui/api/drafts/http-stale/apply', { hunks: [old] });
    assert.is(stale.status, 409, JSON.stringify(stale.body));
    assert.is(stale.body.error.code, 'STALE_HUNKS');
    const both = await page.post('/ui/api/drafts/http-stale/apply', { hunks: ['http/c.txt:1'], paths: ['http/c.txt'] });
    assert.is(both.status, 400, JSON.stringify(both.body));
    assert.is(both.body.error.code, 'INVALID_ARGUMENT');
    assert.not.ok(c.repo.exists('http/c.txt'), 'nothing written');
    assert.equal(
      (await c.sh.events({ draft: 'http-stale' })).filter((e) => e.type.startsWith('apply/')),
      [],
    );
  },
);

Http.run();

type E2E = PageCtx;

const B = suite<E2E>('hunks on the review page in a browser');
const chromium = chromiumFor(B, 'hunks on the review page in a browser');

/** Open the page on a draft (`live`: false cuts the event stream, so the page keeps what it drew). */
async function open(c: E2E, draft: string, live = true): Promise<void> {
  if (!live) {
    await c.page.setRequestInterception(true);
    c.page.on('request', (r) => void (new URL(r.url()).pathname === '/ui/api/live' ? r.abort() : r.continue()));
  }
  await c.page.goto(c.server.pageUrl());
  await c.page.goto(`${new URL(c.page.url()).origin}/ui/#/drafts/${draft}`);
  await c.page.waitForSelector('#diff-body[data-complete]');
}

/** The hunk boxes on screen: their accessible names, ticked or not. */
const boxes = (c: E2E): Promise<Array<{ name: string; checked: boolean; disabled: boolean }>> =>
  c.page.$$eval('#diff-body input.hunk-tick', (els) =>
    els.map((e: any) => ({ name: e.getAttribute('aria-label'), checked: e.checked, disabled: e.disabled })),
  );

const textOf = (c: E2E, selector: string): Promise<string> => c.page.$eval(selector, (e) => e.textContent ?? '');

if (chromium) {
  let stop: () => Promise<void>;
  let context: Awaited<ReturnType<Browser['createBrowserContext']>>;
  B.before(async (c) => {
    await setUp(c);
    commit(c, { 'src/a.ts': A.join(''), 'b.txt': 'beta\n', 'stale.txt': A.join('') });
    ({ browser: c.browser, close: stop } = await launchBrowser(chromium));
  });
  B.after(async (c) => {
    await stop();
    await tearDown(c);
  });
  B.before.each(async (c) => {
    context = await c.browser.createBrowserContext();
    c.page = await context.newPage();
    c.problems = [];
    watchProblems(c.page, c.problems);
  });
  B.after.each(async () => {
    await context.close();
  });

  B(
    'tick 2 of 3 hunks of a file (by keyboard) and a whole other file, Apply: base + those hunks as git apply makes them; the diff shows the third, the counts what is not yet applied',
    async (c) => {
      const page = c.page;
      await batch(c, 'hunks', [
        { operation: 'write', path: 'src/a.ts', content: A_NEXT },
        { operation: 'write', path: 'b.txt', content: 'beta\nmore\n' },
        { operation: 'write', path: 'added.txt', content: 'new\n' },
      ]);
      const git = gitHunks('src/a.ts', A.join(''), A_NEXT, [1, 3]);
      const name = (i: number, header: string): string => `hunk ${i} of src/a.ts, ${header}`;
      await open(c, 'hunks');
      // A box per hunk of the modified file, named after it; the added file and b.txt's one hunk aside, taken whole in the list.
      assert.equal(
        (await boxes(c)).filter((b) => b.name.includes('src/a.ts')),
        git.headers.map((h, i) => ({ name: name(i + 1, h), checked: false, disabled: false })),
      );
      assert.is(
        await page.$('#diff-body input.hunk-tick[data-path="added.txt"]'),
        null,
        'an added file is taken whole',
      );
      assert.is(await textOf(c, '#apply'), 'Apply all');

      for (const i of [1, 3]) {
        const box = await page.waitForSelector(`aria/${name(i, git.headers[i - 1]!)}`);
        await box!.focus();
        await page.keyboard.press('Space');
      }
      assert.is(await textOf(c, '#apply'), 'Apply 2 hunks of 1 file');
      await page.click('#actions input[data-path="b.txt"]');
      assert.is(await textOf(c, '#apply'), 'Apply 2 hunks of 1 file and 1 whole file');
      // A file ticked whole: its hunk's box shows ticked, and idle.
      assert.equal(
        (await boxes(c)).find((b) => b.name.includes('b.txt')),
        { name: 'hunk 1 of b.txt, @@ -1 +1,2 @@', checked: true, disabled: true },
      );

      const before = await rendered(page);
      await page.click('#apply');
      await renderedAfter(page, before);
      await page.waitForFunction(
        () => document.querySelector('#message')?.textContent === 'applied 2 paths (2 of 3 hunks of src/a.ts)',
      );
      assert.is(c.repo.read('src/a.ts'), git.result, 'the bytes git apply makes of hunks 1 and 3');
      assert.is(c.repo.read('b.txt'), gitShow(c.repo, 'b.txt', 'hunks'));
      assert.not.ok(c.repo.exists('added.txt'), 'what was not ticked stays in the draft');

      // What remains: the middle hunk, as git diffs the file written against the draft's.
      const rest = gitHunks('src/a.ts', git.result, A_NEXT, []).headers;
      assert.is(rest.length, 1);
      await page.waitForFunction(
        (n: string) => {
          const left = [...document.querySelectorAll('#diff-body input.hunk-tick[data-path="src/a.ts"]')];
          return left.length === 1 && left[0].getAttribute('aria-label') === n;
        },
        { timeout: 15_000 },
        name(1, rest[0]!),
      );
      const added = await page.$$eval('#diff-body [data-path="src/a.ts"] .d2h-ins .d2h-code-line-ctn', (els) =>
        els.map((e) => e.textContent),
      );
      assert.equal(added, ['twenty']);
      assert.is(await textOf(c, '#hunk-counts'), 'partly applied (1 path): 2 hunks applied, 1 not yet applied');
      assert.is(
        await textOf(c, '#actions li[data-path="src/a.ts"] .note.hunks'),
        '2 of 3 hunks applied, 1 not yet applied',
      );
      assert.equal(
        (await boxes(c)).map((b) => b.checked),
        [false],
        'nothing ticked after an apply',
      );
      assert.is(await textOf(c, '#apply'), 'Apply all');
      // Side by side, the box is in the left side's header row only.
      await page.select('#diff-format', 'side-by-side');
      await page.waitForSelector('#diff-body[data-complete] .d2h-file-side-diff');
      assert.equal(
        (await boxes(c)).map((b) => b.name),
        [name(1, rest[0]!)],
      );
      assert.equal(c.problems, [], 'no script error, no CSP violation');
    },
  );

  B(
    'a batch lands between drawing and Apply: STALE_REVIEW shown, nothing written, the diff drawn again without the ticks it no longer has',
    async (c) => {
      const page = c.page;
      const next = change(A, { 5: 'five\n', 30: 'thirty\n' });
      await batch(c, 'stale', [{ operation: 'write', path: 'stale.txt', content: next }]);
      await open(c, 'stale', false);
      const [first] = await page.$$('#diff-body input.hunk-tick[data-path="stale.txt"]');
      const seen = await first!.evaluate((e: any) => e.dataset.hunk as string);
      await first!.click();
      assert.is(await textOf(c, '#apply'), 'Apply 1 hunk of 1 file');
      await batch(c, 'stale', [{ operation: 'write', path: 'stale.txt', content: `${next}end\n` }]);

      await page.click('#apply');
      await page.waitForSelector('#message[data-code="STALE_REVIEW"]');
      assert.match(await textOf(c, '#message'), /no longer what was reviewed/);
      assert.is(c.repo.read('stale.txt'), A.join(''), 'nothing written');
      assert.equal(
        (await c.sh.events({ draft: 'stale' })).filter((e) => e.type.startsWith('apply/')),
        [],
      );
      // Drawn again: the new state's hunks (3 now), the old id's tick gone.
      await page.waitForFunction(
        (old: string) => {
          const ids = [...document.querySelectorAll('#diff-body input.hunk-tick')].map((e: any) => e.dataset.hunk);
          return ids.length === 3 && !ids.includes(old);
        },
        { timeout: 15_000 },
        seen,
      );
      assert.equal(
        (await boxes(c)).map((b) => b.checked),
        [false, false, false],
      );
      assert.is(await textOf(c, '#apply'), 'Apply all');
      assert.equal(
        c.problems.filter((p) => !/ERR_FAILED/.test(p)),
        [],
      );
    },
  );
}

B.run();
