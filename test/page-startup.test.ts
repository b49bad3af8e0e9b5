import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { setUp, tearDown, type Ctx } from './helpers/http-server.js';
import { chromiumRequired, findChromium, launchBrowser, watchProblems } from './helpers/browser.js';

// The functions handed to the page run in the browser, where these exist.
declare const document: any;
declare const location: any;

/*
 * The review page at its start: a move to another view while the page still
 * waits for its session (app.js reads the session's token before it wires
 * the rest) is drawn, not lost. A slow answer to /ui/api/session is held
 * here on purpose, the way a loaded machine holds it.
 */

interface B extends Ctx {
  browser: Browser;
  page: Page;
  problems: string[];
}

const chromium = findChromium();
const S = suite<B>('review page at its start');
const missing = 'no Chromium found (apt-get install chromium, or set SHADOW_CHROMIUM to its executable)';
const required = chromiumRequired();

if (!chromium && required) {
  // Skipping here would count as a pass with nothing run.
  S('a Chromium drives the review page', () => {
    assert.unreachable(`review page at its start: ${missing}, and ${required} does not let the browser tests skip`);
  });
} else if (!chromium) {
  console.log(`SKIP review page at its start: ${missing}`);
} else {
  let stop: () => Promise<void>;
  S.before(async (c) => {
    ({ browser: c.browser, close: stop } = await launchBrowser(chromium));
  });
  S.after(async () => {
    await stop();
  });
  let context: Awaited<ReturnType<Browser['createBrowserContext']>>;
  S.before.each(async (c) => {
    await setUp(c);
    context = await c.browser.createBrowserContext();
    c.page = await context.newPage();
    c.problems = [];
    watchProblems(c.page, c.problems);
  });
  S.after.each(async (c) => {
    await context.close();
    await tearDown(c);
  });

  S('a move to a draft while the page waits for its session is drawn once the session comes', async (c) => {
    const r = await c.api.call('POST', '/api/batch', {
      json: { intent: 'one', operations: [{ operation: 'write', path: 'a.txt', content: 'alpha\n' }] },
    });
    assert.is(r.status, 200, JSON.stringify(r.body));
    const page = c.page;
    // Hold the session's answer until the drafts' view is drawn and the page has moved on.
    const held: HTTPRequest[] = [];
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/ui/api/session') held.push(req);
      else void req.continue();
    });
    await page.goto(c.server.pageUrl());
    await page.waitForFunction(() => document.querySelector('#view .summary') !== null, { timeout: 15_000 });
    assert.is(held.length, 1, 'the session was asked for, and is held');
    await page.evaluate(() => {
      location.hash = '#/drafts/default';
    });
    for (const req of held.splice(0)) await req.continue();
    await page.waitForFunction(
      () => document.querySelectorAll('#diff-body[data-complete] .d2h-file-wrapper').length === 1,
      { timeout: 15_000 },
    );
    assert.equal(c.problems, []);
  });
}

S.run();
