import { createHash } from 'node:crypto';
import { Volume, createFsFromVolume } from 'memfs';
import type { CrashEvent, CrashFs, Ino, InodeState } from './crash-fs.js';
import { prng } from './prng.js';

/**
 * The disks a power loss may leave, built from a CrashFs log.
 *
 * The model (what the file systems shadow supports promise; ext4, XFS,
 * btrfs and APFS give at least this):
 *
 * - A file's content is durable once an fsync of it completes, as it was
 *   when the fsync was called. Writes after that may be lost: a crash keeps,
 *   for each file, its writes in order up to some point (possibly none, or
 *   all), and the last kept write of a file over one block may be cut at a
 *   block boundary.
 * - A directory's entries (a create, link, unlink, rename in or out, mkdir,
 *   rmdir) are durable once an fsync of that directory completes. Later
 *   changes may be lost: a crash keeps, for each directory, its changes in
 *   order up to some point. A rename between two directories is kept only
 *   where both keep it (it is one change, never half done).
 * - A new directory or symlink holds what it was made with once its entry
 *   is there; a new file's content is subject to the first rule.
 * - (In the enumerated states below) a directory's removal is lost with
 *   what was removed from it before: rmdir needs it empty.
 * - Nothing else is reordered, and the process's own view (the page cache)
 *   is gone.
 *
 * For each crash point (before each logged event, and after the last) the
 * objects with changes not yet durable are found, and states are chosen:
 * each object alone losing its changes (those at the last point the object
 * holds them are marked `enumerated`: they show a missing fsync, and a
 * budget checks them before any other), every object losing all of them,
 * every object keeping all, each object alone keeping its changes, and
 * every combination where there are few, or a seeded sample where there are
 * many. States are told apart by their content, so each distinct disk is
 * checked once, at the latest crash point that may leave it.
 */

const BLOCK = 4096;
const ALL_COMBINATIONS_UP_TO = 16;
const SAMPLES = 8;

/** A disk after a crash: its files, to mount as a fresh volume. */
export interface CrashState {
  /** The crash point: how many events had happened. */
  at: number;
  /** A digest of the whole disk. */
  digest: string;
  /** One object alone lost what it had pending (see exposing): a state that shows a missing fsync. */
  enumerated: boolean;
  /** Build the disk as a new memfs volume; every file and directory dated `mtimeMs` when given (a disk from before a restart). */
  mount(options?: { mtimeMs?: number }): ReturnType<typeof createFsFromVolume>;
}

interface Pending {
  /** Events (indices) of this object not yet durable at the crash point. */
  events: number[];
  ino: Ino;
  kind: 'data' | 'dir';
}

/** What was durable, and what was pending, at crash point `at`. */
function pendingAt(events: readonly CrashEvent[], at: number): Pending[] {
  const durableBefore = new Map<Ino, number>();
  for (let i = 0; i < at; i++) {
    const e = events[i]!;
    if (e.kind === 'sync') durableBefore.set(e.ino, Math.max(durableBefore.get(e.ino) ?? 0, e.asOf));
  }
  const byObject = new Map<string, Pending>();
  const add = (ino: Ino, kind: 'data' | 'dir', i: number): void => {
    if (i < (durableBefore.get(ino) ?? 0)) return;
    const key = `${kind}:${ino}`;
    const p = byObject.get(key) ?? { events: [], ino, kind };
    p.events.push(i);
    byObject.set(key, p);
  };
  for (let i = 0; i < at; i++) {
    const e = events[i]!;
    if (e.kind === 'data') add(e.ino, 'data', i);
    if (e.kind === 'entries') for (const op of e.ops) add(op.dir, 'dir', i);
  }
  return [...byObject.values()];
}

/** How many of each object's pending events a state keeps (cut: the last kept write is cut to a block). */
type Choice = Array<{ keep: number; cut: boolean }>;

/**
 * Every object keeping all its pending changes, but object `i`, which loses
 * all of its own; and what cannot outlive that: a directory's removal
 * (rmdir needs it empty, and file systems journal the two in order) is lost
 * with what was removed from it before, and so is all that followed it in
 * its parent.
 */
function aloneLosing(events: readonly CrashEvent[], pending: readonly Pending[], i: number): Choice {
  const keep = pending.map((p, j) => (j === i ? 0 : p.events.length));
  const dirOf = new Map<Ino, number>();
  pending.forEach((p, j) => p.kind === 'dir' && dirOf.set(p.ino, j));
  for (let changed = true; changed;) {
    changed = false;
    pending.forEach((p, j) => {
      if (p.kind !== 'dir') return;
      for (let n = 0; n < keep[j]!; n++) {
        const e = events[p.events[n]!]!;
        const removed =
          e.kind === 'entries' ? e.ops.find((o) => o.dir === p.ino && o.rmdir !== undefined)?.rmdir : undefined;
        const child = removed === undefined ? undefined : dirOf.get(removed);
        if (
          child === undefined ||
          keep[child]! === pending[child]!.events.length ||
          pending[child]!.events[keep[child]!]! > p.events[n]!
        )
          continue;
        keep[j] = n;
        changed = true;
        return;
      }
    });
  }
  return keep.map((k) => ({ keep: k, cut: false }));
}

