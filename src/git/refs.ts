import type { Context } from '../context.js';
import { errnoCode, ShadowError } from '../errors.js';
import { formatSignature, isOid, ZERO_OID, type Oid, type Signature } from './format/git-objects.js';
import { normalizeReflogMessage } from './format/reflog-message.js';
import { ensureDir, fsyncConcurrently, fsyncDir, listDir, parentOf, pruneEmptyDirs, readTextIfExists, settleAll, statIfExists, statStamp, tryUnlink, writeAll } from '../durable/durable-file.js';
import { createLockFile, type LockFile } from '../durable/lock-file.js';

/**
 * shadow's own ref store. isomorphic-git's `writeRef` writes the file in
 * place with no lock, no compare-and-swap and no reflog, so every shadow ref
 * update goes through git's lockfile protocol here instead: `<ref>.lock`
 * created exclusively, the old value checked against loose and packed refs,
 * the new value written and fsynced, a reflog line appended, the lock renamed
 * over the ref. As in git, a move of the branch this worktree's HEAD points
 * to is logged in HEAD's reflog too (`<gitdir>/logs/HEAD`, per worktree),
 * under HEAD.lock, so `HEAD@{1}` is where the branch was.
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

export interface ReflogEntry {
  old: Oid;
  new: Oid;
  who: string;
  timestamp: number;
  message: string;
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
}

/** A reflog line to append, and how (see RefUpdate's `createReflog` and `redo`). */
interface ReflogLine {
  old: Oid;
  next: Oid;
  who: Signature;
  message: string;
  create: boolean;
  redo: boolean;
}

/** Refs that live in each worktree's own git dir rather than the common dir. */
function isPerWorktree(ref: string): boolean {
  return ref === 'HEAD' || ref.startsWith('refs/bisect/') || ref.startsWith('refs/worktree/') || ref.startsWith('refs/rewritten/');
}

const MAX_SYMREF_DEPTH = 5;

/** How much of a reflog's end is read to find its last line. */
const LAST_LINE_WINDOW = 64 * 1024;

export class RefStore {
  /** The last parse of packed-refs, under the stat it was read with. */
  private packed: { stamp: string; refs: ReadonlyMap<string, Oid> } | undefined;

  constructor(
    private readonly ctx: Context,
    private readonly gitdir: string,
    private readonly commondir: string,
    private readonly lockTimeoutMs: number,
    /** Where shadow records who holds the locks it takes (see lock-holders.ts). */
    private readonly lockHolders?: string,
  ) {}

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

  /**
   * Every packed ref, by name (read-only: shared between calls). The file is
   * parsed again only when its stat changes: every rewrite of packed-refs,
   * git's or shadow's, renames a new file into place, so a new inode shows
   * it; a file changed so recently that an edit in place could change it
   * again unseen (see statStamp) is parsed every time. A repository with
   * thousands of packed refs no longer pays for them on every lookup of a
   * ref that is not loose.
   */
  readPacked(): ReadonlyMap<string, Oid> {
    const path = `${this.commondir}/packed-refs`;
    const { stamp, racy } = statStamp(this.ctx.fs, path, this.ctx.clock.now());
    if (this.packed?.stamp === stamp && !racy) return this.packed.refs;
    const refs = new Map<string, Oid>();
    const text = stamp === '-' ? undefined : readTextIfExists(this.ctx.fs, path);
    for (const line of text ? text.split('\n') : []) {
      if (line.length < 42 || line.startsWith('#') || line.startsWith('^')) continue;
      const oid = line.slice(0, 40);
      if (isOid(oid) && line[40] === ' ') refs.set(line.slice(41).trimEnd(), oid);
    }
    this.packed = { stamp, refs };
    return refs;
  }

