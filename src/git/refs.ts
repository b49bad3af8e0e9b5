import type { Context } from '../context.js';
import { errnoCode, ShadowError } from '../errors.js';
import { ZERO_OID, type Oid, type Signature } from './format/git-objects.js';
import {
  fsyncConcurrently,
  fsyncDir,
  fsyncDirConcurrently,
  parentOf,
  pruneEmptyDirs,
  settleAll,
  tryUnlink,
  writeAll,
} from '../durable/durable-file.js';
import type { LockFile } from '../durable/lock-file.js';
import { collectLooseRefs, readLooseRef, type LooseRef } from './loose-refs.js';
import { PackedRefs } from './packed-refs.js';
import { RefLocks } from './ref-locks.js';
import { appendReflogLines, readReflog, type ReflogEntry, type ReflogLine } from './reflog.js';

/**
 * shadow's own ref store. isomorphic-git's `writeRef` writes the file in
 * place with no lock, no compare-and-swap and no reflog, so every shadow ref
 * update goes through git's lockfile protocol here instead: `<ref>.lock`
 * created exclusively, the old value checked against loose and packed refs,
 * the new value written and fsynced, a reflog line appended and fsynced,
 * the lock renamed over the ref. As in git, a move of the branch this
 * worktree's HEAD points to is logged in HEAD's reflog too
 * (`<gitdir>/logs/HEAD`, per worktree), under HEAD.lock, so `HEAD@{1}` is
 * where the branch was. The files it reads and writes have theirs:
 * loose-refs.ts, packed-refs.ts, reflog.ts.
 */

/** Thrown when a compare-and-swap finds another value than expected. */
export class RefMoved extends Error {
  constructor(
    readonly ref: string,
    readonly current: Oid | undefined,
  ) {
    super(`${ref} moved to ${current ?? '(deleted)'}`);
    this.name = 'RefMoved';
  }
}

export interface RefUpdate {
  ref: string;
  /** The value the ref must hold: an id, `null` for "must not exist", `undefined` for any. */
  expected: Oid | null | undefined;
  next: Oid;
  message: string;
  who: Signature;
  /**
   * Append a reflog line (default). Refs to tag objects get none: git's
   * reflog expiry (`git gc`) expects commits and reports every other value as
   * an error.
   */
  reflog?: boolean;
  /**
   * Create a reflog that does not exist yet (default). False appends only to
   * logs that exist: git's `core.logAllRefUpdates=false`.
   */
  createReflog?: boolean;
  /**
   * A redo of a move that a crash may have cut short between its reflog
   * lines and the rename: a log whose last line already records this very
   * move gets no second one.
   */
  redo?: boolean;
  /**
   * What must be durable before the ref moves (the objects it will point
   * to, being written): awaited while the lock file's own fsync is in
   * flight, so the two reach the disk together. Its failure leaves the ref
   * where it was.
   */
  after?: Promise<void>;
  /**
   * Commits the move passes through on its way to `next` (a group of
   * batches committed as a chain, the ref moved once): each gets its own
   * reflog line, old to it and it to the next, as if the ref had stopped
   * there, so that `undo` and the reflog's readers see one move a commit.
   */
  passing?: ReadonlyArray<{ oid: Oid; message: string }>;
}

/** Refs that live in each worktree's own git dir rather than the common dir. */
function isPerWorktree(ref: string): boolean {
  return (
    ref === 'HEAD' ||
    ref.startsWith('refs/bisect/') ||
    ref.startsWith('refs/worktree/') ||
    ref.startsWith('refs/rewritten/')
  );
}

const MAX_SYMREF_DEPTH = 5;

export class RefStore {
  private readonly locks: RefLocks;
  private readonly packed: PackedRefs;

  constructor(
    private readonly ctx: Context,
    private readonly gitdir: string,
    private readonly commondir: string,
    lockTimeoutMs: number,
    /** Where shadow records who holds the locks it takes (see lock-holders.ts). */
    lockHolders?: string,
  ) {
    this.locks = new RefLocks(ctx, lockTimeoutMs, lockHolders);
    this.packed = new PackedRefs(ctx, commondir, this.locks);
  }

