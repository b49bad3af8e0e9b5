/**
 * bench/install.bench.ts: what `npm install -g` of the packed tarball puts
 * on disk, and proof that what runs was installed. It packs the built
 * package as it is (`npm pack --ignore-scripts`: dist/ from the last build),
 * installs it with `npm install -g --prefix <scratch>` (from the registry
 * and npm's cache) and measures the prefix: size on disk as `du -s` counts
 * it (blocks), bytes, files, and the largest packages. The baseline, in the
 * same run: the same tarball with the packages that only the build needs put
 * back into `dependencies`, as they were (`--no-baseline` skips it). Then it
 * runs the installed `shadow` from the prefix, where no node_modules of the
 * clone is in reach: `--version`, the README's first session on a new
 * repository (batch, log, cat, diff --stat, apply, the bytes on disk
 * checked), `shadow mcp` (initialize and tools/list answered) and
 * `shadow serve` (the one-time login, then the review page's four files,
 * compared with the installed ones).
 *
 *   npm run build && node dist/bench/install.bench.js [--no-baseline] [--keep]
 *
 * Target (issue: a call without a server at node's own speed, item 5):
 * installed size ≤ 40 MB, measured from `npm pack`.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFlags } from './helpers/flags.js';
import { machineLine } from './helpers/machine.js';
import { gitEnv, run } from './helpers/repo.js';
import { scratchRun } from './helpers/scratch.js';
import { ms, table, thousands } from './helpers/stats.js';
import { printVerdicts, verdict, type Check, type Verdict } from './helpers/targets.js';

const HELP = `usage: node dist/bench/install.bench.js [options]
  --no-baseline   skip the install with the build-time packages as dependencies
  --cache dir     where the scratch directory goes (default: shadow-install-bench in the temporary
                  directory; no directory above it may hold a node_modules, which the installed
                  command would load from)
  --keep          keep the scratch directory (the prefixes, the tarball, the repository)
`;
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const o = { baseline: true, keep: false, cacheDir: join(tmpdir(), 'shadow-install-bench') };
readFlags(process.argv.slice(2), HELP, {
  '--no-baseline': () => (o.baseline = false),
  '--keep': () => (o.keep = true),
  '--cache': (v) => (o.cacheDir = v()),
});

const TARGET_MB = 40;
/** What only the build needs: bundled into the page, the CLI or dist/bin/mcp-sdk.cjs; installed before. */
const BUILD_ONLY = [
  'diff2html',
  'highlight.js',
  '@modelcontextprotocol/sdk',
  'yargs',
  'strip-ansi',
  'get-east-asian-width',
];
/** As `du -h` counts them. */
const MiB = 2 ** 20;

interface Sizes {
  disk: number;
  bytes: number;
  files: number;
}

/** Blocks on disk (as `du -s`; a hard link once), bytes and entries under `dir`. */
function sizeOf(dir: string, seen = new Set<number>()): Sizes {
  const out: Sizes = { disk: 0, bytes: 0, files: 0 };
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = lstatSync(path);
    out.files++;
    if (st.nlink > 1 && !st.isDirectory()) {
      if (seen.has(st.ino)) continue;
      seen.add(st.ino);
    }
    out.disk += st.blocks * 512;
    out.bytes += st.size;
    if (st.isDirectory()) {
      const inner = sizeOf(path, seen);
      out.disk += inner.disk;
      out.bytes += inner.bytes;
      out.files += inner.files;
    }
  }
  return out;
}

/** Each package under `modules` (scoped ones by their full name), with its size, largest first. */
function packagesOf(modules: string): [string, Sizes][] {
  if (!existsSync(modules)) return [];
  const names = readdirSync(modules).flatMap((n) =>
    n.startsWith('@') ? readdirSync(join(modules, n)).map((m) => `${n}/${m}`) : n.startsWith('.') ? [] : [n],
  );
  return names.map((n): [string, Sizes] => [n, sizeOf(join(modules, n))]).sort((a, b) => b[1].disk - a[1].disk);
}

const npm = (args: string[], cwd: string): string => run('npm', args, { cwd });

/** `npm install -g --prefix <prefix> <tarball>`, timed. */
function install(tarball: string, prefix: string): { seconds: number; sizes: Sizes } {
  const t = performance.now();
  npm(['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel', 'error', tarball], PROJECT_ROOT);
  return { seconds: (performance.now() - t) / 1000, sizes: sizeOf(prefix) };
}

/** The tarball again, with the build-only packages back in `dependencies` at the ranges package.json builds with. */
function baselineTarball(tarball: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  run('tar', ['-xzf', tarball, '-C', dir]);
  const file = join(dir, 'package', 'package.json');
  const p = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>>;
  const dev = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as typeof p).devDependencies!;
  for (const name of BUILD_ONLY) p.dependencies![name] = dev[name]!;
  writeFileSync(file, JSON.stringify(p, null, 2));
  return join(dir, npm(['pack', '--ignore-scripts', '--pack-destination', dir], join(dir, 'package')).trim());
}

