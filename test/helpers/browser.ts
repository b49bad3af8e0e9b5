import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { setUp, tearDown, type Ctx } from './http-server.js';

// The functions handed to the page run in the browser, where these exist.
declare const document: any;
declare const window: any;

/*
 * A real headless Chromium for the review page's end-to-end tests: Debian's
 * package (`apt-get install chromium`, which .ci/run does when it is
 * missing), driven by puppeteer-core with its executable path: nothing is
 * downloaded at install time. SHADOW_CHROMIUM names another executable.
 */

const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

/** The Chromium to drive, or undefined when none is installed. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env.SHADOW_CHROMIUM;
  if (named) return existsSync(named) ? named : undefined;
  return CANDIDATES.find((p) => existsSync(p));
}

/**
 * Why a browser test may not skip for want of Chromium, or undefined when
 * it may: under CI=true, and wherever .ci/run made sure of a Chromium
 * (SHADOW_REQUIRE_CHROMIUM=1), a test that cannot drive one fails instead
 * of passing with nothing run.
 */
export function chromiumRequired(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.CI === 'true') return 'CI=true';
  if (env.SHADOW_REQUIRE_CHROMIUM === '1')
    return 'SHADOW_REQUIRE_CHROMIUM=1 (set by .ci/run once Chromium is installed)';
  return undefined;
}

const MISSING = 'no Chromium found (apt-get install chromium, or set SHADOW_CHROMIUM to its executable)';

/**
 * The Chromium a file of browser tests (`what`) drives, or undefined: then
 * they say SKIP and why, or, where one is required (chromiumRequired), a
 * test of `suite` fails in their place, since a skip would count as a pass
 * with nothing run.
 */
export function chromiumFor<C>(suite: Test<C>, what: string): string | undefined {
  const chromium = findChromium();
  if (chromium) return chromium;
  const required = chromiumRequired();
  if (required)
    suite('a Chromium drives the review page', () => {
      assert.unreachable(`${what}: ${MISSING}, and ${required} does not let the browser tests skip`);
    });
  else console.log(`SKIP ${what}: ${MISSING}`);
  return undefined;
}

/** What a browser test of the review page holds: the server, its browser, a page, and the page's problems. */
export interface PageCtx extends Ctx {
  browser: Browser;
  page: Page;
  problems: string[];
}

/**
 * One browser for the file (its start is most of a test's time); for each
 * test, a server and repository of its own and a browser context of its own,
 * so that no cookie, storage or cache carries over.
 */
export function pagePerTest<C extends PageCtx>(suite: Test<C>, chromium: string): void {
  let stop: () => Promise<void>;
  let context: Awaited<ReturnType<Browser['createBrowserContext']>>;
  suite.before(async (c) => {
    ({ browser: c.browser, close: stop } = await launchBrowser(chromium));
  });
  suite.after(async () => {
    await stop();
  });
  suite.before.each(async (c) => {
    await setUp(c);
    context = await c.browser.createBrowserContext();
    c.page = await context.newPage();
    c.problems = [];
    watchProblems(c.page, c.problems);
  });
  suite.after.each(async (c) => {
    await context.close();
    await tearDown(c);
  });
}

/** A headless Chromium with a profile of its own; `close` stops it and removes the profile. */
export async function launchBrowser(executablePath: string): Promise<{ browser: Browser; close(): Promise<void> }> {
  const { default: puppeteer } = await import('puppeteer-core');
  // A profile of its own per run; no sandbox, as in a container that runs tests as root.
  const userDataDir = mkdtempSync(join(tmpdir(), 'shadow-chromium-'));
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    userDataDir,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-extensions',
      '--force-color-profile=srgb',
    ],
    defaultViewport: { width: 1280, height: 900 },
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(userDataDir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

/**
 * Where a test writes its screenshots: SHADOW_SCREENSHOT_DIR (docs/screenshots to refresh the
 * README's), kept; else a fresh temporary directory, which `remove` takes away.
 */
export function screenshotDir(env: NodeJS.ProcessEnv = process.env): { dir: string; remove(): void } {
  const kept = env.SHADOW_SCREENSHOT_DIR;
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'shadow-screenshots-'));
  mkdirSync(dir, { recursive: true });
  return { dir, remove: () => (kept ? undefined : rmSync(dir, { recursive: true, force: true })) };
}

/** Wait until the page's view has been drawn more times than `after` (app.js counts its draws in body[data-rendered]). */
export async function renderedAfter(page: Page, after: number): Promise<number> {
  await page.waitForFunction(
    (n: number) => Number(document.body.dataset.rendered ?? 0) > n,
    { timeout: 15_000 },
    after,
  );
  return page.evaluate(() => Number(document.body.dataset.rendered));
}

export const rendered = (page: Page): Promise<number> =>
  page.evaluate(() => Number(document.body.dataset.rendered ?? 0));

/**
 * Collect what goes wrong on `page` into `problems`: uncaught errors and
 * console errors, less the failed loads Chromium logs for a refusal a test
 * asks for (a 4xx such as DENIED), which are no problem of the page.
 */
export function watchProblems(page: Page, problems: string[]): void {
  page.on('pageerror', (e) => problems.push(`page error: ${(e as Error).message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(m.text()))
      problems.push(`console: ${m.text()}`);
  });
}
