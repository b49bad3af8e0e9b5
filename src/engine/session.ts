import { ShadowError } from '../errors.js';
import { contentTooLarge } from '../core/content.js';
import { pathProblem } from '../core/path-rules.js';
import { LineSplitter, validateSessionContent } from '../core/session-content.js';
import { fsyncDir, writeAll } from '../store/durable-file.js';
import { createLockFile } from '../store/lock-file.js';
import {
  contentPath,
  listSessionIds,
  readSessionMeta,
  readSessionState,
  removeSessionFiles,
  sessionDir,
  sessionsDir,
  writeSessionMeta,
  writeSessionState,
  SessionStateFile,
  type SessionMeta,
  type SessionState,
} from '../store/session-files.js';
import { runBatch, type BatchResult } from './batch.js';
import { readViewFile } from './view.js';
import type { Workspace } from './workspace.js';

/**
 * Write sessions: large content that travels as plain text, outside any
 * JSON. `begin` takes metadata only; the content is pushed in chunks,
 * buffered, and saved to `content.txt` every N lines or T seconds; a line that
 * is exactly `DONE` ends it; `finalize` reads it back from disk, validates it
 * and commits it as one batch with a `Shadow-Session` trailer.
 */

export type SessionOperation = 'create' | 'overwrite' | 'append';

export const IDLE_PROMPT = "If you're finished, reply DONE on its own line; otherwise continue";

export interface SessionSettings {
  saveLines: number;
  saveMs: number;
  /** Active sessions allowed per draft. */
  maxPerDraft: number;
  /** Idle time after which a session expires. */
  expireMs: number;
  /** Idle time after which a controller prompts for DONE. */
  promptMs: number;
  /** Orphaned sessions older than this are cleaned up rather than offered for recovery. */
  orphanMaxAgeMs: number;
}

export function sessionSettings(ws: Workspace): SessionSettings {
  const c = ws.repo.config;
  return {
    saveLines: c.getInt('shadow.sessionsavelines') ?? 50,
    saveMs: c.getInt('shadow.sessionsavems') ?? 5000,
    maxPerDraft: c.getInt('shadow.maxsessions') ?? 1,
    expireMs: c.getInt('shadow.sessionidlems') ?? 5 * 60 * 1000,
    promptMs: c.getInt('shadow.sessionpromptms') ?? 2000,
    orphanMaxAgeMs: 60 * 60 * 1000,
  };
}

export interface BeginInput {
  intent: string;
  target_file: string;
  operation: SessionOperation;
  draft: string;
  actor: string;
  binary?: boolean;
}

export interface BeginResult {
  session_id: string;
  stage: 'awaiting_content';
  session_dir: string;
  instructions: string;
}

export interface SessionStatus {
  session_id: string;
  stage: 'awaiting_content' | 'done' | 'failed';
  intent: string;
  target_file: string;
  operation: SessionOperation;
  draft: string;
  binary: boolean;
  bytes: number;
  lines: number;
  created_at: string;
  last_save: string | null;
  age_ms: number;
  idle_ms: number;
  attempts: number;
  errors: string[];
  /** No live process feeds it: a crash left it (resume or finalize it with `shadow session recover`). */
  orphaned: boolean;
  /** Set once the session has been idle for the prompt delay. */
  prompt?: string;
}

export interface FinalizeResult extends BatchResult {
  session_id: string;
  /** Validation problems (the session stays open for a corrected resend). */
  validation_errors?: string[];
  attempts_left?: number;
}

function notFound(id: string): ShadowError {
  return new ShadowError('SESSION_NOT_FOUND', 'Session not found or expired', {
    hint: 'begin a new session; a session expires after 5 idle minutes',
    data: { session_id: id },
  });
}

function instructions(target: string, binary: boolean): string {
  return binary
    ? `Now send the bytes of ${target}; finalize the session when they are all sent.`
    : `Now output the content of ${target} as plain text, exactly as the file should read: no JSON, no code fence around it. End with DONE on its own line.`;
}

