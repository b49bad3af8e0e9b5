import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Volume, createFsFromVolume } from 'memfs';
import type { FileSystem } from '../src/index.js';
import { fsyncConcurrently, fsyncDir } from '../src/durable/durable-file.js';
import { CrashFs } from './helpers/crash-fs.js';
import { budgetStates, crashStates } from './helpers/crash-states.js';

/**
 * The crash simulator itself: it must find each class of bug the power-loss
 * tests rely on it to find (a rename whose directory is not fsynced, data
 * not fsynced before the rename that publishes it, an fsync that is not
 * awaited), and find nothing where the protocol is right.
 */

function volume(files: Record<string, string>): FileSystem {
  const vol = new Volume();
  const fs = createFsFromVolume(vol) as unknown as FileSystem;
  fs.mkdirSync('/d', { recursive: true });
  for (const [p, c] of Object.entries(files)) fs.writeFileSync(p, c);
  return fs;
}

/** The contents of `path` over every crash state (a missing file is null). */
function outcomes(crash: CrashFs, path: string): Set<string | null> {
  const out = new Set<string | null>();
  for (const s of crashStates(crash)) {
    const fs = s.mount();
    out.add(fs.existsSync(path) ? String(fs.readFileSync(path, 'utf8')) : null);
  }
  return out;
}

/** Write `content` to `path` the durable way, or with one step left out. */
async function replace(
  fs: FileSystem,
  path: string,
  content: string,
  skip?: 'data-fsync' | 'dir-fsync' | 'await',
): Promise<void> {
  const tmp = `${path}.tmp`;
  const fd = fs.openSync(tmp, 'wx');
  fs.writeSync(fd, Buffer.from(content));
  if (skip === 'await') void fsyncConcurrently(fs, fd);
  else if (skip !== 'data-fsync') await fsyncConcurrently(fs, fd);
  fs.renameSync(tmp, path);
  if (skip !== 'dir-fsync') fsyncDir(fs, '/d');
  if (skip === 'await') {
    // Something else is awaited meanwhile: another file's fsync.
    const other = fs.openSync('/d/other', 'w');
    fs.writeSync(other, Buffer.from('x'));
    await fsyncConcurrently(fs, other);
    fs.closeSync(other);
  }
  fs.closeSync(fd);
}

const Model = suite('crash simulator: the states a power loss leaves');

Model('write, fsync, rename, fsync the directory: old or new, never torn, never lost', async () => {
  const crash = new CrashFs(volume({ '/d/f': 'old' }));
  await replace(crash.fs, '/d/f', 'new');
  assert.equal([...outcomes(crash, '/d/f')].sort(), ['new', 'old']);
  const last = crashStates(crash, { at: crash.events.length });
  for (const s of last)
    assert.is(String(s.mount().readFileSync('/d/f', 'utf8')), 'new', 'after the directory fsync, only new');
});

Model('a rename whose directory is not fsynced can be lost after the call returned', async () => {
  const crash = new CrashFs(volume({ '/d/f': 'old' }));
  await replace(crash.fs, '/d/f', 'new', 'dir-fsync');
  const last = new Set(
    crashStates(crash, { at: crash.events.length }).map((s) => String(s.mount().readFileSync('/d/f', 'utf8'))),
  );
  assert.ok(last.has('old'), 'the rename may be undone');
});

Model('data not fsynced before the rename can be lost: the new name holds an empty file', async () => {
  const crash = new CrashFs(volume({ '/d/f': 'old' }));
  await replace(crash.fs, '/d/f', 'new', 'data-fsync');
  assert.ok(outcomes(crash, '/d/f').has(''), 'an empty file under the new name');
});

Model('an fsync that is not awaited can still be pending when later changes are durable', async () => {
  const crash = new CrashFs(volume({ '/d/f': 'old' }));
  await replace(crash.fs, '/d/f', 'new', 'await');
  await new Promise((r) => setImmediate(r));
  // The rename is durable (its directory was fsynced) while the data's fsync had not completed.
  assert.ok(outcomes(crash, '/d/f').has(''), 'the file renamed into place, its content lost');
});

