import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHADOW_BIN, type DiskRepo } from './helpers/disk-repo.js';
import { bareRemote, httpBackend, remoteGit, type TestRemote } from './helpers/remotes.js';
import { cloneRepo, noteBatches, originRepo, refsAt, withRemote } from './helpers/remote-repos.js';

/**
 * A `shadow push` or `shadow fetch` killed (SIGKILL, its whole process
 * group: git runs as its child) at several moments leaves both sides
 * consistent: `git fsck --strict` passes on both, the ledger verifies, the
 * remote holds all the old refs or all the new ones (the push is atomic),
 * a tracking ref never claims what the remote does not hold, and the next
 * push or fetch completes. Moments are found by polling for what the
 * process has done (a git child running, a request reaching the remote),
 * never by sleeping.
 */

const Kill = suite('a killed shadow push or fetch');

const DEADLINE_MS = 20_000;

/** The process ids below `pid` (children, grandchildren…) with their command names, from /proc. */
function descendants(pid: number): Array<{ pid: number; comm: string }> {
  const parentOf = new Map<number, { ppid: number; comm: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      parentOf.set(Number(name), {
        comm: stat.slice(stat.indexOf('(') + 1, close),
        ppid: Number(stat.slice(close + 2).split(' ')[1]),
      });
    } catch {
      // gone meanwhile
    }
  }
  const out: Array<{ pid: number; comm: string }> = [];
  const below = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [p, info] of parentOf) {
      if (!below.has(p) && below.has(info.ppid)) {
        below.add(p);
        out.push({ pid: p, comm: info.comm });
        grew = true;
      }
    }
  }
  return out;
}

/**
 * How often the moments are looked for. Each look reads every process's
 * /proc entry: looking at every turn of the event loop kept a core busy for
 * as long as a push ran, taken from the push and from the rest of the suite.
 * Every moment lasts far longer than this: git runs for a whole exchange,
 * and the remote answers a request only after 400 ms.
 */
const POLL_MS = 2;
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, POLL_MS));

/** Poll `ready` (every POLL_MS) until it holds; false when the process ended first. */
async function until(child: ChildProcess, ready: () => boolean): Promise<boolean> {
  const deadline = Date.now() + DEADLINE_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    if (ready()) return true;
    await tick();
  }
  throw new Error(`the moment did not come within ${DEADLINE_MS} ms`);
}

/** Run the CLI in its own process group; kill the group with SIGKILL once `moment` holds. Whether it was killed (false: it finished first). */
async function killAt(repo: DiskRepo, args: string[], moment: (pid: number) => boolean): Promise<boolean> {
  const child = spawn(process.execPath, [SHADOW_BIN, ...args], {
    cwd: repo.dir,
    env: repo.env,
    detached: true,
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const reached = await until(child, () => moment(child.pid!));
  if (reached) process.kill(-child.pid!, 'SIGKILL');
  await exited;
  // Its git children die with the group; wait until none is left.
  const deadline = Date.now() + DEADLINE_MS;
  while (descendants(child.pid!).length > 0 && Date.now() < deadline) await tick();
  return reached;
}

function gitChild(pid: number): boolean {
  return descendants(pid).some((p) => p.comm.startsWith('git'));
}

/** The remote's refs under refs/shadow/, keyed by ref. */
function remoteRefs(remote: TestRemote): Map<string, string> {
  return new Map(
    refsAt(remote.dir, 'refs/shadow/')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ').reverse() as [string, string]),
  );
}

/** What `repo`'s tracking refs say the remote holds, keyed by the remote's ref. */
function tracked(repo: DiskRepo): Map<string, string> {
  return new Map(
    refsAt(join(repo.dir, '.git'), 'refs/shadow/remotes/origin/')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [oid, ref] = l.split(' ');
        return [ref!.replace('refs/shadow/remotes/origin/', 'refs/shadow/'), oid!] as [string, string];
      }),
  );
}

