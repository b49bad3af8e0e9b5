import type { Test } from 'uvu';
import { Volume, createFsFromVolume } from 'memfs';
import type { FileSystem, Shadow } from '../../src/index.js';
import type { MemRepo } from './mem-repo.js';
import { FsSeam } from './fs-seam.js';
import { openAs } from './apply-fixture.js';
import { listNames, ROOT } from './working-tree.js';

/*
 * Crash sweeps over a command on memfs: a frozen copy of the volume thawed
 * for each crash point, one probing run to learn the fs calls, and the
 * problems found grouped by kind.
 */

/** A frozen volume: the files (Buffers) and the modes that differ from memfs's default. */
export interface Frozen {
  json: Record<string, Buffer | null>;
  modes: Array<[string, number]>;
}

export function freeze(fs: FileSystem): Frozen {
  const json: Record<string, Buffer | null> = {};
  const modes: Array<[string, number]> = [];
  const walk = (dir: string): void => {
    for (const name of listNames(fs, dir)) {
      const p = `${dir}/${name}`;
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) throw new Error('no symlinks in frozen fixtures');
      if (st.isDirectory()) {
        json[p] = null;
        walk(p);
      } else {
        json[p] = fs.readFileSync(p) as Buffer;
        if ((Number(st.mode) & 0o777) !== 0o666) modes.push([p, Number(st.mode) & 0o777]);
      }
    }
  };
  walk(ROOT);
  return { json, modes };
}

export function thaw(f: Frozen): FileSystem & { chmodSync(p: string, m: number): void } {
  const fs = createFsFromVolume(Volume.fromJSON(f.json)) as unknown as FileSystem & {
    chmodSync(p: string, m: number): void;
  };
  for (const [p, m] of f.modes) fs.chmodSync(p, m);
  return fs;
}

/**
 * One full run of `act` on a thawed copy of `frozen`, every fs call
 * recorded: the calls a crash sweep then stops at, one by one.
 */
export async function probeRun<T>(
  repo: MemRepo,
  frozen: Frozen,
  act: (sh: Shadow) => Promise<T>,
): Promise<{ fs: FileSystem; probe: FsSeam; result: T }> {
  const fs = thaw(frozen);
  const probe = new FsSeam(fs);
  const sh = await openAs(repo, probe.fs, 101);
  probe.record = true;
  probe.arm();
  const result = await act(sh);
  return { fs, probe, result };
}

/** "N=12 (op path): what" lines, grouped by what went wrong: one line per kind with the crash points. */
export function groupProblems(problems: string[]): string[] {
  const kinds = new Map<string, string[]>();
  for (const p of problems) {
    const m = /^N=(\d+)(?: \([^)]*\))?: (.*)$/.exec(p);
    const what = (m ? m[2]! : p).replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>');
    kinds.set(what, [...(kinds.get(what) ?? []), m ? m[1]! : '?']);
  }
  return [...kinds].map(
    ([what, ns]) => `${what} [at N=${ns.slice(0, 8).join(',')}${ns.length > 8 ? `, … ${ns.length} points` : ''}]`,
  );
}

/** The agent goes on after a recovery: one more batch on the draft. Returns why it failed, if it did. */
export async function goOn(sh: Shadow): Promise<string | undefined> {
  try {
    const r = await sh.batch({
      intent: 'go on',
      operations: [{ operation: 'write', path: 'README.md', content: 'next\n' }],
    });
    return r.success ? undefined : r.error?.message;
  } catch (e) {
    return (e as Error).message;
  }
}

// memfs asks process.getuid()/getgid() on every permission check; caching them makes the sweep about a third faster.
const realIds = { getuid: process.getuid, getgid: process.getgid };

/** Suite hooks that make process.getuid()/getgid() constant while `s` runs. */
export function cacheProcessIds(s: Test): void {
  s.before(() => {
    const uid = process.getuid!();
    const gid = process.getgid!();
    process.getuid = () => uid;
    process.getgid = () => gid;
  });
  s.after(() => {
    process.getuid = realIds.getuid;
    process.getgid = realIds.getgid;
  });
}