  /** The raw content of a loose ref: an id, a symbolic target, or undefined. */
  private readLoose(ref: string): { oid: Oid } | { target: string } | undefined {
    let text: string | undefined;
    try {
      text = readTextIfExists(this.ctx.fs, this.pathOf(ref));
    } catch (e) {
      if (errnoCode(e) === 'EISDIR') return undefined;
      throw e;
    }
    if (text === undefined) return undefined;
    const v = text.trim();
    if (v.startsWith('ref:')) return { target: v.slice(4).trim() };
    if (!isOid(v)) {
      throw new ShadowError('CORRUPT_REF', `ref ${ref} holds "${v.slice(0, 60)}", not an object id`, {
        hint: `inspect ${this.pathOf(ref)}; \`git update-ref\` can repair it`,
        data: { ref },
      });
    }
    return { oid: v };
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
    const walk = (dir: string, ref: string): void => {
      for (const name of listDir(this.ctx.fs, dir)) {
        if (name.endsWith('.lock') || name.includes('.tmp-')) continue;
        const path = `${dir}/${name}`;
        const child = `${ref}${name}`;
        let isDir = false;
        try {
          isDir = this.ctx.fs.statSync(path).isDirectory();
        } catch {
          continue;
        }
        if (isDir) walk(path, `${child}/`);
        else {
          const loose = this.readLoose(child);
          if (loose && 'oid' in loose) found.set(child, loose.oid);
        }
      }
    };
    const base = prefix.endsWith('/') ? prefix.slice(0, -1) : parentOf(prefix);
    walk(`${this.commondir}/${base}`, `${base}/`);
    return [...found]
      .filter(([ref]) => ref.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([ref, oid]) => ({ ref, oid }));
  }

  private lock(path: string): Promise<LockFile> {
    return createLockFile(this.ctx, path, this.lockTimeoutMs, this.lockHolders);
  }

