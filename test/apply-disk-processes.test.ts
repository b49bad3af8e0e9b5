import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { FileOperation } from '../src/index.js';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';
import { prng } from './helpers/prng.js';
import { BASE_DRAFT, BASE_FILES, cli, draft, fsckClean, journals, records, scan } from './helpers/apply-disk-repo.js';

/*
 * `shadow apply` and other processes: one apply at a time (the lock), and
 * SIGKILL at many moments.
 */

function temps(root: string): string[] {
  return Object.keys(scan(root).content).filter((p) => p.includes('.shadow-tmp-'));
}

function readOr(repo: DiskRepo, path: string): string | null {
  try {
    return fs.readFileSync(repo.path(path), 'utf8');
  } catch {
    return null;
  }
}

const WORKER = fileURLToPath(new URL('./helpers/apply-worker.js', import.meta.url));

// ---------------------------------------------------------------- one apply at a time

const Lock = suite('apply on disk: one apply at a time');

Lock(
  'a live shadow apply holds apply.lock: LOCKED naming it, nothing written; a lock left by a dead process is taken over',
  async () => {
    const repo = new DiskRepo(BASE_FILES);
    try {
      await draft(repo, [BASE_DRAFT]);
      const lock = repo.path('.git/shadow/apply.lock');
      const holder = (pid: number): string =>
        JSON.stringify({ pid, host: hostname(), since: new Date().toISOString(), what: 'shadow apply' });
      // This test process is alive: it plays the running apply.
      const live = holder(process.pid);
      fs.writeFileSync(lock, live);
      const before = scan(repo.dir);
      const r = cli(repo, ['apply']);
      assert.is(r.status, 1);
      assert.is(r.json.error.code, 'LOCKED');
      assert.match(r.json.error.message, new RegExp(`another shadow apply is running \\(process ${process.pid}`));
      assert.equal(scan(repo.dir).content, before.content);
      assert.is(fs.readFileSync(lock, 'utf8'), live, 'the holder keeps its lock');
      assert.equal(journals(repo), []);

      const dead = spawnSync(process.execPath, ['-e', '']).pid!;
      fs.writeFileSync(lock, holder(dead));
      const ok = cli(repo, ['apply']);
      assert.is(ok.status, 0, ok.stdout + ok.stderr);
      assert.is(ok.json.applied, true);
      assert.is(repo.read('a.txt'), 'A\n');
      assert.is(fs.existsSync(lock), false, 'the lock is released');
    } finally {
      repo.cleanup();
    }
  },
);

Lock.run();

// ---------------------------------------------------------------- SIGKILL

const pad = (i: number): string => String(i).padStart(3, '0');

/** 200 paths: 180 modified, 10 created in a new directory, 10 deleted (emptying a directory). */
function killFixture(): {
  files: Record<string, string>;
  ops: FileOperation[];
  old: Record<string, string | null>;
  new: Record<string, string | null>;
} {
  const files: Record<string, string> = { 'README.md': 'Hello\n' };
  const ops: FileOperation[] = [];
  const old: Record<string, string | null> = {};
  const neu: Record<string, string | null> = {};
  for (let i = 0; i < 180; i++) {
    const p = `many/f${pad(i)}.txt`;
    files[p] = `old ${i}\n`.repeat(20);
    old[p] = files[p]!;
    neu[p] = `new ${i}\n`.repeat(30);
    ops.push({ operation: 'write', path: p, content: neu[p]! });
  }
  for (let i = 0; i < 10; i++) {
    const p = `fresh/n${pad(i)}.txt`;
    old[p] = null;
    neu[p] = `fresh ${i}\n`;
    ops.push({ operation: 'write', path: p, content: neu[p]! });
  }
  for (let i = 0; i < 10; i++) {
    const p = `gone/d${pad(i)}.txt`;
    files[p] = `gone ${i}\n`;
    old[p] = files[p]!;
    neu[p] = null;
    ops.push({ operation: 'delete', path: p });
  }
  return { files, ops, old, new: neu };
}

function spawnExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

const Kill = suite('apply on disk: SIGKILL');

