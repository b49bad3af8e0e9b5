import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { HTTPRequest } from 'puppeteer-core';
import { chromiumFor, pagePerTest, type PageCtx } from './helpers/browser.js';

// The functions handed to the page run in the browser, where these exist.
declare const document: any;
declare const location: any;

/*
 * The review page at its start: a move to another view while the page still
 * waits for its session's token is drawn, not lost. A slow answer to
 * /ui/api/session is held here on purpose, the way a loaded machine holds it.
 */

const S = suite<PageCtx>('review page at its start');
const chromium = chromiumFor(S, 'review page at its start');

if (chromium) {
  pagePerTest(S, chromium);

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