/**
 * Whether crash point `at` is the last one at which `p` holds all it has
 * pending: the next event is an fsync of it that makes some of it durable,
 * or there is no next event. Each object alone losing its changes there
 * shows a missing fsync: the object was relied on, by the rest of the run or
 * by its return, and never made durable before.
 */
function lastPending(events: readonly CrashEvent[], at: number, p: Pending): boolean {
  const next = events[at];
  return next === undefined || (next.kind === 'sync' && next.ino === p.ino && p.events[0]! < next.asOf);
}

/**
 * The states of crash point `at`, and how many at their head are
 * enumerated. First (enumerated) each object alone losing its pending
 * changes where that is the last point it holds them (see lastPending);
 * then each other object alone losing them, from a place that turns with
 * `at` (so that a budget taking one state a point spreads over the
 * objects); then every object losing all, every object keeping all, each
 * alone keeping, each write of a file cut to a block, and every
 * combination where there are few or a seeded sample where there are many.
 */
function choices(
  events: readonly CrashEvent[],
  at: number,
  pending: readonly Pending[],
  seed: number,
): { choices: Choice[]; enumerated: number } {
  const last: Choice[] = [];
  const earlier: Choice[] = [];
  pending.forEach((p, i) => (lastPending(events, at, p) ? last : earlier).push(aloneLosing(events, pending, i)));
  const turn = earlier.length === 0 ? 0 : at % earlier.length;
  const none: Choice = pending.map(() => ({ keep: 0, cut: false }));
  const all: Choice = pending.map((p) => ({ keep: p.events.length, cut: false }));
  const out: Choice[] = [...last, ...earlier.slice(turn), ...earlier.slice(0, turn), none, all];
  pending.forEach((p, i) => {
    out.push(none.map((c, j) => (j === i ? { keep: p.events.length, cut: false } : c)));
    if (p.kind === 'data') out.push(all.map((c, j) => (j === i ? { keep: c.keep, cut: true } : c)));
  });
  let product = 1;
  for (const p of pending) product *= p.events.length + 1;
  if (product <= ALL_COMBINATIONS_UP_TO) {
    for (let n = 0; n < product; n++) {
      let rest = n;
      out.push(
        pending.map((p) => {
          const keep = rest % (p.events.length + 1);
          rest = Math.floor(rest / (p.events.length + 1));
          return { keep, cut: false };
        }),
      );
    }
  } else {
    const rand = prng(seed);
    for (let s = 0; s < SAMPLES; s++)
      out.push(pending.map((p) => ({ keep: Math.floor(rand() * (p.events.length + 1)), cut: rand() < 0.2 })));
  }
  return { choices: out, enumerated: last.length };
}

function cloneState(s: InodeState): InodeState {
  if (s.kind === 'dir') return { kind: 'dir', mode: s.mode, entries: new Map(s.entries) };
  return s;
}

/** The disk a choice leaves: the base, with the durable events and the kept pending ones applied in order. */
function build(crash: CrashFs, at: number, pending: readonly Pending[], choice: Choice): Map<Ino, InodeState> {
  const dropped = new Set<number>();
  const cutAt = new Set<number>();
  pending.forEach((p, i) => {
    const c = choice[i]!;
    p.events.slice(c.keep).forEach((e) => dropped.add(p.kind === 'dir' ? -1 - e : e));
    if (c.cut && p.kind === 'data' && c.keep > 0) cutAt.add(p.events[c.keep - 1]!);
  });
  const inodes = new Map<Ino, InodeState>();
  for (const [ino, s] of crash.base) inodes.set(ino, cloneState(s));
  for (let i = 0; i < at; i++) {
    const e = crash.events[i]!;
    if (e.kind === 'inode') inodes.set(e.ino, cloneState(e.state));
    else if (e.kind === 'data') {
      if (dropped.has(i)) {
        if (!inodes.has(e.ino)) inodes.set(e.ino, { kind: 'file', mode: e.mode, content: Buffer.alloc(0) });
        continue;
      }
      let content = e.content;
      if (cutAt.has(i) && content.length > BLOCK)
        content = content.subarray(0, Math.floor(content.length / 2 / BLOCK) * BLOCK || BLOCK);
      inodes.set(e.ino, { kind: 'file', mode: e.mode, content });
    } else if (e.kind === 'entries') {
      // One change, over one or two directories: kept only where every directory keeps it.
      if (dropped.has(-1 - i)) continue;
      for (const op of e.ops) {
        const dir = inodes.get(op.dir);
        if (dir?.kind !== 'dir') continue;
        if (op.ino === null) dir.entries.delete(op.name);
        else dir.entries.set(op.name, op.ino);
      }
    }
  }
  return inodes;
}

