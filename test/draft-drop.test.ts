import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import { Volume, createFsFromVolume } from 'memfs';
import { openShadow, type FileSystem, type Processes, type Shadow } from '../src/index.js';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { FsSeam, SimulatedCrash } from './helpers/fs-seam.js';

/**
 * `shadow draft drop --purge`: nothing of the draft stays (refs, reflogs,
 * its directory with the apply records), a draft of the same name starts
 * clean, and a purge killed at any fs call leaves the old draft or nothing.
 */

const Purge = suite('draft drop --purge');

/** Every path under `dir` (relative), or [] when it does not exist. */
function walk(dir: string, rel = ''): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = rel === '' ? e.name : `${rel}/${e.name}`;
    out.push(path);
    if (e.isDirectory()) out.push(...walk(`${dir}/${e.name}`, path));
  }
  return out;
}

for (const mode of ['apply', 'apply --commit'] as const) {
  Purge(
    `after ${mode}, --purge leaves no ref, reflog or file of the draft, and a new draft of the name has nothing to unapply`,
    async () => {
      const repo = new DiskRepo({ 'README.md': 'Hello\n' });
      try {
        await withShadow(repo, async (sh) => {
          await sh.batch({ operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] }, { draft: 'w' });
          await sh.checkpoint('cp', { draft: 'w' });
          await sh.propose({ draft: 'w' });
          const r = await sh.apply({ draft: 'w', commit: mode === 'apply --commit' });
          assert.is(r.applied, true);
        });
        const main = repo.git('rev-parse', 'main').trim();
        const git = `${repo.dir}/.git`;
        assert.ok(
          walk(`${git}/shadow/drafts/w`).some((p) => p.startsWith('applies/')),
          'the apply was recorded',
        );

        const r = repo.shadow(['draft', 'drop', 'w', '--purge', '--json']);
        assert.is(r.status, 0, r.stdout + r.stderr);
        assert.equal(r.json(), { draft: 'w' });

        assert.is(repo.git('for-each-ref', '--format=%(refname)', 'refs/shadow'), '');
        assert.is(repo.gitResult('reflog', 'exists', 'refs/shadow/drafts/w').status, 1);
        assert.is(repo.gitResult('reflog', 'exists', 'refs/shadow/proposals/w').status, 1);
        assert.equal(walk(`${git}/logs/refs/shadow`), []);
        assert.equal(walk(`${git}/refs/shadow`), []);
        assert.equal(walk(`${git}/shadow/drafts`), []);
        assert.equal(walk(`${git}/shadow/trash`), []);
        assert.equal(walk(`${git}/shadow/archive`), [], 'a purge archives nothing');
        assert.is(repo.read('a.txt'), 'a\n', 'what was applied stays in the working tree');

        assert.is(repo.shadow(['draft', 'new', 'w']).status, 0);
        const u = repo.shadow(['unapply', '--draft', 'w', '--json']);
        assert.is(u.status, 1, u.stdout + u.stderr);
        assert.is(u.json().error.code, 'NOTHING_TO_UNDO');
        assert.is(repo.git('rev-parse', 'main').trim(), main, 'the branch did not move');
        assert.is(repo.read('a.txt'), 'a\n');
        assert.is(
          repo.git('reflog', 'show', '--format=%gs', 'refs/shadow/drafts/w').trim().split('\n').length,
          1,
          'the new draft has a reflog of its own',
        );
        await withShadow(repo, async (sh) => {
          assert.equal(await sh.checkpoints({ draft: 'w' }), []);
          assert.is((await sh.draftShow({ draft: 'w' })).status, 'open');
        });
        repo.git('fsck', '--strict', '--no-dangling');
      } finally {
        repo.cleanup();
      }
    },
  );
}

Purge('a draft whose ref plain git deleted leaves nothing to a new draft of the name', async () => {
  const repo = new DiskRepo({ 'README.md': 'Hello\n' });
  try {
    await withShadow(repo, async (sh) => {
      await sh.batch({ operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] }, { draft: 'w' });
      await sh.checkpoint('cp', { draft: 'w' });
      await sh.apply({ draft: 'w', commit: true });
    });
    const main = repo.git('rev-parse', 'main').trim();
    repo.git('update-ref', '-d', 'refs/shadow/drafts/w');
    await withShadow(repo, async (sh) => {
      await sh.batch({ operations: [{ operation: 'write', path: 'b.txt', content: 'b\n' }] }, { draft: 'w' });
      assert.equal(await sh.checkpoints({ draft: 'w' }), []);
      try {
        await sh.unapply({ draft: 'w' });
        assert.unreachable('unapply of a new draft');
      } catch (e) {
        assert.is((e as { code: string }).code, 'NOTHING_TO_UNDO');
      }
    });
    assert.is(repo.git('rev-parse', 'main').trim(), main);
    assert.is(repo.git('for-each-ref', '--format=%(refname)', 'refs/shadow'), 'refs/shadow/drafts/w\n');
  } finally {
    repo.cleanup();
  }
});

Purge.run();

// ---------------------------------------------------------------- crashes

const Crash = suite('draft drop --purge, killed at each fs call');

const ROOT = '/repo';
const SHADOW = `${ROOT}/.git/shadow`;

function processes(self: number): Processes {
  return { self, host: 'memhost', isAlive: (pid) => pid === self };
}

function openOn(repo: MemRepo, fs: FileSystem, pid: number): Promise<Shadow> {
  const { clock, ids, env } = repo.ctx;
  return openShadow({ dir: ROOT, fs, clock, ids, env, processes: processes(pid) });
}

