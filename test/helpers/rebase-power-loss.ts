import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { FileSystem } from '../../src/index.js';
import { openAfterCrash } from './restart-open.js';
import { CrashFs } from './crash-fs.js';
import { crashStates } from './crash-states.js';
import { withReplacingRename } from './memfs-rename.js';
import {
  DRAFT,
  editWorktree,
  intoVolume,
  makeDraft,
  personRepo,
  rebaseOptions,
  toDisk,
  type Target,
} from './rebase-fixture.js';

/*
 * The power-loss half of test/rebase-crash.test.ts: the fixture's rebase
 * runs once on a CrashFs (a volume that remembers what an fsync made
 * durable), then every disk a power loss at any point of it may leave
 * (crash-states.ts says under which model) is opened as the next command
 * would open it after a restart. The draft's ref must name the old tip or
 * the rebase's commit, and the latter only with every object it reaches
 * intact: native git judges each distinct set of objects (`git fsck
 * --strict`, `git cat-file -e` of the tree). A rebase that returned is
 * durable. The draft reads and takes the next batch.
 */

const open = openAfterCrash;

/** The draft's ref as the disk holds it, loose or packed; the raw text when it is not one object id. */
function refOn(fs: FileSystem): string | undefined {
  const loose = `/repo/.git/refs/shadow/drafts/${DRAFT}`;
  if (fs.existsSync(loose)) {
    const text = String(fs.readFileSync(loose, 'utf8'));
    return /^[0-9a-f]{40}\n$/.test(text) ? text.trim() : JSON.stringify(text);
  }
  if (!fs.existsSync('/repo/.git/packed-refs')) return undefined;
  const packed = String(fs.readFileSync('/repo/.git/packed-refs', 'utf8'));
  return new RegExp(`^([0-9a-f]{40}) refs/shadow/drafts/${DRAFT}$`, 'm').exec(packed)?.[1];
}

/** What native git is shown of a disk: its ref and every object file, so that each distinct one is judged once. */
function objectsDigest(fs: FileSystem, ref: string): string {
  const h = createHash('sha256').update(ref);
  const walk = (dir: string): void => {
    for (const name of (fs.readdirSync(dir) as unknown[]).map(String).sort()) {
      const p = `${dir}/${name}`;
      if (fs.lstatSync(p).isDirectory()) walk(p);
      else h.update(`${p}\n`).update(fs.readFileSync(p) as Buffer);
    }
  };
  walk('/repo/.git/objects');
  return h.digest('hex');
}

/** Run `f` with the repository of a disk copied to a directory of its own, and native git there. */
function withNativeGit<T>(fs: FileSystem, f: (git: (...args: string[]) => SpawnSyncReturns<string>) => T): T {
  const dir = nodeFs.mkdtempSync(join(tmpdir(), 'shadow-rebase-power-'));
  try {
    toDisk(fs, '/repo', dir);
    const env = { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };
    return f((...args) => spawnSync('git', args, { cwd: dir, env, encoding: 'utf8' }));
  } finally {
    nodeFs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The tree of `commit`, as native git reads it on the disk. */
function treeOf(fs: FileSystem, commit: string): string {
  return withNativeGit(fs, (git) => git('rev-parse', `${commit}^{tree}`).stdout.trim());
}

/** Native git's verdict on a disk whose ref moved: the rebase's tree is there, everything reachable is whole. */
function nativeVerdict(fs: FileSystem, tree: string): string | undefined {
  return withNativeGit(fs, (git) => {
    if (git('cat-file', '-e', tree).status !== 0) return `the rebase commit's tree ${tree} is missing`;
    const fsck = git('fsck', '--strict', '--no-progress', '--no-dangling');
    return fsck.status === 0 ? undefined : `git fsck --strict: ${fsck.stdout}${fsck.stderr}`.slice(0, 400);
  });
}

/** The sweep over one target: how many disks, crash points, and disks with the ref moved were checked. */
export async function powerLossSweep(target: Target): Promise<{ states: number; points: number; moved: number }> {
  const repo = personRepo();
  let disk: FileSystem;
  try {
    disk = withReplacingRename(intoVolume(repo.dir));
  } finally {
    repo.cleanup();
  }
  // The draft is made on the volume: it belongs to the working tree at /repo.
  const maker = await open(disk);
  try {
    await makeDraft(maker);
  } finally {
    maker.close();
  }
  editWorktree((p, c) => disk.writeFileSync(`/repo/${p}`, c));
  const tip = refOn(disk)!;
  const crash = new CrashFs(disk);
  const sh = await open(crash.fs);
  const result = await sh.rebase(rebaseOptions(target));
  const returnedAt = crash.events.length;
  // Callback fsyncs nothing awaited yet complete on the next turns, as the thread pool would finish them.
  await new Promise((r) => setImmediate(r));
  sh.close();
  assert.ok(result.tip !== tip, 'the rebase made a commit');
  const tree = treeOf(disk, result.tip);
  const judged = new Map<string, string | undefined>();
  const states = crashStates(crash);
  let moved = 0;
  for (const s of states) {
    const label = `${target}, power lost at event ${s.at}/${crash.events.length}`;
    const bootTime = Date.now();
    const fs = withReplacingRename(s.mount({ mtimeMs: bootTime - 60_000 }) as unknown as FileSystem);
    const ref = refOn(fs);
    assert.ok(
      ref === tip || ref === result.tip,
      `${label}: the draft's ref is ${ref}, neither the old tip nor the rebase's commit`,
    );
    if (s.at >= returnedAt) assert.is(ref, result.tip, `${label}: a rebase that returned is durable`);
    if (ref === result.tip) {
      moved++;
      const key = objectsDigest(fs, ref);
      if (!judged.has(key)) judged.set(key, nativeVerdict(fs, tree));
      const verdict = judged.get(key);
      assert.is(verdict, undefined, `${label}: the moved ref names a commit whose objects were lost: ${verdict}`);
    }
    const next = await open(fs, bootTime);
    try {
      assert.equal(next.recovered?.failed ?? [], [], `${label}: recovery failed`);
      const status = await next.status({ draft: DRAFT });
      assert.is(status.tip, ref, `${label}: status reads the tip`);
      const verdict = await next.verifyEvents({ draft: DRAFT });
      assert.ok(verdict.ok, `${label}: the ledger: ${JSON.stringify(verdict.broken)}`);
      const b = await next.batch(
        {
          intent: 'after the power loss',
          operations: [{ operation: 'write', path: 'docs/after.md', content: 'after\n' }],
        },
        { draft: DRAFT },
      );
      assert.ok(b.success, `${label}: the next batch: ${JSON.stringify(b.error)}`);
    } finally {
      next.close();
    }
  }
  return { states: states.length, points: crash.events.length + 1, moved };
}