Kill(
  'shadow apply of 200 files killed with SIGKILL at 15 moments: every path old or new, shadow recover (or any command) converges to new, no temp file, git fsck clean',
  async () => {
    const fx = killFixture();
    const repo = new DiskRepo(fx.files);
    try {
      await draft(repo, [fx.ops]);
      const rand = prng(20261122);
      // Kill moments: as the journal appears, as the k-th file turns new (the CLI watched from here), and exact fs steps in a child script.
      const moments: string[] = ['watch:journal'];
      for (let i = 0; i < 10; i++) moments.push(`watch:${Math.floor(rand() * 175)}`);
      moments.push(
        'worker:journal',
        `worker:rename:${1 + Math.floor(rand() * 189)}`,
        `worker:rename:${1 + Math.floor(rand() * 189)}`,
        'worker:record',
      );
      const paths = Object.keys(fx.new);
      let interrupted = 0;

      for (const [round, moment] of moments.entries()) {
        const [how, what] = [moment.slice(0, moment.indexOf(':')), moment.slice(moment.indexOf(':') + 1)];
        let child: ChildProcess;
        if (how === 'watch') {
          child = spawn(process.execPath, [SHADOW_BIN, 'apply', '--json'], {
            cwd: repo.dir,
            env: repo.env,
            stdio: 'ignore',
          });
        } else {
          child = spawn(process.execPath, [WORKER, repo.dir, 'apply', what], {
            cwd: repo.dir,
            env: repo.env,
            stdio: 'ignore',
          });
        }
        const exited = spawnExit(child);
        if (how === 'watch') {
          // Poll the file system for progress; kill the moment it is reached.
          const reached =
            what === 'journal'
              ? (): boolean => journals(repo).length > 0
              : (
                  (p: string) => (): boolean =>
                    readOr(repo, p) === fx.new[p]
                )(`many/f${pad(Number(what))}.txt`);
          while (child.exitCode === null && child.signalCode === null) {
            if (reached()) {
              child.kill('SIGKILL');
              break;
            }
            await new Promise((r) => setImmediate(r));
          }
        }
        await exited;
        const killed = child.signalCode === 'SIGKILL';
        if (killed) interrupted++;

        const torn = paths.filter((p) => {
          const now = readOr(repo, p);
          return now !== fx.old[p] && now !== fx.new[p];
        });
        assert.equal(torn, [], `${moment}: neither old nor new after the kill`);
        // A journal the kill cut short (a write of it stopped mid-way) means nothing was written after it: recovery drops it.
        const pending = journals(repo).filter((j) =>
          fs.readFileSync(repo.path(`.git/shadow/journal/${j}`), 'utf8').endsWith('\n'),
        ).length;
        const hadTemps = temps(repo.dir).length;
        // Killed at a rename into the working tree: the temp copies of its window of writes are complete and left behind.
        if (what.startsWith('rename:'))
          assert.ok(
            hadTemps >= 1 && hadTemps <= 64,
            `${moment}: ${hadTemps} temp files of the interrupted window of writes`,
          );

        // `shadow recover` finishes it and reports; every other command finishes it first too.
        if (round % 3 !== 2) {
          const rec = cli(repo, ['recover']);
          assert.is(rec.status, 0, `${moment}: recover: ${rec.stdout}${rec.stderr}`);
          if (pending > 0) {
            assert.is(rec.json.finished.length, 1, `${moment}: ${rec.stdout}`);
            assert.equal(rec.json.finished[0].conflicts, []);
          }
        } else {
          const st = repo.shadow(['status']);
          assert.is(st.status, 0, `${moment}: status: ${st.stdout}${st.stderr}`);
          if (pending > 0) assert.match(st.stderr, /recovered an interrupted apply first/, moment);
        }
        if (!killed || records(repo).length === 0) {
          if (records(repo).length === 0) {
            // Killed before the journal existed: nothing was written; apply again.
            for (const p of paths) assert.is(readOr(repo, p), fx.old[p], `${moment}: ${p} changed without a journal`);
            const again = cli(repo, ['apply']);
            assert.is(again.status, 0, `${moment}: ${again.stdout}${again.stderr}`);
          }
        }
        const notNew = paths.filter((p) => readOr(repo, p) !== fx.new[p]);
        assert.equal(notNew, [], `${moment}: not new after recover`);
        assert.equal(temps(repo.dir), [], `${moment}: temp files left (${hadTemps} before recover)`);
        assert.is(repo.exists('gone'), false, `${moment}: the emptied directory is left`);
        assert.equal(journals(repo), []);
        assert.is(records(repo).length, 1, moment);
        fsckClean(repo);

        // Back to the old state for the next moment, cheaply: the old files, and the apply forgotten (its record removed).
        for (const p of paths) {
          if (fx.old[p] === null) fs.rmSync(repo.path(p));
          else repo.write(p, fx.old[p]!);
        }
        fs.rmSync(repo.path('fresh'), { recursive: true });
        for (const name of records(repo)) fs.rmSync(repo.path(`.git/shadow/drafts/default/applies/${name}`));
      }
      assert.ok(interrupted >= 12, `only ${interrupted} of ${moments.length} applies were killed before they finished`);
    } finally {
      repo.cleanup();
    }
  },
);

Kill.run();
