import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitShow } from './helpers/http-server.js';
import { chromiumFor, pagePerTest, rendered, renderedAfter, screenshotDir, type PageCtx } from './helpers/browser.js';

// The functions handed to the page run in the browser, where these exist.
declare const document: any;
declare const window: any;

/*
 * The review page end to end, in a real headless Chromium (Debian's, driven
 * by puppeteer-core): an agent's batches appear live, the diff reads as
 * git's (renames paired, highlighted, secrets masked), a denied secret makes
 * apply refuse, an approval lets it through, and apply (partial and whole),
 * unapply and rollback change the working tree, the draft's ref and the
 * ledger exactly as the CLI's calls do. The page must raise no script error
 * and no CSP violation on the way. Screenshots of the main views go to
 * SHADOW_SCREENSHOT_DIR (docs/screenshots for the README's) or a temporary
 * directory.
 */

const TOKEN = 'ghp_' + 'k7Q2mZ9xR4tB8wN1vC6yL3pH5sD0fJ2gA9eU'; // made up, shaped like a classic GitHub token
const APP = 'export function greet(name: string): string {\n  return `hello ${name}`;\n}\n';

interface E2E extends PageCtx {
  shots: { dir: string; remove(): void };
}

/** A batch as an agent sends it (HTTP, bearer token); the page shows it live. */
async function agentBatch(c: E2E, intent: string, operations: unknown[]): Promise<void> {
  const r = await c.api.call('POST', '/api/batch', { json: { intent, operations } });
  assert.is(r.status, 200, JSON.stringify(r.body));
}

async function events(c: E2E, type: string): Promise<Array<Record<string, unknown>>> {
  return (await c.sh.events()).filter((e) => e.type === type).map((e) => e.data);
}

/** Wait until the view on screen includes every event of the draft's ledger and no draw is due (app.js: body[data-seen], [data-busy]). */
async function quiet(c: E2E): Promise<void> {
  const last = (await c.sh.events()).at(-1)?.seq ?? 0;
  await c.page.waitForFunction(
    (seq: number) =>
      (JSON.parse(document.body.dataset.seen ?? '{}').default ?? 0) >= seq && document.body.dataset.busy === undefined,
    { timeout: 15_000 },
    last,
  );
}

/** Click a button of the page once the view is quiet, and wait for the view it redraws afterwards and the events it caused. */
async function click(c: E2E, selector: string): Promise<void> {
  await quiet(c);
  const before = await rendered(c.page);
  await c.page.click(selector);
  await renderedAfter(c.page, before);
  await quiet(c);
}

async function shot(c: E2E, name: string): Promise<void> {
  const path = join(c.shots.dir, `${name}.png`);
  await c.page.screenshot({ path, fullPage: true });
  assert.equal(
    [...readFileSync(path).subarray(0, 8)],
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    `${name}.png is a PNG`,
  );
}

const textOf = (c: E2E, selector: string): Promise<string> => c.page.$eval(selector, (e) => e.textContent ?? '');

const E = suite<E2E>('review page in a browser');
const chromium = chromiumFor(E, 'review page in a browser');

