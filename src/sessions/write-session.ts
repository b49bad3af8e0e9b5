import { ShadowError } from '../errors.js';
import { contentTooLarge } from '../core/content.js';
import type { FileOperation } from '../drafts/batch/ops.js';
import { LineSplitter, validateSessionContent, type SessionContent } from './session-content.js';
import { writeAll } from '../durable/durable-file.js';
import {
  contentPath,
  contentSlices,
  readSessionMeta,
  readSessionState,
  removeSessionFiles,
  SessionStateFile,
  writeSessionMeta,
  type SessionMeta,
  type SessionState,
} from '../state/session-files.js';
import { runBatch, type BatchResult } from '../drafts/batch/batch.js';
import { idleMs, iso, notFound, now, savedLines, savedSize, sessionSettings, type FinalizeResult } from './session.js';
import { readViewFile } from '../drafts/view/view.js';
import type { LiveSession, Workspace } from '../drafts/workspace.js';

/**
 * A session being fed in this process: buffers in memory, saves to disk
 * every `saveLines` lines or `saveMs` milliseconds, and keeps the content in
 * memory (with a warning) when the disk is full.
 */
export class WriteSession implements LiveSession {
  private splitter = new LineSplitter();
  private pending: Buffer[] = [];
  private pendingLines = 0;
  private fd = -1;
  private lastSave: number;
  private lastSync: number;
  /** Bytes of content.txt that hold content (a save a full disk cut short may have left more). */
  private savedBytes: number;
  private memoryOnly = false;
  private readonly stateFile: SessionStateFile;
  /** Warnings for the controller (a full disk). */
  readonly warnings: string[] = [];

  private constructor(
    private readonly ws: Workspace,
    readonly meta: SessionMeta,
    private state: SessionState,
  ) {
    this.lastSave = now(ws);
    this.lastSync = this.lastSave;
    this.savedBytes = state.bytes;
    this.stateFile = SessionStateFile.of(ws.ctx, ws.repo.shadowDir, meta.session_id);
  }

  /** Open a session for feeding (SESSION_NOT_FOUND when unknown, expired or failed). */
  static open(ws: Workspace, id: string): WriteSession {
    const cached = ws.sessions.get(id);
    if (cached instanceof WriteSession) {
      if (cached.meta.status === 'failed') throw notFound(id);
      if (cached.idleMs() > sessionSettings(ws).expireMs) {
        cached.discard();
        throw notFound(id);
      }
      return cached;
    }
    const meta = /^[0-9a-f-]{36}$/.test(id) ? readSessionMeta(ws.ctx, ws.repo.shadowDir, id) : undefined;
    if (!meta || meta.status === 'failed') throw notFound(id);
    const state = readSessionState(ws.ctx, ws.repo.shadowDir, id) ?? {
      bytes: 0,
      lines: 0,
      last_save: null,
      last_activity: meta.created_at,
      done: false,
      pid: null,
      host: null,
    };
    if (idleMs(ws, state, meta) > sessionSettings(ws).expireMs) {
      removeSessionFiles(ws.ctx, ws.repo.shadowDir, id);
      throw notFound(id);
    }
    // The content file is the truth about what was saved: state.json may lag it, or be torn by a crash.
    const bytes = savedSize(ws, id);
    const lines = bytes === state.bytes ? state.lines : savedLines(ws, id, bytes);
    const procs = ws.ctx.processes;
    const s = new WriteSession(ws, meta, {
      ...state,
      bytes,
      lines,
      pid: procs?.self ?? null,
      host: procs?.host ?? null,
      last_activity: iso(ws),
    });
    ws.sessions.set(id, s);
    return s;
  }

  get id(): string {
    return this.meta.session_id;
  }

  get done(): boolean {
    return this.state.done;
  }

  /** Bytes received so far (saved or not). */
  get bytes(): number {
    return this.state.bytes;
  }

  /** Complete lines received so far (saved or not). */
  get lines(): number {
    return this.state.lines;
  }

  private take(content: Buffer, lines: number): void {
    const max = this.ws.settings.maxContentBytes;
    // What the splitter holds back counts too, unless it may still turn out to be the DONE line.
    const size = this.state.bytes + content.length + (this.splitter.isDone ? 0 : this.splitter.heldContentBytes);
    if (size > max) {
      this.close();
      removeSessionFiles(this.ws.ctx, this.ws.repo.shadowDir, this.id);
      this.ws.sessions.delete(this.id);
      throw contentTooLarge(size, max);
    }
    // Kept as a view of the caller's chunk: push() copies what it does not save at once.
    if (content.length > 0) this.pending.push(content);
    this.state.bytes += content.length;
    this.state.lines += lines;
    this.pendingLines += lines;
    this.state.last_activity = iso(this.ws);
  }