  private current(ref: string): Oid | undefined {
    const loose = this.readLoose(ref);
    if (loose && 'target' in loose) {
      throw new ShadowError('CORRUPT_REF', `${ref} is a symbolic ref; shadow only moves direct refs`, { data: { ref } });
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
    const lock = await this.lock(path);
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
        head = await this.lock(this.pathOf('HEAD'));
        fs.closeSync(head.fd); // git writes nothing in it for a log-only update
      }
      writeAll(fs, fd, Buffer.from(`${u.next}\n`, 'latin1'));
      if (u.after) await settleAll([fsyncConcurrently(fs, fd), u.after]);
      else fs.fsyncSync(fd);
      fs.closeSync(fd);
      closed = true;
      if (u.reflog !== false) {
        // Both lines go before the rename, as the branch's always did: a
        // crash leaves at worst a line for a move not made, which a redo
        // (`redo`) recognises, never a move without its lines.
        const line: ReflogLine = {
          old: current ?? ZERO_OID,
          next: u.next,
          who: u.who,
          message: u.message,
          create: u.createReflog !== false,
          redo: u.redo === true,
        };
        this.appendReflog(u.ref, line);
        if (head && this.headTarget() === u.ref) this.appendReflog('HEAD', line);
      }
      // HEAD's lock goes first: a crash after the rename leaves no lock that
      // recovery, finding the branch moved, would never name.
      if (head) this.unlock(head, this.lockPathOf('HEAD'));
      head = undefined;
      fs.renameSync(lockPath, path);
      lock.forget();
    } catch (e) {
      if (!closed) fs.closeSync(fd);
      this.unlock(lock, lockPath);
      throw e;
    } finally {
      if (head) this.unlock(head, this.lockPathOf('HEAD'));
    }
    fsyncDir(fs, parentOf(path));
  }

  /** Remove a lock, then its holder record (never the other way: a lock without a record is git's). */
  private unlock(lock: LockFile, lockPath: string): void {
    tryUnlink(this.ctx.fs, lockPath);
    lock.forget();
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
    const lock = await this.lock(path);
    const lockPath = `${path}.lock`;
    try {
      fs.closeSync(lock.fd);
      const current = this.current(ref);
      if (expected !== undefined && (current ?? null) !== expected) throw new RefMoved(ref, current);
      if (this.readPacked().has(ref)) await this.removePacked(ref);
      // The ref, then its log, as git deletes them: a crash between the two
      // leaves a log without its ref, which `delete(ref, null)` removes.
      if (tryUnlink(fs, path)) fsyncDir(fs, parentOf(path));
      tryUnlink(fs, this.logPathOf(ref));
      pruneEmptyDirs(fs, parentOf(this.logPathOf(ref)), `${this.commondir}/logs/refs`);
    } finally {
      this.unlock(lock, lockPath);
    }
    pruneEmptyDirs(fs, parentOf(path), `${this.commondir}/refs`);
  }

  private async removePacked(ref: string): Promise<void> {
    const fs = this.ctx.fs;
    const packedPath = `${this.commondir}/packed-refs`;
    const lock = await this.lock(packedPath);
    const fd = lock.fd;
    try {
      const text = readTextIfExists(fs, packedPath) ?? '';
      const lines = text.split('\n');
      const kept: string[] = [];
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        if (!line.startsWith('#') && !line.startsWith('^') && line.slice(41) === ref) {
          if (lines[i + 1]?.startsWith('^')) i++; // its peeled line goes with it
          continue;
        }
        kept.push(line);
      }
      writeAll(fs, fd, Buffer.from(kept.join('\n'), 'utf8'));
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fs.renameSync(`${packedPath}.lock`, packedPath);
      fsyncDir(fs, this.commondir);
      lock.forget();
    } catch (e) {
      this.unlock(lock, `${packedPath}.lock`);
      throw e;
    }
  }

  private appendReflog(ref: string, line: ReflogLine): void {
    const fs = this.ctx.fs;
    const logPath = this.logPathOf(ref);
    if (!line.create && statIfExists(fs, logPath) === undefined) return;
    if (line.redo && this.lastLogLine(logPath)?.startsWith(`${line.old} ${line.next} `)) return;
    ensureDir(fs, parentOf(logPath));
    const who = formatSignature(line.who);
    fs.appendFileSync(logPath, `${line.old} ${line.next} ${who}\t${normalizeReflogMessage(line.message)}\n`);
  }

  /** The last line of a reflog, read from its end (a branch's log grows without bound). */
  private lastLogLine(logPath: string): string | undefined {
    const fs = this.ctx.fs;
    let fd: number;
    try {
      fd = fs.openSync(logPath, 'r');
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return undefined;
      throw e;
    }
    try {
      const size = fs.fstatSync(fd).size;
      const length = Math.min(size, LAST_LINE_WINDOW);
      const buf = Buffer.alloc(length);
      let got = 0;
      while (got < length) {
        const n = fs.readSync(fd, buf, got, length - got, size - length + got);
        if (n === 0) break;
        got += n;
      }
      const text = buf.subarray(0, got).toString('latin1').replace(/\n$/, '');
      const start = text.lastIndexOf('\n');
      // A line longer than the window is no line shadow wrote for a move.
      return start === -1 && length < size ? undefined : text.slice(start + 1);
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * The reflog of `ref`, oldest first (empty when there is none). With
   * `from`: only from the last entry that moved the ref to `from` (all of
   * them when none did), found by a search of the text before any line is
   * parsed.
   */
  reflog(ref: string, from?: Oid): ReflogEntry[] {
    let text = readTextIfExists(this.ctx.fs, this.logPathOf(ref));
    if (!text) return [];
    if (from !== undefined) {
      // A line is `<old> <new> <who> <time>\t<message>`: the new value
      // starts 41 characters into its line (a message may name ids too).
      for (let at = text.lastIndexOf(` ${from} `); at !== -1; at = at > 0 ? text.lastIndexOf(` ${from} `, at - 1) : -1) {
        const line = at - 40;
        if (line === 0 || (line > 0 && text.charCodeAt(line - 1) === 0x0a)) {
          text = text.slice(line);
          break;
        }
      }
    }
    const out: ReflogEntry[] = [];
    for (const line of text.split('\n')) {
      const m = /^([0-9a-f]{40}) ([0-9a-f]{40}) (.*?) (\d+) [+-]\d{4}\t?(.*)$/.exec(line);
      if (m) out.push({ old: m[1]!, new: m[2]!, who: m[3]!, timestamp: Number(m[4]), message: m[5]! });
    }
    return out;
  }
}