/** One check of the installed command: its name, whether it held, what was seen, how long it took. */
interface RunCheck {
  name: string;
  ok: boolean;
  detail: string;
  ms: number;
}

async function timed(name: string, f: () => Promise<string> | string): Promise<RunCheck> {
  const t = performance.now();
  try {
    const detail = await f();
    return { name, ok: true, detail, ms: performance.now() - t };
  } catch (e) {
    return { name, ok: false, detail: (e as Error).message.split('\n')[0]!, ms: performance.now() - t };
  }
}

/** The README's first session with the installed command, checked on disk and by git. */
function firstSession(shadow: string, repo: string, env: Record<string, string>): string {
  mkdirSync(repo, { recursive: true });
  const git = (...args: string[]): string => run('git', args, { cwd: repo, env });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), 'Hello\n');
  writeFileSync(join(repo, 'old.txt'), 'obsolete\n');
  git('add', '.');
  git('-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'initial');
  const sh = (args: string[], input?: string): string => run(shadow, args, { cwd: repo, env, input });
  sh(
    ['batch', '-'],
    JSON.stringify({
      intent: 'add greeting',
      operations: [
        { operation: 'write', path: 'src/hello.ts', content: 'export const hi = 1\n' },
        { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, world' },
        { operation: 'delete', path: 'old.txt' },
      ],
    }),
  );
  if (!sh(['log']).includes('add greeting')) throw new Error('shadow log does not show the batch');
  if (sh(['cat', 'src/hello.ts']) !== 'export const hi = 1\n') throw new Error('shadow cat reads other bytes');
  if (!sh(['diff', '--stat']).includes('3 files changed')) throw new Error('shadow diff --stat does not count 3 files');
  if (readFileSync(join(repo, 'README.md'), 'utf8') !== 'Hello\n')
    throw new Error('the working tree moved before apply');
  sh(['apply']);
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  if (readme !== 'Hello, world\n' || existsSync(join(repo, 'old.txt'))) throw new Error('apply left other files');
  return `batch, log, cat, diff --stat, apply: README.md ${JSON.stringify(readme)}, old.txt gone`;
}

/** `shadow mcp`: initialize and tools/list answered over stdio, then stdin closed and the exit awaited. */
async function mcpSession(shadow: string, repo: string, env: Record<string, string>): Promise<string> {
  const child = spawn(shadow, ['mcp'], { cwd: repo, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const answers = new Map<number, (v: Record<string, unknown>) => void>();
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buffered += d;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const msg = JSON.parse(buffered.slice(0, nl)) as { id?: number };
      buffered = buffered.slice(nl + 1);
      if (msg.id !== undefined) answers.get(msg.id)?.(msg);
    }
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const call = (id: number, method: string, params: unknown): Promise<Record<string, unknown>> =>
    Promise.race([
      new Promise<Record<string, unknown>>((done) => {
        answers.set(id, done);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      }),
      exited.then((code): Record<string, unknown> => {
        throw new Error(`shadow mcp exited (${code}): ${err.trim()}`);
      }),
    ]);
  const init = await call(1, 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'install-bench', version: '1' },
  });
  const server = (init.result as { serverInfo?: { name?: string } } | undefined)?.serverInfo?.name;
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const list = await call(2, 'tools/list', {});
  const tools = (list.result as { tools?: unknown[] } | undefined)?.tools?.length ?? 0;
  child.stdin.end();
  const code = await exited;
  if (!server || tools === 0 || code !== 0) throw new Error(`server ${server}, ${tools} tools, exit ${code}: ${err}`);
  return `initialize answered by ${server}, ${tools} tools listed, exit 0`;
}

/** `shadow serve --json`: the one-time login, then the page's files byte for byte; SIGTERM and the exit awaited. */
async function servePage(
  shadow: string,
  repo: string,
  env: Record<string, string>,
  installed: string,
): Promise<string> {
  const child = spawn(shadow, ['serve', '--json'], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  try {
    const started = await Promise.race([
      new Promise<{ url: string; page_url: string }>((done) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          // One JSON document, over several lines: whole once it parses.
          try {
            done(JSON.parse(out) as { url: string; page_url: string });
          } catch {
            // not yet whole
          }
        });
      }),
      exited.then((code): never => {
        throw new Error(`shadow serve exited (${code}): ${err.trim()}`);
      }),
    ]);
    if (typeof started.page_url !== 'string') throw new Error(`shadow serve printed ${JSON.stringify(started)}`);
    const login = await fetch(started.page_url, { redirect: 'manual' });
    const cookie = login.headers.get('set-cookie')?.split(';')[0];
    if (login.status !== 303 || !cookie) throw new Error(`login answered ${login.status}`);
    const seen: string[] = [];
    for (const [path, file] of [
      ['/ui/', 'index.html'],
      ['/ui/app.js', 'app.js'],
      ['/ui/highlighter.js', 'highlighter.js'],
      ['/ui/app.css', 'app.css'],
    ] as const) {
      const r = await fetch(`${started.url}${path}`, { headers: { cookie } });
      const body = Buffer.from(await r.arrayBuffer());
      const want = readFileSync(join(installed, 'dist/src/http/page', file));
      if (r.status !== 200 || !body.equals(want)) throw new Error(`${path}: ${r.status}, ${body.length} bytes`);
      seen.push(`${file} ${thousands(body.length)} B`);
    }
    return `logged in; ${seen.join(', ')}, each the installed file`;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** The first directory at or above `dir` that holds a node_modules: node would resolve a package missing from the install there. */