  /** Feed a chunk. Returns true once `DONE` (or, for binary, nothing) has ended the content. */
  push(chunk: Buffer): boolean {
    if (this.state.done) return true;
    const borrowedFrom = this.pending.length;
    if (this.meta.binary) {
      this.take(chunk, 0);
    } else {
      const r = this.splitter.push(chunk);
      this.take(r.content, r.lines);
      if (r.done) this.state.done = true;
    }
    const settings = sessionSettings(this.ws);
    if (this.state.done) this.save(true);
    else if (this.pendingLines >= settings.saveLines || now(this.ws) - this.lastSave >= settings.saveMs) this.save();
    // What stays buffered is copied: the caller may reuse its chunk. (A save usually took it all.)
    for (let i = borrowedFrom; i < this.pending.length; i++) this.pending[i] = Buffer.from(this.pending[i]!);
    return this.state.done;
  }

  /** The end of the stream: what is held back is content (unless it is `DONE`). */
  end(): void {
    if (!this.state.done && !this.meta.binary) {
      const last = this.splitter.end();
      this.take(last.content, last.lines);
    }
    this.state.done = true;
    this.save(true);
  }

  /** Save when a save is due by time (a controller calls this on a timer). */
  saveIfDue(): void {
    const { saveMs } = sessionSettings(this.ws);
    const t = now(this.ws);
    const unsaved = this.pending.length > 0 && t - this.lastSave >= saveMs;
    const unsynced = this.lastSync < this.lastSave && t - this.lastSync >= saveMs;
    if (unsaved) this.save(true);
    else if (unsynced && this.fd !== -1 && !this.memoryOnly) {
      // What was written by line count reaches the disk; what is buffered waits for its own time.
      this.ws.ctx.fs.fsyncSync(this.fd);
      this.lastSync = t;
    }
  }

  /** Milliseconds since content last arrived. */
  idleMs(): number {
    return now(this.ws) - Date.parse(this.state.last_activity);
  }

  /**
   * Append what is buffered to content.txt and record the state. Every
   * save writes (a process that dies keeps it: the kernel has it); the
   * fsync comes with `sync`, which the end of the content and every
   * `saveMs` bring (a machine that dies keeps that). An fsync per 50 lines
   * would make a 10 MB stream cost 150 fsyncs.
   */
  save(sync = now(this.ws) - this.lastSync >= sessionSettings(this.ws).saveMs): void {
    const ctx = this.ws.ctx;
    const shadowDir = this.ws.repo.shadowDir;
    if (this.pending.length > 0 && !this.memoryOnly) {
      try {
        if (this.fd === -1) this.fd = ctx.fs.openSync(contentPath(shadowDir, this.id), 'a');
        let written = 0;
        for (const b of this.pending) {
          writeAll(ctx.fs, this.fd, b);
          written += b.length;
        }
        this.savedBytes += written;
        this.pending = [];
        this.pendingLines = 0;
      } catch (e) {
        if ((e as { code?: string }).code !== 'ENOSPC') throw e;
        // A full disk: keep the content in memory and say so. What the cut-short
        // save wrote past savedBytes is ignored: memory still holds all of it.
        this.memoryOnly = true;
        this.warnings.push(
          'the disk is full: the session continues in memory only, and a crash now would lose what is unsaved',
        );
      }
    }
    this.lastSave = now(this.ws);
    if (sync && this.fd !== -1 && !this.memoryOnly) {
      ctx.fs.fsyncSync(this.fd);
      this.lastSync = this.lastSave;
    }
    this.state.last_save = this.memoryOnly ? this.state.last_save : iso(this.ws);
    try {
      this.stateFile.write({ ...this.state, bytes: this.savedBytes, lines: this.state.lines - this.pendingLines });
    } catch (e) {
      if ((e as { code?: string }).code !== 'ENOSPC') throw e;
    }
  }

  /** The whole content: what was saved, then what only memory holds. */
  private content(): Buffer {
    const file = this.ws.ctx.fs.readFileSync(contentPath(this.ws.repo.shadowDir, this.id)) as Buffer;
    const onDisk = file.length > this.savedBytes ? file.subarray(0, this.savedBytes) : file;
    return this.pending.length > 0 ? Buffer.concat([onDisk, ...this.pending]) : onDisk;
  }

  /** Replace the content (a corrected resend at finalize). */
  replace(content: Buffer): void {
    this.close();
    this.pending = [];
    this.pendingLines = 0;
    this.savedBytes = 0;
    this.memoryOnly = false;
    this.splitter = new LineSplitter();
    this.state = { ...this.state, bytes: 0, lines: 0, done: false };
    this.ws.ctx.fs.writeFileSync(contentPath(this.ws.repo.shadowDir, this.id), '');
    this.push(content);
    this.end();
  }

