import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pageLoginOpener } from '../src/index.js';
import { codeOf } from './helpers/caught.js';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';
import { setUp, tearDown, type Ctx } from './helpers/http-server.js';
import { get, pathOf } from './helpers/page-client.js';
import { exited, serveChild } from './helpers/session-http.js';

/*
 * `--open` never puts the review page's one-time token on a command line
 * (any local user reads those): the browser is given a file:// path to a
 * file of the owner's only that leads to the login URL, and the server
 * removes that file once the token is offered, expired, or the server
 * stops. The browser here is $SHADOW_BROWSER, a script that reports its
 * arguments to the test and waits while the test reads every process's
 * command line.
 */

interface Opened {
  argv: string[];
  /** Tell the browser to exit. */
  done(): void;
}

/** A stand-in browser for `repo` ($SHADOW_BROWSER); `opened()` resolves when it runs. */
async function fakeBrowser(repo: DiskRepo): Promise<{ opened: () => Promise<Opened>; close: () => Promise<void> }> {
  const sock = join(repo.root, 'browser.sock');
  const script = join(repo.root, 'fake-browser.cjs');
  writeFileSync(
    script,
    `#!${process.execPath}\nconst s = require('node:net').connect(process.env.FAKE_BROWSER_SOCK);\n` +
      `s.on('connect', () => s.write(JSON.stringify(process.argv.slice(2)) + '\\n'));\ns.on('data', () => process.exit(0));\ns.on('close', () => process.exit(0));\ns.on('error', () => process.exit(3));\n`,
  );
  chmodSync(script, 0o755);
  repo.env.SHADOW_BROWSER = script;
  repo.env.FAKE_BROWSER_SOCK = sock;
  const waiting: Array<(o: Opened) => void> = [];
  const conns = new Set<Socket>();
  const server: Server = createServer((conn: Socket) => {
    conns.add(conn);
    let got = '';
    conn.setEncoding('utf8');
    conn.on('data', (d: string) => {
      got += d;
      if (got.endsWith('\n')) waiting.shift()?.({ argv: JSON.parse(got) as string[], done: () => conn.end('bye\n') });
    });
  });
  await new Promise<void>((resolve) => server.listen(sock, resolve));
  return {
    // The guard only keeps a broken run (no browser started) from hanging.
    opened: () =>
      new Promise((resolve, reject) => {
        const guard = setTimeout(() => reject(new Error('the browser was never started')), 15_000);
        waiting.push((o) => {
          clearTimeout(guard);
          resolve(o);
        });
      }),
    // A failed test leaves its browser waiting: let it go.
    close: () => {
      for (const c of conns) c.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The command lines of every process this user can see, joined. */
function everyCommandLine(): string {
  let all = '';
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      all += `${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')}\n`;
    } catch {
      // gone meanwhile
    }
  }
  return all;
}

/** What the browser was given: one file:// URL of a file of the owner's only, holding no token in its name. */
function checkOpened(repo: DiskRepo, opened: Opened, once: string): string {
  assert.not.ok(everyCommandLine().includes(once), 'no process has the token in its arguments');
  assert.is(opened.argv.length, 1);
  assert.not.ok(opened.argv[0]!.includes(once), opened.argv[0]);
  assert.match(opened.argv[0]!, /^file:\/\//);
  const file = fileURLToPath(opened.argv[0]!);
  assert.is(dirname(file), repo.path('.git/shadow/run/page-open'));
  assert.is(statSync(file).mode & 0o777, 0o600);
  assert.is(statSync(dirname(file)).mode & 0o777, 0o700);
  assert.is(statSync(dirname(dirname(file))).mode & 0o777, 0o700);
  return file;
}

/** The URL the opener file leads to. */
function leadsTo(file: string): string {
  const m = /<meta http-equiv="refresh" content="0;url=([^"]+)">/.exec(readFileSync(file, 'utf8'));
  assert.ok(m, 'a meta refresh');
  return m![1]!.replace(/&amp;/g, '&');
}

const onceOf = (url: string): string => /[?&]once=([A-Za-z0-9_-]{43})/.exec(url)![1]!;

const Open = suite('--open hands the browser a file, never the token');