function modulesAbove(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'node_modules'))) return join(d, 'node_modules');
    if (dirname(d) === d) return undefined;
  }
}

const started = performance.now();
mkdirSync(o.cacheDir, { recursive: true });
const above = modulesAbove(o.cacheDir);
if (above) throw new Error(`${above} is above ${o.cacheDir}: the installed command could load from it (use --cache)`);
const { root } = scratchRun(o.cacheDir, 'install', o.keep);
const env = gitEnv(join(root, 'home'), { SHADOW_ACTOR: 'install-bench' });
console.log(machineLine(run('git', ['--version']).trim()));
console.log(`npm ${npm(['--version'], PROJECT_ROOT).trim()}, scratch ${root}\n`);

const packDir = join(root, 'pack');
mkdirSync(packDir);
const tarball = join(
  packDir,
  npm(['pack', '--ignore-scripts', '--loglevel', 'error', '--pack-destination', packDir], PROJECT_ROOT).trim(),
);
const now = install(tarball, join(root, 'now'));
const pkgDir = join(root, 'now', 'lib', 'node_modules', 'shadow-drafts');
const before = o.baseline ? install(baselineTarball(tarball, join(root, 'baseline')), join(root, 'before')) : undefined;

const row = (name: string, s: Sizes, seconds: number): string[] => [
  name,
  (s.disk / MiB).toFixed(1),
  (s.bytes / MiB).toFixed(1),
  thousands(s.files),
  seconds.toFixed(1),
];
console.log(`tarball ${(lstatSync(tarball).size / MiB).toFixed(2)} MiB\n`);
console.log(
  table(
    ['install -g of the tarball', 'MiB on disk', 'MiB (bytes)', 'files', 's'],
    [
      row('now: dependencies are what runs', now.sizes, now.seconds),
      ...(before ? [row('before: build-time packages installed too', before.sizes, before.seconds)] : []),
    ],
  ),
);
const parts: [string, Sizes][] = [
  ['(shadow itself: dist/, package.json, README)', sizeOf(join(pkgDir, 'dist'))],
  ...packagesOf(join(pkgDir, 'node_modules')),
];
console.log(`\nthe largest of what is installed now (${parts.length - 1} packages):\n`);
console.log(
  table(
    ['package', 'MiB on disk', 'files'],
    parts
      .sort((a, b) => b[1].disk - a[1].disk)
      .slice(0, 12)
      .map(([n, s]) => [n, (s.disk / MiB).toFixed(2), thousands(s.files)]),
  ),
);

const shadow = join(root, 'now', 'bin', 'shadow');
const repo = join(root, 'repo');
const checks: RunCheck[] = [];
checks.push(
  await timed('shadow --version', () => {
    const out = run(shadow, ['--version'], { cwd: root, env }).trim();
    const version = (JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string }).version;
    if (out !== `shadow ${version}`) throw new Error(`printed ${out}`);
    return out;
  }),
);
checks.push(await timed("the README's first session", () => firstSession(shadow, repo, env)));
checks.push(await timed('shadow mcp', () => mcpSession(shadow, repo, env)));
checks.push(await timed('shadow serve and the review page', () => servePage(shadow, repo, env, pkgDir)));
console.log(`\nthe installed command (${shadow}):\n`);
console.log(
  table(
    ['run', 'what was seen', 'ok', 'ms'],
    checks.map((c) => [c.name, c.detail, c.ok ? 'yes' : 'NO', ms(c.ms)]),
    2,
  ),
);

const size: Check[] = [
  {
    ok: now.sizes.disk <= TARGET_MB * MiB,
    text: `${(now.sizes.disk / MiB).toFixed(1)} MiB on disk, ${thousands(now.sizes.files)} files${
      before ? ` (before: ${(before.sizes.disk / MiB).toFixed(1)} MiB, ${thousands(before.sizes.files)} files)` : ''
    }`,
  },
];
const verdicts: Verdict[] = [
  verdict(`npm install -g of the packed tarball installs at most ${TARGET_MB} MiB`, size, ''),
  verdict(
    'the installed shadow runs: --version, a first session, mcp, serve and its page',
    checks.map((c) => ({ ok: c.ok, text: `${c.name} ${c.ok ? 'ok' : `FAILED: ${c.detail}`}` })),
    '',
  ),
];
printVerdicts(verdicts, started);
process.exit(verdicts.every((v) => v.status === 'PASS') ? 0 : 1);