const now = (ws: Workspace): number => ws.ctx.clock.now();
const iso = (ws: Workspace): string => new Date(now(ws)).toISOString();

function idleMs(ws: Workspace, state: SessionState | undefined, meta: SessionMeta): number {
  return now(ws) - Date.parse(state?.last_activity ?? meta.created_at);
}

function isOrphaned(ws: Workspace, state: SessionState | undefined): boolean {
  const procs = ws.ctx.processes;
  if (!state?.pid || !procs) return true;
  if (state.host !== procs.host) return false;
  return state.pid !== procs.self && !procs.isAlive(state.pid);
}

/** Remove sessions idle past expiry (and their files). Returns their ids. */
export function expireSessions(ws: Workspace, settings = sessionSettings(ws)): string[] {
  const gone: string[] = [];
  for (const id of listSessionIds(ws.ctx, ws.repo.shadowDir)) {
    const live = ws.sessions.get(id);
    if (live) {
      // Fed by this process, but its client went away: it expires like any other.
      if (live.idleMs() > settings.expireMs) {
        live.discard();
        gone.push(id);
      }
      continue;
    }
    const meta = readSessionMeta(ws.ctx, ws.repo.shadowDir, id);
    const state = readSessionState(ws.ctx, ws.repo.shadowDir, id);
    if (!meta || idleMs(ws, state, meta) > settings.expireMs) {
      removeSessionFiles(ws.ctx, ws.repo.shadowDir, id);
      gone.push(id);
    }
  }
  return gone;
}

/** Bytes in a session's content file (what a crash keeps), 0 when it is missing. */
function savedSize(ws: Workspace, id: string): number {
  try {
    return ws.ctx.fs.statSync(contentPath(ws.repo.shadowDir, id)).size;
  } catch {
    return 0;
  }
}

/** Newlines in the first `bytes` bytes of a session's content file. */
function savedLines(ws: Workspace, id: string, bytes: number): number {
  if (bytes === 0) return 0;
  const content = (ws.ctx.fs.readFileSync(contentPath(ws.repo.shadowDir, id)) as Buffer).subarray(0, bytes);
  let n = 0;
  for (let i = content.indexOf(0x0a); i !== -1; i = content.indexOf(0x0a, i + 1)) n++;
  return n;
}

/** Begin a session: metadata only. Exactly one of two concurrent begins on a draft wins. */
export async function beginSession(ws: Workspace, input: BeginInput): Promise<BeginResult> {
  const problem = pathProblem(input.target_file);
  if (problem) throw new ShadowError('INVALID_PATH', `target_file "${input.target_file}": ${problem}`, { data: { target_file: input.target_file } });
  const settings = sessionSettings(ws);
  const shadowDir = ws.repo.shadowDir;
  ws.ctx.fs.mkdirSync(sessionsDir(shadowDir), { recursive: true });
  const lockFd = await createLockFile(ws.ctx, `${sessionsDir(shadowDir)}/begin`, ws.repo.lockTimeoutMs);
  ws.ctx.fs.closeSync(lockFd);
  try {
    expireSessions(ws, settings);
    const live = listSessionIds(ws.ctx, shadowDir)
      .map((id) => readSessionMeta(ws.ctx, shadowDir, id))
      .filter((m): m is SessionMeta => m !== undefined && m.status === 'awaiting_content' && m.draft === input.draft);
    if (live.some((m) => m.target_file === input.target_file) || live.length >= settings.maxPerDraft) {
      throw new ShadowError('SESSION_ACTIVE', 'Another write session is already active', {
        hint: 'finish or cancel it first (`shadow session list`), or raise shadow.maxSessions; two sessions never write one target',
        data: { active: live.map((m) => ({ session_id: m.session_id, target_file: m.target_file })) },
      });
    }
    const id = ws.ctx.ids.uuid();
    const meta: SessionMeta = {
      version: 1,
      session_id: id,
      intent: input.intent,
      target_file: input.target_file,
      operation: input.operation,
      draft: input.draft,
      actor: input.actor,
      binary: input.binary === true,
      created_at: iso(ws),
      attempts: 0,
      status: 'awaiting_content',
      errors: [],
    };
    ws.ctx.fs.mkdirSync(sessionDir(shadowDir, id), { recursive: true });
    ws.ctx.fs.writeFileSync(contentPath(shadowDir, id), '');
    writeSessionState(ws.ctx, shadowDir, id, { bytes: 0, lines: 0, last_save: null, last_activity: meta.created_at, done: false, pid: null, host: null });
    writeSessionMeta(ws.ctx, shadowDir, meta);
    fsyncDir(ws.ctx.fs, sessionsDir(shadowDir));
    return { session_id: id, stage: 'awaiting_content', session_dir: sessionDir(shadowDir, id), instructions: instructions(input.target_file, meta.binary) };
  } finally {
    try {
      ws.ctx.fs.unlinkSync(`${sessionsDir(shadowDir)}/begin.lock`);
    } catch {
      /* gone */
    }
  }
}