Open(
  'shadow serve --open: the opener gets a file:// path, 0600 in 0700 directories; following it logs in once, and the file is gone',
  async () => {
    const repo = new DiskRepo({ 'a.txt': 'a\n' });
    const browser = await fakeBrowser(repo);
    try {
      const opening = browser.opened();
      const server = await serveChild(repo, ['--open']);
      try {
        const opened = await opening;
        const url = /review page [^:]*: (http:\S+)/.exec(server.stdout.text)![1]!;
        const file = checkOpened(repo, opened, onceOf(url));
        opened.done();
        assert.is(leadsTo(file), url);
        const login = await fetch(leadsTo(file), { redirect: 'manual' });
        assert.is(login.status, 303);
        assert.match(login.headers.get('set-cookie') ?? '', new RegExp(`^shadow_ui_${server.port}=`));
        assert.not.ok(existsSync(file), 'removed once the token was offered');
      } finally {
        server.child.kill('SIGTERM');
        await exited(server.child);
      }
    } finally {
      await browser.close();
      repo.cleanup();
    }
  },
);

Open(
  'shadow page --open: the same, from another process; a file never followed goes when the server stops',
  async () => {
    const repo = new DiskRepo({ 'a.txt': 'a\n' });
    const browser = await fakeBrowser(repo);
    try {
      const server = await serveChild(repo);
      let file: string;
      try {
        const opening = browser.opened();
        const page = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
          const child = spawn(process.execPath, [SHADOW_BIN, 'page', '--open', '--json'], {
            cwd: repo.dir,
            env: repo.env,
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          let stdout = '';
          child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
          child.on('close', (status) => resolve({ status, stdout }));
        });
        assert.is(page.status, 0);
        const url = JSON.parse(page.stdout).page_url as string;
        const opened = await opening;
        file = checkOpened(repo, opened, onceOf(url));
        opened.done();
        assert.is(leadsTo(file), url);
      } finally {
        server.child.kill('SIGTERM');
        await exited(server.child);
      }
      assert.not.ok(existsSync(file), 'removed when the server stopped');
    } finally {
      await browser.close();
      repo.cleanup();
    }
  },
);

const Files = suite<Ctx>('the login opener file');
Files.before.each((c) => setUp(c));
Files.after.each((c) => tearDown(c));

Files(
  'it goes when its own token is offered, good or spent, and when it expires (at the next login offered); not before',
  async (c) => {
    const url = c.server.pageUrl();
    const file = await pageLoginOpener(c.sh, url);
    assert.ok(existsSync(file));
    assert.is((await get(c, '/ui/login?once=not-the-token')).status, 401);
    assert.ok(existsSync(file), 'another token offered: still there');
    assert.is((await get(c, pathOf(url))).status, 303);
    assert.not.ok(existsSync(file));

    const spent = c.server.pageUrl();
    assert.is((await get(c, pathOf(spent))).status, 303);
    const late = await pageLoginOpener(c.sh, spent);
    assert.is((await get(c, pathOf(spent))).status, 401);
    assert.not.ok(existsSync(late), 'a spent token offered again: gone too');

    const expiring = await pageLoginOpener(c.sh, c.server.pageUrl());
    c.skew.ms += 5 * 60 * 1000 + 1;
    const fresh = await pageLoginOpener(c.sh, c.server.pageUrl());
    assert.not.ok(existsSync(expiring), 'expired: gone at the next mint');
    const other = await pageLoginOpener(c.sh, c.server.pageUrl());
    c.skew.ms += 5 * 60 * 1000 + 1;
    assert.is((await get(c, '/ui/login?once=nope')).status, 401);
    assert.equal([existsSync(fresh), existsSync(other)], [false, false], 'expired: gone at the next login offered');
  },
);

Files(
  'it is written only where only the owner can enter: a shared run directory is UNSAFE_PATH, and a URL that is not a login URL is refused',
  async (c) => {
    const run = c.repo.path('.git/shadow/run');
    await pageLoginOpener(c.sh, c.server.pageUrl());
    chmodSync(run, 0o755);
    assert.is(await codeOf(() => pageLoginOpener(c.sh, c.server.pageUrl())), 'UNSAFE_PATH');
    chmodSync(run, 0o700);
    assert.is(await codeOf(() => pageLoginOpener(c.sh, `${c.server.url}/ui/`)), 'INVALID_ARGUMENT');
  },
);

Open.run();
Files.run();