if (chromium) {
  pagePerTest(E, chromium);
  E.before.each((c) => {
    c.shots = screenshotDir();
  });
  E.after.each((c) => {
    c.shots.remove();
  });

  E(
    'a draft through the page: live batches, the diff, deny then approve a secret, partial apply, unapply, rollback, apply',
    async (c) => {
      const page = c.page;
      await page.goto(c.server.pageUrl());
      assert.is(new URL(page.url()).pathname, '/ui/');
      await page.waitForSelector('#live.on');
      await page.waitForFunction(() => document.querySelector('#view .summary')?.textContent?.startsWith('No drafts'));
      await page.evaluate(() => ((window as any).stayed = true));

      // An agent's batch appears without a reload.
      await agentBatch(c, 'greet people', [
        { operation: 'write', path: 'src/app.ts', content: APP },
        { operation: 'edit', path: 'notes.txt', old_content: 'one\n', content: 'one\ntwo\n' },
        { operation: 'rename', path: 'README.md', to: 'docs/README.md' },
      ]);
      await page.waitForSelector('tr[data-draft="default"]');
      assert.is(await textOf(c, 'tr[data-draft="default"] td.batches'), '1');
      assert.ok(await page.evaluate(() => (window as any).stayed === true), 'no reload');
      await shot(c, 'drafts');
      const first = await c.api.call('POST', '/api/drafts/default/checkpoints', { json: { name: 'first' } });
      assert.is(first.status, 200);

      // The draft's diff: every file, the rename paired, TypeScript highlighted.
      await quiet(c);
      await page.click('tr[data-draft="default"] a');
      await page.waitForSelector('#diff-body[data-complete]');
      const names = await page.$$eval('#diff-body .d2h-file-wrapper .d2h-file-name', (els) =>
        els.map((e) => e.textContent?.trim()),
      );
      assert.equal(names.sort(), ['README.md → docs/README.md', 'notes.txt', 'src/app.ts']);
      assert.ok(await page.$('#diff-body .d2h-moved-tag'), 'the rename is tagged');
      assert.ok(await page.$('#diff-body .hljs-keyword'), 'highlighted');
      assert.match(await textOf(c, '#diff-body'), /return `hello \$\{name\}`;/);
      assert.match(await textOf(c, '#diff-summary'), /^3 files, 4 lines changed, 1 rename$/);

      // A secret arrives while the person reads: masked on the page, and apply needs a decision.
      await agentBatch(c, 'configure', [
        { operation: 'write', path: 'config.ts', content: `export const token = '${TOKEN}';\n` },
      ]);
      await page.waitForSelector('tr[data-approval][data-status="pending"]');
      assert.is(await textOf(c, 'tr[data-approval] td:first-child'), 'secrets_override');
      await page.waitForFunction(
        () => document.querySelectorAll('#diff-body[data-complete] .d2h-file-wrapper').length === 4,
      );
      const html = await page.content();
      assert.not.ok(html.includes(TOKEN), 'the secret is nowhere on the page');
      assert.match(await textOf(c, '#decisions ul.findings'), /config\.ts:1 \(ghp_\*+\)/);
      assert.match(await textOf(c, '#timeline'), /batch 2: configure/);
      await shot(c, 'draft');

      // Deny, with a reason: apply refuses, the working tree is untouched.
      await quiet(c);
      const firstApproval = await page.$eval('tr[data-approval]', (e) => (e as any).dataset.approval!);
      await page.type('tr[data-approval] input.reason', 'not in this repository');
      await click(c, 'tr[data-approval] button.deny');
      await page.waitForSelector(`tr[data-approval="${firstApproval}"][data-status="denied"]`);
      assert.equal(
        (await events(c, 'approval/decision')).map((d) => [d.id, d.decision, d.reason]),
        [[firstApproval, 'deny', 'not in this repository']],
      );
      await click(c, '#apply');
      await page.waitForSelector('#message[data-code="DENIED"]');
      assert.match(await textOf(c, '#message'), /was denied/);
      assert.is(c.repo.read('notes.txt'), 'one\n');
      assert.ok(c.repo.exists('README.md'));
      assert.not.ok(c.repo.exists('src/app.ts'));
      assert.equal(await events(c, 'apply/complete'), []);

      // The agent changes the file: a new approval, which the person gives.
      await agentBatch(c, 'configure more', [
        {
          operation: 'write',
          path: 'config.ts',
          content: `export const token = '${TOKEN}';\nexport const retries = 3;\n`,
        },
      ]);
      await page.waitForSelector('tr[data-approval][data-status="pending"]');
      await quiet(c);
      const second = await page.$eval('tr[data-approval][data-status="pending"]', (e) => (e as any).dataset.approval!);
      assert.is.not(second, firstApproval);
      await page.type(`tr[data-approval="${second}"] input.reason`, 'a test fixture');
      await click(c, `tr[data-approval="${second}"] button.approve`);
      await page.waitForSelector(`tr[data-approval="${second}"][data-status="approved"]`);
      assert.equal(
        (await events(c, 'approval/decision')).map((d) => [d.decision, d.reason]),
        [
          ['deny', 'not in this repository'],
          ['approve', 'a test fixture'],
        ],
      );

      // Partial apply: only the ticked file reaches the working tree.
      await quiet(c);
      await page.click('#actions input[data-path="src/app.ts"]');
      await click(c, '#apply');
      await page.waitForFunction(() => document.querySelector('#message')?.textContent === 'applied 1 path');
      assert.is(c.repo.read('src/app.ts'), gitShow(c.repo, 'src/app.ts'));
      assert.is(c.repo.read('notes.txt'), 'one\n');
      assert.not.ok(c.repo.exists('config.ts'));
      assert.is((await events(c, 'apply/complete')).length, 1);

      // Unapply puts it back.
      await click(c, '#unapply');
      await page.waitForFunction(() =>
        /^unapplied: 1 path put back$/.test(document.querySelector('#message')?.textContent ?? ''),
      );
      assert.not.ok(c.repo.exists('src/app.ts'));
      assert.is((await events(c, 'apply/revert')).length, 1);

      // Roll back to the checkpoint: the draft's ref is the checkpoint's commit.
      await quiet(c);
      await page.select('#rollback-target', 'first');
      await click(c, '#rollback');
      await page.waitForFunction(() =>
        /^rolled back to first/.test(document.querySelector('#message')?.textContent ?? ''),
      );
      const checkpoint = (await c.sh.checkpoints()).find((k) => k.name === 'first')!;
      assert.is(c.repo.git('rev-parse', 'refs/shadow/drafts/default').trim(), checkpoint.commit);
      await page.waitForFunction(
        () => document.querySelectorAll('#diff-body[data-complete] .d2h-file-wrapper').length === 3,
      );
      assert.is(await page.$('tr[data-approval]'), null, 'nothing to decide without the secret');

      // Apply the whole draft (the rename is two paths): the working tree holds the draft's bytes.
      await click(c, '#apply');
      await page.waitForFunction(() => /^applied 4 paths$/.test(document.querySelector('#message')?.textContent ?? ''));
      for (const path of ['src/app.ts', 'notes.txt', 'docs/README.md'])
        assert.is(c.repo.read(path), gitShow(c.repo, path), path);
      assert.not.ok(c.repo.exists('README.md'));
      assert.not.ok(c.repo.exists('config.ts'));
      assert.is((await events(c, 'apply/complete')).length, 2);
      await page.waitForFunction(() => document.querySelector('#timeline')?.textContent?.includes('applied 4 files'));

      assert.equal(c.problems, [], 'no script error, no CSP violation');
    },
  );

  E(
    'a batch that lands after the page drew the draft: Apply is refused with STALE_REVIEW, nothing written, and the page draws the new file; then Apply publishes what it shows',
    async (c) => {
      const page = c.page;
      await agentBatch(c, 'one', [{ operation: 'write', path: 'a.txt', content: 'alpha\n' }]);
      // No live stream: the page keeps what it drew, as a page whose updates lag behind would.
      await page.setRequestInterception(true);
      page.on('request', (r) => void (new URL(r.url()).pathname === '/ui/api/live' ? r.abort() : r.continue()));
      await page.goto(c.server.pageUrl());
      await page.goto(`${new URL(page.url()).origin}/ui/#/drafts/default`);
      await page.waitForSelector('#diff-body[data-complete] [data-path="a.txt"]');
      await page.waitForSelector('#actions li[data-path="a.txt"]');
      const sneak = await c.sh.batch({
        intent: 'unseen',
        operations: [{ operation: 'write', path: 'unseen.txt', content: 'nobody saw this\n' }],
      });
      assert.ok(sneak.success);
      assert.is(await page.$('#actions li[data-path="unseen.txt"]'), null, 'the page still shows what it drew');

      await page.click('#apply');
      await page.waitForSelector('#message[data-code="STALE_REVIEW"]');
      assert.match(await textOf(c, '#message'), /no longer what was reviewed/);
      assert.not.ok(c.repo.exists('a.txt') || c.repo.exists('unseen.txt'), 'nothing written');
      assert.equal(await events(c, 'apply/start'), []);
      // Drawn again: the new file, in the list and in the diff.
      await page.waitForSelector('#actions li[data-path="unseen.txt"]');
      await page.waitForFunction(
        () => document.querySelector('#diff-body[data-complete] [data-path="unseen.txt"]') !== null,
      );

      await page.click('#apply');
      await page.waitForFunction(() => document.querySelector('#message')?.textContent === 'applied 2 paths');
      for (const path of ['a.txt', 'unseen.txt']) assert.is(c.repo.read(path), gitShow(c.repo, path), path);
      // The live stream was cut on purpose; nothing else may have gone wrong.
      assert.equal(
        c.problems.filter((p) => !/ERR_FAILED/.test(p)),
        [],
      );
    },
  );

  E(
    'a diff drawn from an older state than the rest of the page: Apply sends nothing and the page draws again',
    async (c) => {
      const page = c.page;
      await agentBatch(c, 'one', [{ operation: 'write', path: 'a.txt', content: 'alpha\n' }]);
      await page.setRequestInterception(true);
      // The draft's state is held until its diff has been answered and a batch has landed: the diff shows the state before it.
      // The page asks for the diff again once it sees the newer state: that request waits until the test has
      // looked at the older diff and clicked Apply, so nothing races the assertions.
      let held: (() => void) | undefined;
      let diffs = 0;
      const laterDiffs: Array<() => void> = [];
      let released = false;
      const heldNow = new Promise<void>((ready) => {
        page.on('request', (r) => {
          const path = new URL(r.url()).pathname;
          if (path === '/ui/api/live') return void r.abort();
          if (path === '/ui/api/drafts/default' && held === undefined) {
            held = () => void r.continue();
            return ready();
          }
          if (path === '/ui/api/drafts/default/diff' && ++diffs > 1 && !released)
            return void laterDiffs.push(() => void r.continue());
          return void r.continue();
        });
      });
      await page.goto(c.server.pageUrl());
      const diffAnswered = page.waitForResponse((r) => new URL(r.url()).pathname === '/ui/api/drafts/default/diff');
      await page.goto(`${new URL(page.url()).origin}/ui/#/drafts/default`);
      await Promise.all([heldNow, diffAnswered]);
      assert.ok(
        (
          await c.sh.batch({
            intent: 'unseen',
            operations: [{ operation: 'write', path: 'unseen.txt', content: 'nobody saw this\n' }],
          })
        ).success,
      );
      held!();
      await page.waitForSelector('#actions li[data-path="unseen.txt"]');
      await page.waitForSelector('#diff-body[data-complete] [data-path="a.txt"]');
      assert.is(await page.$('#diff-body [data-path="unseen.txt"]'), null, 'the diff on screen is the older state');

      await page.click('#apply');
      await page.waitForSelector('#message[data-code="STALE_REVIEW"]');
      assert.match(await textOf(c, '#message'), /nothing was sent/);
      assert.not.ok(c.repo.exists('a.txt') || c.repo.exists('unseen.txt'), 'nothing written');
      released = true;
      for (const go of laterDiffs.splice(0)) go();
      // The newer diff drawn and no draw still due (body[data-busy]): the refusal's refresh may queue more
      // than one, and a draw replaces the Apply button a click would otherwise find detached.
      await page.waitForFunction(
        () =>
          document.body.dataset.busy === undefined &&
          document.querySelector('#diff-body[data-complete] [data-path="unseen.txt"]') !== null,
      );
      await page.click('#apply');
      await page.waitForFunction(() => document.querySelector('#message')?.textContent === 'applied 2 paths');
      assert.is(c.repo.read('unseen.txt'), 'nobody saw this\n');
      assert.equal(
        c.problems.filter((p) => !/ERR_FAILED/.test(p)),
        [],
      );
    },
  );

  E('the diff between two points, side by side, and without rename pairing', async (c) => {
    const page = c.page;
    await agentBatch(c, 'one', [{ operation: 'write', path: 'a.txt', content: 'alpha\n' }]);
    await agentBatch(c, 'two', [
      { operation: 'write', path: 'b.txt', content: 'beta\n' },
      { operation: 'rename', path: 'notes.txt', to: 'notes.md' },
    ]);
    await page.goto(c.server.pageUrl());
    await page.goto(`${new URL(page.url()).origin}/ui/#/drafts/default`);
    await page.waitForFunction(
      () => document.querySelectorAll('#diff-body[data-complete] .d2h-file-wrapper').length === 3,
    );
    await quiet(c);

    await page.select('#diff-from', '1');
    await page.waitForFunction(
      () =>
        document.querySelector('#diff-summary')?.textContent === '2 files, 1 line changed, 1 rename' &&
        document.querySelector('#diff-body[data-complete]'),
    );
    const names = await page.$$eval('#diff-body .d2h-file-wrapper .d2h-file-name', (els) =>
      els.map((e) => e.textContent?.trim()).sort(),
    );
    assert.equal(names, ['b.txt', 'notes.txt → notes.md']);

    await page.click('#diff-renames');
    await page.waitForFunction(
      () => document.querySelector('#diff-summary')?.textContent === '3 files, 3 lines changed',
    );

    await page.select('#diff-format', 'side-by-side');
    await page.waitForFunction(
      () => document.querySelectorAll('#diff-body[data-complete] .d2h-file-side-diff').length === 6,
    );
    assert.is((await page.$$('#diff-body .d2h-files-diff')).length, 3);
    await shot(c, 'side-by-side');
    assert.equal(c.problems, []);
  });

  E('a file of more than 1,500 changed lines shows collapsed until asked for; a binary file as binary', async (c) => {
    const page = c.page;
    await agentBatch(c, 'big', [
      { operation: 'write', path: 'big.txt', content: 'row\n'.repeat(1600) },
      {
        operation: 'write',
        path: 'logo.png',
        encoding: 'base64',
        content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]).toString('base64'),
      },
    ]);
    await page.goto(c.server.pageUrl());
    await page.goto(`${new URL(page.url()).origin}/ui/#/drafts/default`);
    await page.waitForSelector('#diff-body[data-complete]');
    assert.match(
      await textOf(c, '#diff-body [data-path="big.txt"] .collapsed-file'),
      /^big\.txt 1600 lines changed: collapsed/,
    );
    assert.is(await page.$('#diff-body [data-path="big.txt"] .d2h-file-wrapper'), null);
    assert.match(await textOf(c, '#diff-body [data-path="logo.png"] .d2h-file-wrapper'), /Binary file/);
    await page.click('#diff-body [data-path="big.txt"] button.show-file');
    await page.waitForSelector('#diff-body [data-path="big.txt"] .d2h-file-wrapper');
    assert.is((await page.$$('#diff-body [data-path="big.txt"] .d2h-ins')).length >= 1600, true);
    assert.equal(c.problems, []);
  });
}

E.run();