  private pathOf(ref: string): string {
    return `${isPerWorktree(ref) ? this.gitdir : this.commondir}/${ref}`;
  }

  /** The lockfile an update of `ref` holds while it runs. */
  lockPathOf(ref: string): string {
    return `${this.pathOf(ref)}.lock`;
  }

  private logPathOf(ref: string): string {
    return `${isPerWorktree(ref) ? this.gitdir : this.commondir}/logs/${ref}`;
  }

  /** Every packed ref, by name (read-only: shared between calls; see PackedRefs.read). */
  readPacked(): ReadonlyMap<string, Oid> {
    return this.packed.read();
  }

  /** The raw content of a loose ref: an id, a symbolic target, or undefined. */
  private readLoose(ref: string): LooseRef | undefined {
    return readLooseRef(this.ctx.fs, this.pathOf(ref), ref);
  }

  /** The id `ref` points to (symbolic refs followed), or undefined. */
  resolve(ref: string): Oid | undefined {
    let name = ref;
    for (let depth = 0; depth < MAX_SYMREF_DEPTH; depth++) {
      const loose = this.readLoose(name);
      if (loose && 'oid' in loose) return loose.oid;
      if (loose && 'target' in loose) {
        name = loose.target;
        continue;
      }
      return this.readPacked().get(name);
    }
    throw new ShadowError('CORRUPT_REF', `symbolic ref ${ref} loops`, { data: { ref } });
  }

  /** The branch HEAD points to (`refs/heads/x`), or undefined when detached. */
  headTarget(): string | undefined {
    const loose = this.readLoose('HEAD');
    return loose && 'target' in loose ? loose.target : undefined;
  }

  /** Refs under `prefix` (loose and packed; loose wins), sorted by name. */
  list(prefix: string): Array<{ ref: string; oid: Oid }> {
    const found = new Map<string, Oid>();
    for (const [ref, oid] of this.readPacked()) if (ref.startsWith(prefix)) found.set(ref, oid);
    const base = prefix.endsWith('/') ? prefix.slice(0, -1) : parentOf(prefix);
    collectLooseRefs(this.ctx.fs, `${this.commondir}/${base}`, `${base}/`, (ref) => this.readLoose(ref), found);
    return [...found]
      .filter(([ref]) => ref.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([ref, oid]) => ({ ref, oid }));
  }

  private current(ref: string): Oid | undefined {
    const loose = this.readLoose(ref);
    if (loose && 'target' in loose) {
      throw new ShadowError('CORRUPT_REF', `${ref} is a symbolic ref; shadow only moves direct refs`, {
        data: { ref },
      });
    }
    return loose ? loose.oid : this.readPacked().get(ref);
  }