/**
 * A session being fed in this process: buffers in memory, saves to disk
 * every `saveLines` lines or `saveMs` milliseconds, and keeps the content in
 * memory (with a warning) when the disk is full.
 */
export class WriteSession {
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
    if (cached) {
      if (cached.meta.status === 'failed') throw notFound(id);
      if (cached.idleMs() > sessionSettings(ws).expireMs) {
        cached.discard();
        throw notFound(id);
      }
      return cached;
    }
    const meta = /^[0-9a-f-]{36}$/.test(id) ? readSessionMeta(ws.ctx, ws.repo.shadowDir, id) : undefined;
    if (!meta || meta.status === 'failed') throw notFound(id);
    const state = readSessionState(ws.ctx, ws.repo.shadowDir, id) ?? { bytes: 0, lines: 0, last_save: null, last_activity: meta.created_at, done: false, pid: null, host: null };
    if (idleMs(ws, state, meta) > sessionSettings(ws).expireMs) {
      removeSessionFiles(ws.ctx, ws.repo.shadowDir, id);
      throw notFound(id);
    }
    // The content file is the truth about what was saved: state.json may lag it, or be torn by a crash.
    const bytes = savedSize(ws, id);
    const lines = bytes === state.bytes ? state.lines : savedLines(ws, id, bytes);
    const procs = ws.ctx.processes;
    const s = new WriteSession(ws, meta, { ...state, bytes, lines, pid: procs?.self ?? null, host: procs?.host ?? null, last_activity: iso(ws) });
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
        this.warnings.push('the disk is full: the session continues in memory only, and a crash now would lose what is unsaved');
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
    const content = this.content();
    let exists = true;
    let current: Buffer | undefined;
    try {
      current = readViewFile(ws, meta.draft, meta.target_file).content;
    } catch (e) {
      if (!(e instanceof ShadowError && e.code === 'NOT_FOUND')) throw e;
      exists = false;
    }
    const yaml = meta.target_file.match(/\.ya?ml$/i) ? await import('yaml') : undefined;
    const errors = validateSessionContent({ path: meta.target_file, operation: meta.operation, binary: meta.binary, exists }, content, (kind, text) => {
      try {
        if (kind === 'json') JSON.parse(text);
        else yaml?.parse(text);
        return undefined;
      } catch (e) {
        return (e as Error).message.split('\n')[0];
      }
    });
    if (errors.length > 0) return this.rejected(errors);
    const bytes = meta.operation === 'append' && current ? Buffer.concat([current, content]) : content;
    const r = await runBatch(
      ws,
      {
        intent: meta.intent || `${meta.operation} ${meta.target_file}`,
        operations: [{ operation: 'write', path: meta.target_file, content: '', bytes }],
      },
      { draft: meta.draft, actor: meta.actor, trailers: { session: meta.session_id }, allowEmpty: true },
    );
    if (!r.success) return this.rejected([r.error?.message ?? 'the batch failed'], r);
    this.discard();
    return { ...r, session_id: meta.session_id };
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
      error: { code: 'VALIDATION_FAILED', message, hint: left > 0 ? `resend the corrected content (${left} attempt${left === 1 ? '' : 's'} left)` : 'the session has failed; begin a new one' },
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

/** The status of a session on disk (SESSION_NOT_FOUND when unknown or expired). */
export function sessionStatus(ws: Workspace, id: string): SessionStatus {
  const meta = /^[0-9a-f-]{36}$/.test(id) ? readSessionMeta(ws.ctx, ws.repo.shadowDir, id) : undefined;
  if (!meta) throw notFound(id);
  const live = ws.sessions.get(id);
  const state = readSessionState(ws.ctx, ws.repo.shadowDir, id);
  const settings = sessionSettings(ws);
  const idle = live ? live.idleMs() : idleMs(ws, state, meta);
  if (idle > settings.expireMs) {
    if (live) live.discard();
    else removeSessionFiles(ws.ctx, ws.repo.shadowDir, id);
    throw notFound(id);
  }
  // Not fed here: the content file says what was saved (state.json may lag it).
  const bytes = live ? live.bytes : savedSize(ws, id);
  const lines = live ? live.lines : bytes === state?.bytes ? state.lines : savedLines(ws, id, bytes);
  const s: SessionStatus = {
    session_id: id,
    stage: meta.status === 'failed' ? 'failed' : (live?.done ?? state?.done) ? 'done' : 'awaiting_content',
    intent: meta.intent,
    target_file: meta.target_file,
    operation: meta.operation,
    draft: meta.draft,
    binary: meta.binary,
    bytes,
    lines,
    created_at: meta.created_at,
    last_save: state?.last_save ?? null,
    age_ms: now(ws) - Date.parse(meta.created_at),
    idle_ms: idle,
    attempts: meta.attempts,
    errors: meta.errors,
    orphaned: !live && isOrphaned(ws, state),
  };
  if (idle >= settings.promptMs && s.stage === 'awaiting_content') s.prompt = IDLE_PROMPT;
  return s;
}

/** Every session on disk, with age and bytes (expired ones are removed on the way). */
export function listSessions(ws: Workspace): SessionStatus[] {
  expireSessions(ws);
  const out: SessionStatus[] = [];
  for (const id of listSessionIds(ws.ctx, ws.repo.shadowDir)) {
    try {
      out.push(sessionStatus(ws, id));
    } catch (e) {
      if (!(e instanceof ShadowError && e.code === 'SESSION_NOT_FOUND')) throw e;
    }
  }
  return out.sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
}

/** Cancel a session: drop it and its files. */
export function cancelSession(ws: Workspace, id: string): SessionStatus {
  const status = sessionStatus(ws, id);
  const live = ws.sessions.get(id);
  if (live) live.discard();
  else removeSessionFiles(ws.ctx, ws.repo.shadowDir, id);
  return status;
}

/**
 * Sessions a crash left (no live process feeds them): those under an hour old
 * are returned for resume or finalize; older ones are removed.
 */
export function orphanedSessions(ws: Workspace): { resumable: SessionStatus[]; cleaned: string[] } {
  const settings = sessionSettings(ws);
  const resumable: SessionStatus[] = [];
  const cleaned: string[] = [];
  for (const s of listSessions(ws)) {
    if (!s.orphaned) continue;
    if (s.age_ms > settings.orphanMaxAgeMs || s.stage === 'failed') {
      removeSessionFiles(ws.ctx, ws.repo.shadowDir, s.session_id);
      cleaned.push(s.session_id);
    } else {
      resumable.push(s);
    }
  }
  return { resumable, cleaned };
}
