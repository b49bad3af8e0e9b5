/**
 * bench/page.bench.ts: how long the review page takes to show a draft whose
 * diff changes 1,000 lines (10 TypeScript files, 50 lines replaced in each),
 * from a warm `shadow serve` (an in-process server, as `shadow serve` runs
 * it), in a real headless Chromium: from the navigation's start to the view
 * whole on screen (the draft, its decisions, the first screenful of its diff
 * drawn by diff2html), the `shadow:drawn` mark app.js sets, and to that
 * screenful highlighted (`shadow:highlighted`, a turn later). The baseline, measured
 * in the same run and the same browser: a static page holding the same
 * patch text in a <pre>, served by a bare node http server (a browser's
 * floor for showing that text), to its load event. Beside the ms, what does
 * not depend on the machine: requests, bytes of the page's assets and of its
 * API answers, the diff's lines and highlighted tokens drawn.
 *
 *   npm run build && node dist/bench/page.bench.js [--runs 15]
 *
 * Target (issue: review page): the page and its assets load in under 200 ms.
 */
import { createServer } from 'node:http';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeContext, openShadow, startServer } from '../src/index.js';
import { findChromium, launchBrowser } from '../test/helpers/browser.js';
import { positiveInt, readFlags } from './helpers/flags.js';
import { gitEnv } from './helpers/repo.js';
import { scratchRun } from './helpers/scratch.js';
import { median, ms, table } from './helpers/stats.js';
import { printVerdicts, verdict, type Check } from './helpers/targets.js';

// The functions handed to the page run in the browser, where these exist.
declare const document: any;
declare const performance: any;

const HELP = `usage: node dist/bench/page.bench.js [options]
  --runs n     measured loads of each page after two warm-ups (default 15)
`;
let runs = 15;
readFlags(process.argv.slice(2), HELP, { '--runs': (v) => (runs = positiveInt(v(), '--runs')) });
const TARGET_MS = 200;
const FILES = 10;
const LINES = 100;

const started = performance.now();
const chromium = findChromium();
if (!chromium) {
  printVerdicts(
    [
      verdict(
        `the page shows a 1,000-line diff in under ${TARGET_MS} ms`,
        [],
        'no Chromium (apt-get install chromium, or SHADOW_CHROMIUM)',
      ),
    ],
    started,
  );
  process.exit(0);
}

// ---------------------------------------------------------------- the repository: 10 files, 50 lines of each replaced by the draft
const { root, home } = scratchRun(join(tmpdir(), 'shadow-bench'), 'page', false);
const dir = join(root, 'repo');
mkdirSync(join(dir, 'src'), { recursive: true });
const env = gitEnv(home, {
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
});
const git = (...args: string[]): string => spawnSync('git', args, { cwd: dir, env, encoding: 'utf8' }).stdout;
const source = (file: number, changed: boolean): string =>
  Array.from({ length: LINES }, (_, i) =>
    changed && i % 2 === 0
      ? `export const value${file}_${i} = await load('${file}/${i}', { retries: ${i % 7} });`
      : `export function item${file}_${i}(x: number): number { return x * ${i}; }`,
  ).join('\n') + '\n';
for (let f = 0; f < FILES; f++) writeFileSync(join(dir, 'src', `mod${f}.ts`), source(f, false));
git('init', '-q', '-b', 'main');
git('add', '.');
git('commit', '-qm', 'base');
const ctx = nodeContext({ env });
const sh = await openShadow({ dir, env, fs: ctx.fs, ids: ctx.ids, clock: ctx.clock, processes: ctx.processes });
await sh.batch({
  intent: 'rewrite half of every module',
  operations: Array.from({ length: FILES }, (_, f) => ({
    operation: 'write' as const,
    path: `src/mod${f}.ts`,
    content: source(f, true),
  })),
});
const stat = await sh.diff({ content: 'stat' });
const changedLines = stat.files.reduce((n, f) => n + (f.insertions ?? 0) + (f.deletions ?? 0), 0);
const patch = (await sh.diff({ content: 'patch' })).files.map((f) => f.patch).join('');