/** A copy of every file and directory of `from` in a new volume. */
function copyFs(from: FileSystem): FileSystem {
  const vol = new Volume();
  const to = createFsFromVolume(vol) as unknown as FileSystem;
  const copy = (dir: string): void => {
    to.mkdirSync(dir, { recursive: true });
    for (const name of from.readdirSync(dir) as string[]) {
      const path = `${dir}/${name}`;
      if (from.lstatSync(path).isDirectory()) copy(path);
      else to.writeFileSync(path, from.readFileSync(path) as Buffer);
    }
  };
  copy(ROOT);
  return to;
}

function names(fs: FileSystem, dir: string): string[] {
  try {
    return (fs.readdirSync(dir) as string[]).map(String).sort();
  } catch {
    return [];
  }
}

/** Every file below `dir`, relative (empty directories are no refs). */
function filesUnder(fs: FileSystem, dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of names(fs, dir)) {
    const path = rel === '' ? name : `${rel}/${name}`;
    if (fs.lstatSync(`${dir}/${name}`).isDirectory()) out.push(...filesUnder(fs, `${dir}/${name}`, path));
    else out.push(path);
  }
  return out;
}

/** Ref lock files under `dir`: a dead process's, which the next command takes over (removed here as a user would). */
function removeRefLocks(fs: FileSystem, dir: string): void {
  for (const name of names(fs, dir)) {
    const path = `${dir}/${name}`;
    if (fs.lstatSync(path).isDirectory()) removeRefLocks(fs, path);
    else if (name.endsWith('.lock')) fs.unlinkSync(path);
  }
}

Crash(
  'a purge killed at any fs call leaves the old draft whole or nothing of it, and a new draft of the name starts clean',
  async () => {
    const repo = await memRepo({ 'README.md': 'Hello\n' });
    const sh = await openOn(repo, repo.fs, 100);
    await sh.batch({ operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] }, { draft: 'w' });
    await sh.checkpoint('cp', { draft: 'w' });
    await sh.propose({ draft: 'w' });
    await sh.apply({ draft: 'w', commit: true });
    sh.close();
    const tip = (await (await openOn(repo, repo.fs, 100)).draftShow({ draft: 'w' })).tip;
    const records = names(repo.fs, `${SHADOW}/drafts/w/applies`);
    assert.ok(records.some((n) => n.endsWith('.json')));
    const main = String(repo.fs.readFileSync(`${ROOT}/.git/refs/heads/main`, 'utf8')).trim();

    const seen = { old: 0, gone: 0 };
    for (let at = 1; ; at++) {
      const fs = copyFs(repo.fs);
      const seam = new FsSeam(fs);
      const dying = await openOn(repo, seam.fs, 200);
      seam.arm(at);
      let finished = false;
      try {
        await dying.draftDrop('w', { purge: true });
        finished = true;
      } catch (e) {
        if (!(e instanceof SimulatedCrash)) throw e;
      }
      seam.disarm();
      removeRefLocks(fs, `${ROOT}/.git/refs`);
      removeRefLocks(fs, `${ROOT}/.git`);

      const next = await openOn(repo, fs, 300 + at);
      if (await next.hasDraft({ draft: 'w' })) {
        seen.old++;
        const d = await next.draftShow({ draft: 'w' });
        assert.is(d.tip, tip, `crash at ${at}: the old draft's tip`);
        assert.is(d.status, 'completed', `crash at ${at}: its apply is still recorded`);
        assert.equal(
          d.checkpoints.map((c) => c.name),
          ['cp'],
          `crash at ${at}: its checkpoint`,
        );
        assert.equal(
          names(fs, `${SHADOW}/drafts/w/applies`).filter((n) => n.endsWith('.json')),
          records.filter((n) => n.endsWith('.json')),
        );
      } else {
        seen.gone++;
        await next.draftNew('w');
        assert.equal(await next.checkpoints({ draft: 'w' }), [], `crash at ${at}: no checkpoint inherited`);
        assert.is((await next.draftShow({ draft: 'w' })).status, 'open', `crash at ${at}: a new draft is open`);
        try {
          await next.unapply({ draft: 'w' });
          assert.unreachable(`crash at ${at}: unapply of a new draft`);
        } catch (e) {
          assert.is((e as { code: string }).code, 'NOTHING_TO_UNDO', `crash at ${at}: ${(e as Error).message}`);
        }
        assert.is(
          String(fs.readFileSync(`${ROOT}/.git/refs/heads/main`, 'utf8')).trim(),
          main,
          `crash at ${at}: the branch stays`,
        );
        assert.equal(
          filesUnder(fs, `${ROOT}/.git/refs/shadow`),
          ['drafts/w'],
          `crash at ${at}: no checkpoint or proposal ref`,
        );
        assert.equal(
          filesUnder(fs, `${ROOT}/.git/logs/refs/shadow`),
          ['drafts/w'],
          `crash at ${at}: no reflog but the new draft's`,
        );
        assert.equal(
          names(fs, `${SHADOW}/drafts/w`).filter((n) => n !== 'draft.json' && n !== 'events.jsonl'),
          [],
          `crash at ${at}: only the new draft's files`,
        );
        const log = String(fs.readFileSync(`${ROOT}/.git/logs/refs/shadow/drafts/w`, 'utf8'));
        assert.is(log.trimEnd().split('\n').length, 1, `crash at ${at}: the new draft's reflog is its own`);
      }
      next.close();
      if (finished) break;
    }
    assert.ok(seen.old > 0 && seen.gone > 1, JSON.stringify(seen));
  },
);

Crash.run();
