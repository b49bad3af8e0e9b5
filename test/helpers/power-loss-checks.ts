import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileSystem, Shadow } from '../../src/index.js';
import { Repository } from '../../src/git/repository.js';
import { testContext } from './context.js';
import { toDisk } from './rebase-fixture.js';

/*
 * What the power-loss test (test/power-loss.test.ts) checks on a disk a
 * power loss left: files whole, an apply all or nothing, the ledger and
 * recovery as every protocol needs them, and native git's fsck.
 */

export function read(fs: FileSystem, path: string): string | null {
  return fs.existsSync(`/repo/${path}`) ? String(fs.readFileSync(`/repo/${path}`, 'utf8')) : null;
}

/** A digest of everything under /repo, to tell whether a second recovery changed anything. */
export function digest(fs: FileSystem, dir = '/repo'): string {
  const parts: string[] = [];
  for (const name of (fs.readdirSync(dir) as unknown[]).map(String).sort()) {
    const p = `${dir}/${name}`;
    const st = fs.lstatSync(p);
    parts.push(
      st.isDirectory()
        ? `${p}/\n${digest(fs, p)}`
        : `${p} ${st.isSymbolicLink() ? fs.readlinkSync(p) : (fs.readFileSync(p) as Buffer).toString('base64')}`,
    );
  }
  return parts.join('\n');
}

/** Whether the repository on `fs` holds commit `oid`, whole. */
export function hasCommit(fs: FileSystem, oid: string): boolean {
  try {
    Repository.open(testContext(fs), '/repo').objects.readCommit(oid);
    return true;
  } catch {
    return false;
  }
}

/** The batch numbers the draft's ledger records as committed. */
export async function ledgerBatches(sh: Shadow): Promise<number[]> {
  return (await sh.events()).filter((e) => e.type === 'batch/commit').map((e) => (e.data as { batch: number }).batch);
}

const ZERO = '0'.repeat(40);

/**
 * The draft's last move has its line in the reflog, as git writes it, and
 * `undo` takes it back to that line's old value: a power loss that kept the
 * move and lost its line would leave undo answering NOTHING_TO_UNDO.
 */
async function lastMoveUndoes(sh: Shadow, fs: FileSystem, label: string): Promise<void> {
  const ref = 'refs/shadow/drafts/default';
  const tip = Repository.open(testContext(fs), '/repo').refs.resolve(ref);
  if (tip === undefined) return;
  const log = `/repo/.git/logs/${ref}`;
  const lines = fs.existsSync(log) ? String(fs.readFileSync(log, 'utf8')).split('\n') : [];
  const moves = lines.map((l) => /^([0-9a-f]{40}) ([0-9a-f]{40}) /.exec(l)).filter((m) => m !== null);
  const last = moves.reverse().find((m) => m[2] === tip);
  assert.ok(
    last,
    `${label}: the draft is at ${tip}, and its reflog has no line for the move there: ${JSON.stringify(lines)}`,
  );
  if (last[1] === ZERO) return;
  let to: string | undefined;
  try {
    to = (await sh.undo()).to;
  } catch (e) {
    assert.unreachable(`${label}: undo answers ${(e as { code?: string }).code}: ${(e as Error).message}`);
  }
  assert.is(to, last[1], `${label}: undo goes back to the reflog's old value`);
}

/** Checks every protocol shares: the ledger verifies, recovery converges, the draft reads whole, its last move undoes, the next batch runs. */
export async function common(sh: Shadow, fs: FileSystem, label: string): Promise<void> {
  const verdict = await sh.verifyEvents();
  assert.ok(verdict.ok, `${label}: ledger: ${JSON.stringify(verdict.broken)}`);
  const again = digest(fs);
  const second = await sh.recover();
  assert.equal(second.finished, [], `${label}: a second recovery finishes nothing`);
  assert.is(digest(fs), again, `${label}: a second recovery changes nothing`);
  // Everything the draft names reads (and hashes right): its log and its files.
  if (await sh.hasDraft()) {
    await sh.log();
    // A batch the ledger records was durable before its line was written: its commit is there, whole.
    // (Whether the draft still holds it, a rollback may have changed: the batch protocols check that themselves.)
    for (const e of await sh.events()) {
      const { batch, commit } = (e.data ?? {}) as { batch?: number; commit?: string };
      if (e.type === 'batch/commit' && commit)
        assert.ok(
          hasCommit(fs, commit),
          `${label}: the ledger claims batch ${batch} (${commit}), whose commit is missing`,
        );
    }
    for (const f of (await sh.files()).files) if (f.type === 'file') await sh.cat(f.path);
    await lastMoveUndoes(sh, fs, label);
  }
  const next = await sh.batch({ operations: [{ operation: 'write', path: 'next.txt', content: 'next\n' }] });
  assert.ok(next.success, `${label}: the next batch runs: ${JSON.stringify(next.error)}`);
}

export const PUBLISHED: Record<string, [string | null, string | null]> = {
  'a.txt': ['a old\n', 'a new\n'],
  'b/c.txt': ['c old\n', 'c new\n'],
  'b/d/new.txt': [null, 'made\n'],
  'gone.txt': ['bye\n', null],
};

/** Every published path old, or every one new: an apply is all or nothing. */
export function allOrNothing(fs: FileSystem, label: string, flip = false): 'old' | 'new' {
  const seen = Object.entries(PUBLISHED).map(([p, [o, n]]) => {
    const v = read(fs, p);
    const [before, after] = flip ? [n, o] : [o, n];
    assert.ok(v === before || v === after, `${label}: ${p} is torn: ${JSON.stringify(v)}`);
    return v === after && before !== after ? 'new' : 'old';
  });
  const kinds = new Set(seen);
  assert.is(
    kinds.size,
    1,
    `${label}: some paths old, some new: ${JSON.stringify(Object.keys(PUBLISHED).map((p) => [p, read(fs, p)]))}`,
  );
  return seen[0]!;
}

export const draftChanges = async (sh: Shadow): Promise<void> => {
  const r = await sh.batch({
    operations: [
      { operation: 'write', path: 'a.txt', content: 'a new\n' },
      { operation: 'write', path: 'b/c.txt', content: 'c new\n' },
      { operation: 'write', path: 'b/d/new.txt', content: 'made\n' },
      { operation: 'delete', path: 'gone.txt' },
    ],
  });
  assert.ok(r.success);
};

export async function mainBranch(fs: FileSystem): Promise<string> {
  const loose = '/repo/.git/refs/heads/main';
  if (fs.existsSync(loose)) return String(fs.readFileSync(loose, 'utf8')).trim();
  const packed = String(fs.readFileSync('/repo/.git/packed-refs', 'utf8'));
  return /^([0-9a-f]{40}) refs\/heads\/main$/m.exec(packed)![1]!;
}

/** Native git's verdict on a recovered disk: `git fsck --strict` finds nothing wrong. */
export function gitFsck(fs: FileSystem, label: string): void {
  const dir = nodeFs.mkdtempSync(join(tmpdir(), 'shadow-power-loss-'));
  try {
    toDisk(fs, '/repo', dir);
    const r = spawnSync('git', ['fsck', '--strict', '--no-progress', '--no-dangling'], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
    });
    assert.is(r.status, 0, `${label}: git fsck --strict: ${r.stdout}${r.stderr}`);
  } finally {
    nodeFs.rmSync(dir, { recursive: true, force: true });
  }
}