const server = await startServer(sh, {});
const escapeHtml = (s: string): string => s.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`);
const staticHtml = `<!doctype html><html><head><meta charset="utf-8"><title>patch</title></head><body><pre>${escapeHtml(patch)}</pre></body></html>`;
const baseline = createServer((_req, res) =>
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(staticHtml),
);
await new Promise<void>((done) => baseline.listen(0, '127.0.0.1', done));
const baselinePort = (baseline.address() as { port: number }).port;

const { browser, close: closeBrowser } = await launchBrowser(chromium);
try {
  const page = await browser.newPage();
  await page.goto(server.pageUrl());
  const pageUrl = (i: number): string => `${server.url}/ui/?load=${i}#/drafts/default`;

  const loadPage = async (
    i: number,
  ): Promise<{
    ms: number;
    highlighted: number;
    requests: number;
    assetBytes: number;
    apiBytes: number;
    lines: number;
    tokens: number;
  }> => {
    await page.goto(pageUrl(i));
    await page.waitForFunction(
      () =>
        performance.getEntriesByName('shadow:highlighted').length > 0 &&
        performance.getEntriesByName('shadow:drawn').length > 0,
      { timeout: 30_000 },
    );
    return page.evaluate(() => {
      const resources = performance.getEntriesByType('resource') as Array<{ name: string; encodedBodySize: number }>;
      const nav = performance.getEntriesByType('navigation')[0] as { encodedBodySize: number };
      const api = resources.filter((r) => r.name.includes('/ui/api/'));
      return {
        ms: performance.getEntriesByName('shadow:drawn')[0].startTime as number,
        highlighted: performance.getEntriesByName('shadow:highlighted')[0].startTime as number,
        requests: resources.length + 1,
        assetBytes:
          nav.encodedBodySize +
          resources.filter((r) => !r.name.includes('/ui/api/')).reduce((n, r) => n + r.encodedBodySize, 0),
        apiBytes: api.reduce((n, r) => n + r.encodedBodySize, 0),
        lines: document.querySelectorAll('#diff-body .d2h-code-line').length as number,
        tokens: document.querySelectorAll('#diff-body [class^="hljs-"]').length as number,
      };
    });
  };
  const loadBaseline = async (i: number): Promise<number> => {
    await page.goto(`http://127.0.0.1:${baselinePort}/?load=${i}`, { waitUntil: 'load' });
    return page.evaluate(
      () => (performance.getEntriesByType('navigation')[0] as { loadEventEnd: number }).loadEventEnd,
    );
  };

  for (let i = 0; i < 2; i++) {
    await loadPage(-1 - i);
    await loadBaseline(-1 - i);
  }
  const pageMs: number[] = [];
  const litMs: number[] = [];
  const baseMs: number[] = [];
  let facts = await loadPage(0);
  // Interleaved, so that the machine's load weighs on both alike.
  for (let i = 1; i <= runs; i++) {
    facts = await loadPage(i);
    pageMs.push(facts.ms);
    litMs.push(facts.highlighted);
    baseMs.push(await loadBaseline(i));
  }
  const p = median(pageMs);
  const b = median(baseMs);
  console.log(
    `a draft of ${FILES} files, ${changedLines} changed lines; ${runs} loads of each, interleaved; Chromium ${(await browser.version()).replace(/^[^/]*\//, '')}\n`,
  );
  console.log(
    table(
      [
        'page',
        'median ms',
        'slowest ms',
        'vs baseline',
        'requests',
        'asset KB',
        'API KB',
        'diff lines drawn',
        'highlighted tokens',
      ],
      [
        [
          'review page, draft view',
          ms(p),
          ms(Math.max(...pageMs)),
          `${(p / b).toFixed(1)}x`,
          String(facts.requests),
          (facts.assetBytes / 1024).toFixed(0),
          (facts.apiBytes / 1024).toFixed(0),
          String(facts.lines),
          String(facts.tokens),
        ],
        [
          '  ...its first screen highlighted',
          ms(median(litMs)),
          ms(Math.max(...litMs)),
          `${(median(litMs) / b).toFixed(1)}x`,
          '',
          '',
          '',
          '',
          '',
        ],
        [
          'baseline: the patch in a <pre>',
          ms(b),
          ms(Math.max(...baseMs)),
          '1.0x',
          '1',
          (Buffer.byteLength(staticHtml) / 1024).toFixed(0),
          '0',
          '-',
          '-',
        ],
      ],
    ),
  );
  if (process.env.PAGE_BENCH_TRACE) {
    await loadPage(runs + 1);
    console.log(
      await page.evaluate(() =>
        JSON.stringify(
          (performance.getEntriesByType('resource') as any[]).map((r) => [
            r.name.replace(/^https?:\/\/[^/]+/, ''),
            Math.round(r.startTime),
            Math.round(r.responseEnd),
          ]),
        ),
      ),
    );
    console.log(
      await page.evaluate(() =>
        JSON.stringify([
          (performance.getEntriesByType('navigation')[0] as any).domContentLoadedEventEnd,
          performance.getEntriesByName('shadow:drawn')[0].startTime,
        ]),
      ),
    );
  }
  const checks: Check[] = [{ ok: p <= TARGET_MS, text: `median ${ms(p)} ms (baseline ${ms(b)} ms)` }];
  console.log('');
  printVerdicts(
    [verdict(`the page shows a ${changedLines}-line diff in under ${TARGET_MS} ms from a warm server`, checks, '')],
    started,
  );
} finally {
  await closeBrowser();
  await server.close();
  baseline.close();
  sh.close();
}