  /**
   * Compare-and-swap `ref` from `expected` to `next` under git's lockfile
   * protocol, appending a reflog line. Throws RefMoved when the ref holds
   * something else, LOCKED when the lock stays taken.
   */
  async update(u: RefUpdate): Promise<void> {
    const fs = this.ctx.fs;
    const path = this.pathOf(u.ref);
    const lock = await this.locks.take(path);
    const fd = lock.fd;
    const lockPath = `${path}.lock`;
    let closed = false;
    let head: LockFile | undefined;
    try {
      const current = this.current(u.ref);
      if (u.expected !== undefined && (current ?? null) !== u.expected) throw new RefMoved(u.ref, current);
      if (u.reflog !== false && this.mayBeHeadTarget(u.ref) && this.headTarget() === u.ref) {
        // git locks HEAD too for its log line: a checkout meanwhile cannot
        // make the line describe a branch HEAD no longer points to.
        head = await this.locks.take(this.pathOf('HEAD'));
        fs.closeSync(head.fd); // git writes nothing in it for a log-only update
      }
      writeAll(fs, fd, Buffer.from(`${u.next}\n`, 'latin1'));
      if (u.after) await settleAll([fsyncConcurrently(fs, fd), u.after]);
      else fs.fsyncSync(fd);
      fs.closeSync(fd);
      closed = true;
      if (u.reflog !== false) {
        // Both lines go before the rename, durably, as the branch's always
        // did: a crash leaves at worst a line for a move not made, which a
        // redo (`redo`) recognises, never a move without its lines.
        const stops = [...(u.passing ?? []), { oid: u.next, message: u.message }];
        let from = current ?? ZERO_OID;
        const lines: ReflogLine[] = stops.map((s) => {
          const line = {
            old: from,
            next: s.oid,
            who: u.who,
            message: s.message,
            create: u.createReflog !== false,
            redo: u.redo === true,
          };
          from = s.oid;
          return line;
        });
        const logs = lines.map((line) => ({ logPath: this.logPathOf(u.ref), line }));
        if (head && this.headTarget() === u.ref)
          logs.push(...lines.map((line) => ({ logPath: this.logPathOf('HEAD'), line })));
        await appendReflogLines(fs, logs);
      }
      // HEAD's lock goes first: a crash after the rename leaves no lock that
      // recovery, finding the branch moved, would never name.
      if (head) this.locks.release(head, this.lockPathOf('HEAD'));
      head = undefined;
      fs.renameSync(lockPath, path);
      lock.forget();
    } catch (e) {
      if (!closed) fs.closeSync(fd);
      this.locks.release(lock, lockPath);
      throw e;
    } finally {
      if (head) this.locks.release(head, this.lockPathOf('HEAD'));
    }
    try {
      await fsyncDirConcurrently(fs, parentOf(path));
    } catch (e) {
      // `git pack-refs --prune` (run by `git gc`) may have packed the ref in
      // the moment since the rename, deleted its file and then its emptied
      // directory: the ref lives in packed-refs now, which git wrote, and
      // nothing of this move is left in a directory to sync.
      if (errnoCode(e) !== 'ENOENT') throw e;
    }
  }

  /** Only a branch can be checked out: shadow's own refs skip the read of HEAD. */
  private mayBeHeadTarget(ref: string): boolean {
    return ref.startsWith('refs/') && !ref.startsWith('refs/shadow/');
  }

  /**
   * Delete `ref` (loose, packed and its reflog) if it still holds `expected`
   * (`null`: only a reflog left without its ref goes). The deletion is
   * durable when this returns: what is removed after it (a draft's state)
   * must never outlive it into a crash that brings the ref back.
   */
  async delete(ref: string, expected: Oid | null | undefined): Promise<void> {
    const fs = this.ctx.fs;
    const path = this.pathOf(ref);
    const lock = await this.locks.take(path);
    const lockPath = `${path}.lock`;
    try {
      fs.closeSync(lock.fd);
      const current = this.current(ref);
      if (expected !== undefined && (current ?? null) !== expected) throw new RefMoved(ref, current);
      if (this.readPacked().has(ref)) await this.packed.remove(ref);
      // The ref, then its log, as git deletes them: a crash between the two
      // leaves a log without its ref, which `delete(ref, null)` removes.
      if (tryUnlink(fs, path)) fsyncDir(fs, parentOf(path));
      tryUnlink(fs, this.logPathOf(ref));
      pruneEmptyDirs(fs, parentOf(this.logPathOf(ref)), `${this.commondir}/logs/refs`);
    } finally {
      this.locks.release(lock, lockPath);
    }
    pruneEmptyDirs(fs, parentOf(path), `${this.commondir}/refs`);
  }

  /**
   * The reflog of `ref`, oldest first (empty when there is none). With
   * `from`: only from the last entry that moved the ref to `from` (all of
   * them when none did), found by a search of the text before any line is
   * parsed.
   */
  reflog(ref: string, from?: Oid): ReflogEntry[] {
    return readReflog(this.ctx.fs, this.logPathOf(ref), from);
  }
}
