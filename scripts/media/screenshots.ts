/**
 * Screenshots of the review page on the demo project: the drafts, a draft
 * with its review findings and diff, and the approve and apply controls.
 * `shadow serve` runs on the project as a person would start it, and
 * Chromium is found and driven as the page's browser tests drive it
 * (test/helpers/browser.ts: Debian's chromium, or SHADOW_CHROMIUM).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { findChromium, launchBrowser } from '../../test/helpers/browser.js';
import type { DemoProject } from './demo-project.js';
import { AGENT_BATCH_FILE } from './session.js';

// The functions handed to the page run in the browser, where this exists.
declare const document: any;
declare const window: any;

/** The page's width in the screenshots, in CSS pixels. */
const WIDTH = 1100;

export const SCREENSHOTS = ['drafts.png', 'draft-review.png', 'approve-apply.png'] as const;

/** A second draft, so that the list shows more than one. */
const DOCS_BATCH = JSON.stringify({
  intent: 'document the greeting',
  operations: [{ operation: 'write', path: 'docs/greeting.md', content: '# Greeting\n\n`hello(name)` greets.\n' }],
});

function shadow(project: DemoProject, args: string[], actor: string, input?: string): void {
  const r = spawnSync('shadow', args, {
    cwd: project.dir,
    env: { ...project.env, SHADOW_ACTOR: actor },
    input,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`shadow ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
}

/** Start `shadow serve --json` and resolve to its process and the review page's one-time URL. */
function serve(project: DemoProject): Promise<{ child: ChildProcess; pageUrl: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('shadow', ['serve', '--json'], { cwd: project.dir, env: project.env });
    let out = '';
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      try {
        resolve({ child, pageUrl: (JSON.parse(out) as { page_url: string }).page_url });
      } catch {
        // Not the whole document yet.
      }
    });
    child.on('error', reject);
    child.on('exit', (status) => reject(new Error(`shadow serve exited ${status}: ${err}`)));
  });
}

/** Wait until the page has drawn everything it was asked to (app.js: body[data-busy] while a draw is due). */
const settled = (page: Page): Promise<unknown> =>
  page.waitForFunction(() => document.body.dataset.busy === undefined, { timeout: 15_000 });

/** The screenshots, into `outDir`; their file names are SCREENSHOTS. */
export async function takeScreenshots(project: DemoProject, outDir: string): Promise<void> {
  const chromium = findChromium();
  if (!chromium) throw new Error('the screenshots need Chromium: apt-get install chromium, or set SHADOW_CHROMIUM');
  shadow(project, ['batch', AGENT_BATCH_FILE], 'agent');
  shadow(project, ['--draft', 'docs', 'batch', '-'], 'docs-agent', DOCS_BATCH);
  const { child, pageUrl } = await serve(project);
  try {
    await shoot(chromium, pageUrl, outDir);
  } finally {
    // The server removes its server.json as it stops: wait for it before the directory goes.
    const running = child.exitCode === null && child.signalCode === null;
    const exited = running ? new Promise((done) => child.once('exit', done)) : undefined;
    child.kill('SIGTERM');
    await exited;
  }
}

async function shoot(chromium: string, pageUrl: string, outDir: string): Promise<void> {
  const { browser, close } = await launchBrowser(chromium);
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: WIDTH, height: 760, deviceScaleFactor: 1 });
    await page.goto(pageUrl);
    await page.waitForSelector('tr[data-draft="default"]');
    await page.waitForSelector('tr[data-draft="docs"]');
    await settled(page);
    await page.screenshot({ path: join(outDir, 'drafts.png'), clip: await clipOf(page, 'header.top', 'main') });

    await page.click('tr[data-draft="default"] a');
    await page.waitForSelector('#diff-body[data-complete]');
    await page.waitForSelector('tr[data-approval][data-status="pending"]');
    await settled(page);
    await page.screenshot({ path: join(outDir, 'draft-review.png'), clip: await clipOf(page, 'header.top', '#diff') });

    await page.type('tr[data-approval] input.reason', 'node 22 is fine');
    await page.hover('tr[data-approval] button.approve');
    await page.screenshot({
      path: join(outDir, 'approve-apply.png'),
      clip: await clipOf(page, '#decisions', '#actions'),
    });
  } finally {
    await close();
  }
}

/** The page's whole width, from the top of `from` to the bottom of `to`, with a margin. */
async function clipOf(
  page: Page,
  from: string,
  to: string,
): Promise<{ x: number; y: number; width: number; height: number }> {
  const edge = (selector: string, side: 'top' | 'bottom'): Promise<number> =>
    page.$eval(selector, (e, s) => (e.getBoundingClientRect() as Record<string, number>)[s]! + window.scrollY, side);
  const top = Math.max(0, Math.floor(await edge(from, 'top')) - 12);
  const bottom = Math.ceil(await edge(to, 'bottom')) + 12;
  return { x: 0, y: top, width: WIDTH, height: bottom - top };
}