function fsckBoth(repo: DiskRepo, remote: TestRemote): void {
  const r = repo.gitResult('fsck', '--strict', '--no-progress');
  assert.is(r.status, 0, r.stderr);
  remoteGit(remote, 'fsck', '--strict', '--no-progress');
}

function verify(repo: DiskRepo, draft: string): void {
  const r = repo.shadow(['events', '--verify', '--draft', draft, '--json']);
  assert.is(r.status, 0, r.stdout + r.stderr);
}

function sameMap(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

interface Moment {
  name: string;
  at: (ctx: { pid: number; posts: () => number; before: number }) => boolean;
}

const PUSH_MOMENTS: Moment[] = [
  { name: 'as it starts (before git)', at: () => true },
  { name: 'while git runs', at: ({ pid }) => gitChild(pid) },
  { name: 'once its request reached the remote', at: ({ posts, before }) => posts() > before },
];

Kill(
  'push: killed at each moment, the remote holds all the old refs or all the new, tracking refs claim nothing it lacks, both sides fsck, and the next push completes',
  async () => {
    const marks = mkdtempSync(join(tmpdir(), 'shadow-marks-'));
    const remote = await httpBackend({ markDir: marks, ms: 400 });
    const a = originRepo(remote);
    const posts = (): number => readdirSync(marks).filter((f) => f.startsWith('git-receive-pack')).length;
    try {
      await noteBatches(a, 'x', 3, 'base');
      assert.is(a.shadow(['push', 'origin', 'x']).status, 0);
      let round = 0;
      for (const moment of PUSH_MOMENTS) {
        await noteBatches(a, 'x', 2, `m${round++}`);
        const old = remoteRefs(remote);
        const before = posts();
        const killed = await killAt(a, ['push', 'origin', 'x'], (pid) => moment.at({ pid, posts, before }));
        const now = remoteRefs(remote);
        const sent = new Map(
          [...now].filter(([ref]) => a.ref(ref) !== undefined).map(([ref]) => [ref, a.ref(ref)!] as [string, string]),
        );
        assert.ok(
          sameMap(now, old) ||
            (now.get('refs/shadow/drafts/x') === a.ref('refs/shadow/drafts/x') && sameMap(now, sent)),
          `${moment.name}: the remote holds a mix`,
        );
        for (const [ref, oid] of tracked(a))
          assert.is(
            now.get(ref),
            oid,
            `${moment.name}: the tracking ref of ${ref} claims what the remote does not hold`,
          );
        fsckBoth(a, remote);
        verify(a, 'x');
        assert.ok(killed, `${moment.name}: the push finished before it could be killed`);
        const again = a.shadow(['push', 'origin', 'x', '--json']);
        assert.is(again.status, 0, `${moment.name}: ${again.stdout}${again.stderr}`);
        assert.is(remoteGit(remote, 'rev-parse', 'refs/shadow/drafts/x').trim(), a.ref('refs/shadow/drafts/x'));
        assert.ok(
          sameMap(tracked(a), remoteRefs(remote)),
          `${moment.name}: after the next push the tracking refs are the remote's`,
        );
      }
    } finally {
      await remote.stop();
      a.cleanup();
      rmSync(marks, { recursive: true, force: true });
    }
  },
);

Kill(
  'fetch: killed at each moment, the tracking refs are all the old or all the new, remote drafts read and verify, and the next fetch completes',
  async () => {
    const marks = mkdtempSync(join(tmpdir(), 'shadow-marks-'));
    const remote = await httpBackend({ markDir: marks, ms: 400 });
    const a = originRepo(remote);
    const b = cloneRepo(remote);
    const posts = (): number => readdirSync(marks).filter((f) => f.startsWith('git-upload-pack')).length;
    try {
      await noteBatches(a, 'x', 2, 'base');
      await noteBatches(a, 'y', 1, 'base');
      assert.is(a.shadow(['push', 'origin', 'x']).status, 0);
      assert.is(a.shadow(['push', 'origin', 'y']).status, 0);
      assert.is(b.shadow(['fetch', 'origin']).status, 0);
      let round = 0;
      for (const moment of PUSH_MOMENTS) {
        await noteBatches(a, 'x', 1, `m${round}`);
        await noteBatches(a, 'y', 1, `m${round++}`);
        for (const d of ['x', 'y']) assert.is(a.shadow(['push', 'origin', d]).status, 0);
        const old = tracked(b);
        const remoteNow = remoteRefs(remote);
        const before = posts();
        assert.ok(
          await killAt(b, ['fetch', 'origin'], (pid) => moment.at({ pid, posts, before })),
          `${moment.name}: the fetch finished before it could be killed`,
        );
        const now = tracked(b);
        assert.ok(
          sameMap(now, old) || sameMap(now, remoteNow),
          `${moment.name}: the tracking refs are a mix of old and new`,
        );
        const r = b.gitResult('fsck', '--strict', '--no-progress');
        assert.is(r.status, 0, r.stderr);
        for (const d of ['origin/x', 'origin/y']) verify(b, d);
        const again = b.shadow(['fetch', 'origin', '--json']);
        assert.is(again.status, 0, `${moment.name}: ${again.stdout}${again.stderr}`);
        assert.ok(sameMap(tracked(b), remoteNow), `${moment.name}: the next fetch brings the remote's refs`);
        for (const d of ['origin/x', 'origin/y']) verify(b, d);
      }
    } finally {
      await remote.stop();
      a.cleanup();
      b.cleanup();
      rmSync(marks, { recursive: true, force: true });
    }
  },
);

Kill(
  'a remote draft deleted on the remote goes from draft list --remote at the next fetch, and so does its directory under shadow/remotes/',
  () =>
    withRemote(bareRemote, async ({ remote, a, clone }) => {
      const b = clone();
      await noteBatches(a, 'keep', 1);
      await noteBatches(a, 'gone', 1);
      assert.is(a.shadow(['push', 'origin', 'keep']).status, 0);
      assert.is(a.shadow(['push', 'origin', 'gone']).status, 0);
      assert.is(b.shadow(['fetch', 'origin']).status, 0);
      const list = (): string[] =>
        JSON.parse(b.shadow(['draft', 'list', '--remote', '--json']).stdout).drafts.map((d: any) => d.name);
      assert.equal(list(), ['origin/gone', 'origin/keep']);
      const dir = join(b.dir, '.git', 'shadow', 'remotes', 'origin', 'drafts');
      assert.equal(readdirSync(dir).sort(), ['gone', 'keep']);
      for (const kind of ['drafts', 'meta']) remoteGit(remote, 'update-ref', '-d', `refs/shadow/${kind}/gone`);
      const fetched = b.shadow(['fetch', 'origin', '--json']);
      assert.is(fetched.status, 0, fetched.stdout + fetched.stderr);
      assert.equal(fetched.json().pruned, ['origin/gone']);
      assert.equal(list(), ['origin/keep']);
      assert.equal(readdirSync(dir), ['keep']);
      assert.is(b.ref('refs/shadow/remotes/origin/meta/gone'), undefined);
      // A directory a plain `git fetch --prune` (or a killed fetch) left behind goes at the next fetch too.
      remoteGit(remote, 'update-ref', '-d', 'refs/shadow/drafts/keep');
      remoteGit(remote, 'update-ref', '-d', 'refs/shadow/meta/keep');
      b.git(
        'fetch',
        '-q',
        '--prune',
        'origin',
        '+refs/shadow/drafts/*:refs/shadow/remotes/origin/drafts/*',
        '+refs/shadow/meta/*:refs/shadow/remotes/origin/meta/*',
      );
      assert.equal(readdirSync(dir), ['keep']);
      assert.is(b.shadow(['fetch', 'origin']).status, 0);
      assert.equal(readdirSync(dir), []);
      assert.equal(list(), []);
    }),
);

Kill.run();