function mountOf(
  inodes: Map<Ino, InodeState>,
  root: Ino,
  rootPath: string,
  mtimeMs: number | undefined,
): ReturnType<typeof createFsFromVolume> {
  const vol = new Volume();
  const fs = createFsFromVolume(vol);
  const date = (path: string): void => {
    if (mtimeMs !== undefined) fs.utimesSync(path, mtimeMs / 1000, mtimeMs / 1000);
  };
  const walk = (ino: Ino, path: string, depth: number): void => {
    const s = inodes.get(ino);
    if (!s || depth > 64) return;
    if (s.kind === 'dir') {
      if (path !== '/') fs.mkdirSync(path, { mode: s.mode });
      for (const [name, child] of s.entries) walk(child, path === '/' ? `/${name}` : `${path}/${name}`, depth + 1);
      if (path !== '/') date(path);
    } else if (s.kind === 'file') {
      fs.writeFileSync(path, s.content, { mode: s.mode });
      date(path);
    } else fs.symlinkSync(s.target.toString(), path);
  };
  walk(root, rootPath, 0);
  return fs;
}

/** The sha1 of each content buffer, hashed once: the states of a run share most of their files' buffers. */
const contentHashes = new WeakMap<Buffer, string>();

function contentHash(content: Buffer): string {
  let h = contentHashes.get(content);
  if (h === undefined) {
    h = createHash('sha1').update(content).digest('hex');
    contentHashes.set(content, h);
  }
  return h;
}

function digestOf(inodes: Map<Ino, InodeState>, root: Ino): string {
  const h = createHash('sha256');
  const walk = (ino: Ino, path: string): void => {
    const s = inodes.get(ino);
    if (!s) return;
    if (s.kind === 'dir') {
      h.update(`d ${path} ${s.mode}\n`);
      for (const name of [...s.entries.keys()].sort()) walk(s.entries.get(name)!, `${path}/${name}`);
    } else if (s.kind === 'file') h.update(`f ${path} ${s.mode} ${contentHash(s.content)}\n`);
    else h.update(`l ${path} ${s.target.toString('hex')}\n`);
  };
  walk(root, '');
  return h.digest('hex');
}

/**
 * Every distinct disk a power loss during the logged run may leave (see the
 * model above), each once, in the order of their crash points; with `at`,
 * those of that crash point alone.
 */
export function crashStates(crash: CrashFs, options: { seed?: number; at?: number } = {}): CrashState[] {
  const seed = options.seed ?? 1;
  const seen = new Map<string, CrashState>();
  const from = options.at ?? 0;
  const to = options.at ?? crash.events.length;
  for (let at = from; at <= to; at++) {
    const pending = pendingAt(crash.events, at);
    const { choices: list, enumerated } = choices(crash.events, at, pending, seed + at);
    list.forEach((choice, n) => {
      const inodes = build(crash, at, pending, choice);
      const digest = digestOf(inodes, crash.rootIno);
      const earlier = seen.get(digest);
      if (earlier) {
        // The same disk at a later point (an fsync changes no disk, only which may follow): what holds there holds for it.
        earlier.at = at;
        earlier.enumerated ||= n < enumerated;
        return;
      }
      seen.set(digest, {
        at,
        digest,
        enumerated: n < enumerated,
        // Built again when mounted: only the few states a budget checks are, and holding every state's inodes would keep
        // the whole run's disks in memory.
        mount: (o) => mountOf(build(crash, at, pending, choice), crash.rootIno, '/', o?.mtimeMs),
      });
    });
  }
  return [...seen.values()];
}

/**
 * The states to check within a budget: every enumerated one (each object
 * alone losing its pending changes at the last point it held them), then
 * the first state of every crash point not yet covered, then a seeded
 * sample of the rest up to `budget`. Returned in crash-point order, with
 * how many were enumerated and how many sampled.
 */
export function budgetStates(
  states: readonly CrashState[],
  budget: number,
  seed: number,
): { states: CrashState[]; enumerated: number; sampled: number } {
  const enumerated = states.filter((s) => s.enumerated).length;
  if (states.length <= budget) return { states: [...states], enumerated, sampled: states.length - enumerated };
  const keep = new Set<CrashState>(states.filter((s) => s.enumerated));
  const points = new Set([...keep].map((s) => s.at));
  for (const s of states) {
    if (points.has(s.at)) continue;
    points.add(s.at);
    keep.add(s);
  }
  const rest = states.filter((s) => !keep.has(s));
  const rand = prng(seed);
  for (let i = 0; i < rest.length && keep.size < budget; i++) {
    const j = i + Math.floor(rand() * (rest.length - i));
    [rest[i], rest[j]] = [rest[j]!, rest[i]!];
    keep.add(rest[i]!);
  }
  const chosen = states.filter((s) => keep.has(s)).sort((a, b) => a.at - b.at);
  return { states: chosen, enumerated, sampled: chosen.length - enumerated };
}