  /**
   * Validate the content and commit it as one batch. A validation failure
   * keeps the session open for a corrected resend, up to 2 more times.
   */
  async finalize(): Promise<FinalizeResult> {
    if (!this.state.done) this.end();
    else this.save(true);
    const ws = this.ws;
    const meta = this.meta;
    // The content stays on disk: validated slice by slice and streamed into
    // the object database, never held whole. (Unless a full disk kept it in
    // memory: then it is in memory already.)
    const onDisk = !this.memoryOnly && this.pending.length === 0;
    const path = contentPath(ws.repo.shadowDir, this.id);
    const content: Buffer | SessionContent = onDisk
      ? {
          size: this.savedBytes,
          slices: () => contentSlices(ws.ctx, path, this.savedBytes),
          text: () => this.content().toString('utf8'),
        }
      : this.content();
    const target = this.targetNow();
    const current = target?.content;
    const exists = target !== undefined;
    const yaml = meta.target_file.match(/\.ya?ml$/i) ? await import('yaml') : undefined;
    const errors = validateSessionContent(
      { path: meta.target_file, operation: meta.operation, binary: meta.binary, exists },
      content,
      (kind, text) => {
        try {
          if (kind === 'json') JSON.parse(text);
          else yaml?.parse(text);
          return undefined;
        } catch (e) {
          return (e as Error).message.split('\n')[0];
        }
      },
    );
    if (errors.length > 0) return this.rejected(errors);
    const prefix = meta.operation === 'append' && current ? current : Buffer.alloc(0);
    // The target must still be what was validated and appended to when the
    // batch runs (another writer may have moved the draft while the content
    // was streamed): the write expects its blob, and a target created meanwhile
    // fails the create.
    const expect = target ? { expect: target.oid } : {};
    // Too large once appended: refused before anything is written (no pack left behind).
    const total = prefix.length + (Buffer.isBuffer(content) ? content.length : content.size);
    if (total > ws.settings.maxContentBytes)
      return this.rejected([contentTooLarge(total, ws.settings.maxContentBytes).message]);
    const write: FileOperation = Buffer.isBuffer(content)
      ? {
          operation: 'write',
          path: meta.target_file,
          content: '',
          bytes: prefix.length > 0 ? Buffer.concat([prefix, content]) : content,
          ...expect,
        }
      : {
          operation: 'write',
          path: meta.target_file,
          content: '',
          stored: await ws.repo.objects.writeBlobFromFile(path, this.savedBytes, prefix),
          ...expect,
        };
    if (!exists && this.targetNow() !== undefined) {
      return this.rejected([
        `${meta.target_file} was created by another writer while the content was committed; use operation "overwrite" or "append"`,
      ]);
    }
    const r = await runBatch(
      ws,
      {
        intent: meta.intent || `${meta.operation} ${meta.target_file}`,
        operations: [write],
      },
      { draft: meta.draft, actor: meta.actor, trailers: { session: meta.session_id }, allowEmpty: true },
    );
    if (!r.success) return this.rejected([r.error?.message ?? 'the batch failed'], r);
    this.discard();
    return { ...r, session_id: meta.session_id };
  }

  /** The target in the draft's view now: its content and blob id (undefined: it does not exist). */
  private targetNow(): { content: Buffer; oid: string } | undefined {
    try {
      return readViewFile(this.ws, this.meta.draft, this.meta.target_file);
    } catch (e) {
      if (e instanceof ShadowError && e.code === 'NOT_FOUND') return undefined;
      throw e;
    }
  }

  private rejected(errors: string[], batch?: BatchResult): FinalizeResult {
    const meta = { ...this.meta, attempts: this.meta.attempts + 1, errors };
    const left = Math.max(0, 3 - meta.attempts);
    if (left === 0) meta.status = 'failed';
    writeSessionMeta(this.ws.ctx, this.ws.repo.shadowDir, meta);
    Object.assign(this.meta, meta);
    if (left === 0) {
      this.close();
      this.ws.sessions.delete(this.id);
    }
    const message = `Validation failed: ${errors.join('; ')}`;
    return {
      success: false,
      results: batch?.results ?? [],
      error: {
        code: 'VALIDATION_FAILED',
        message,
        hint:
          left > 0
            ? `resend the corrected content (${left} attempt${left === 1 ? '' : 's'} left)`
            : 'the session has failed; begin a new one',
      },
      commit: null,
      batch: null,
      draft: this.meta.draft,
      session_id: this.id,
      validation_errors: errors,
      attempts_left: left,
    };
  }

  private close(): void {
    if (this.fd !== -1) this.ws.ctx.fs.closeSync(this.fd);
    this.fd = -1;
    this.stateFile.close();
  }

  /** Drop the session and its files. */
  discard(): void {
    this.close();
    removeSessionFiles(this.ws.ctx, this.ws.repo.shadowDir, this.id);
    this.ws.sessions.delete(this.id);
  }
}