Model('callback fsyncs complete newest first, one a turn of the event loop', async () => {
  const crash = new CrashFs(volume({}));
  const fs = crash.fs;
  const order: string[] = [];
  const a = fs.openSync('/d/a', 'w');
  const b = fs.openSync('/d/b', 'w');
  fs.fsync!(a, () => order.push('a'));
  fs.fsync!(b, () => order.push('b'));
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  assert.equal(order, ['b', 'a']);
});

Model('an fsync covers what was written before it was called, not what was written before it completed', async () => {
  const crash = new CrashFs(volume({}));
  const fs = crash.fs;
  const fd = fs.openSync('/d/f', 'w');
  fs.writeSync(fd, Buffer.from('one'));
  fsyncDir(fs, '/d');
  const synced = fsyncConcurrently(fs, fd);
  // Written while the fsync is on the pool: the fsync may or may not carry it.
  fs.writeSync(fd, Buffer.from(' two'));
  await synced;
  fs.closeSync(fd);
  const last = new Set(
    crashStates(crash, { at: crash.events.length }).map((s) => String(s.mount().readFileSync('/d/f', 'utf8'))),
  );
  assert.equal([...last].sort(), ['one', 'one two']);
});

Model(
  'at the last point a file or a directory holds its pending changes, each alone losing them is enumerated, and a budget of none keeps it',
  async () => {
    for (const skip of ['dir-fsync', 'data-fsync'] as const) {
      const crash = new CrashFs(volume({ '/d/f': 'old' }));
      await replace(crash.fs, '/d/f', 'new', skip);
      const all = crashStates(crash);
      const { states, enumerated, sampled } = budgetStates(all, 0, 1);
      assert.is(enumerated, all.filter((s) => s.enumerated).length);
      assert.is(sampled, states.length - enumerated);
      const shown = states
        .filter((s) => s.enumerated && s.at === crash.events.length)
        .map((s) => String(s.mount().readFileSync('/d/f', 'utf8')));
      // After the run returned: the rename undone (its directory not fsynced), or the new name empty (its data not fsynced).
      assert.ok(shown.includes(skip === 'dir-fsync' ? 'old' : ''), `${skip}: ${JSON.stringify(shown)}`);
    }
    const right = new CrashFs(volume({ '/d/f': 'old' }));
    await replace(right.fs, '/d/f', 'new');
    const end = crashStates(right).filter((s) => s.at === right.events.length);
    assert.equal(
      end.map((s) => String(s.mount().readFileSync('/d/f', 'utf8'))),
      end.map(() => 'new'),
    );
  },
);

Model(
  'a directory that alone loses an unlink inside it keeps its own entry: its removal cannot outlive the unlink',
  async () => {
    const fs = volume({});
    fs.mkdirSync('/d/sub');
    fs.writeFileSync('/d/sub/f', 'f');
    const crash = new CrashFs(fs);
    crash.fs.unlinkSync('/d/sub/f');
    crash.fs.rmdirSync('/d/sub');
    const end = crashStates(crash, { at: crash.events.length }).filter((s) => s.enumerated);
    assert.ok(
      end.some((s) => s.mount().existsSync('/d/sub/f')),
      'the unlink lost, so the rmdir with it',
    );
    for (const s of end) assert.ok(s.mount().existsSync('/d/sub') || !s.mount().existsSync('/d/sub/f'));
  },
);

Model('a disk that a later crash point may leave too is checked at the later one', async () => {
  const crash = new CrashFs(volume({ '/d/f': 'old' }));
  await replace(crash.fs, '/d/f', 'new');
  const digests = crashStates(crash).map((s) => s.digest);
  assert.is(new Set(digests).size, digests.length, 'each disk once');
  // The fsync of the directory, the last event, changes no disk: the disks before it are its own.
  assert.ok(crashStates(crash).some((s) => s.at === crash.events.length));
});

Model('a rename between directories is kept whole or not at all', async () => {
  const fs = volume({ '/d/f': 'content' });
  fs.mkdirSync('/e');
  const crash = new CrashFs(fs);
  crash.fs.renameSync('/d/f', '/e/f');
  for (const s of crashStates(crash)) {
    const m = s.mount();
    assert.is(Number(m.existsSync('/d/f')) + Number(m.existsSync('/e/f')), 1, 'in exactly one place');
  }
});

Model.run();
