import { ShadowError } from '../errors.js';
import { pathProblem } from '../core/path-rules.js';
import { ensureDir, fsyncDir, tryUnlink } from '../durable/durable-file.js';
import { createLockFile } from '../durable/lock-file.js';
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
  type SessionMeta,
  type SessionState,
} from '../state/session-files.js';
import type { BatchResult } from '../drafts/batch/batch.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * Write sessions: large content that travels as plain text, outside any
 * JSON. `begin` takes metadata only; the content is pushed in chunks,
 * buffered, and saved to `content.txt` every N lines or T seconds; a line that
 * is exactly `DONE` ends it; `finalize` reads it back from disk, validates it
 * and commits it as one batch with a `Shadow-Session` trailer. This file:
 * the settings, begin, and the sessions on disk (status, list, expiry,
 * orphans); write-session.ts: a session being fed.
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

export function notFound(id: string): ShadowError {
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

export const now = (ws: Workspace): number => ws.ctx.clock.now();
export const iso = (ws: Workspace): string => new Date(now(ws)).toISOString();

export function idleMs(ws: Workspace, state: SessionState | undefined, meta: SessionMeta): number {
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
export function savedSize(ws: Workspace, id: string): number {
  try {
    return ws.ctx.fs.statSync(contentPath(ws.repo.shadowDir, id)).size;
  } catch {
    return 0;
  }
}

/** Newlines in the first `bytes` bytes of a session's content file. */
export function savedLines(ws: Workspace, id: string, bytes: number): number {
  if (bytes === 0) return 0;
  const content = (ws.ctx.fs.readFileSync(contentPath(ws.repo.shadowDir, id)) as Buffer).subarray(0, bytes);
  let n = 0;
  for (let i = content.indexOf(0x0a); i !== -1; i = content.indexOf(0x0a, i + 1)) n++;
  return n;
}

/** Begin a session: metadata only. Exactly one of two concurrent begins on a draft wins. */
export async function beginSession(ws: Workspace, input: BeginInput): Promise<BeginResult> {
  const problem = pathProblem(input.target_file);
  if (problem)
    throw new ShadowError('INVALID_PATH', `target_file "${input.target_file}": ${problem}`, {
      data: { target_file: input.target_file },
    });
  const settings = sessionSettings(ws);
  const shadowDir = ws.repo.shadowDir;
  ensureDir(ws.ctx.fs, sessionsDir(shadowDir));
  const lock = await createLockFile(
    ws.ctx,
    `${sessionsDir(shadowDir)}/begin`,
    ws.repo.lockTimeoutMs,
    ws.repo.lockHolders,
  );
  ws.ctx.fs.closeSync(lock.fd);
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
    ensureDir(ws.ctx.fs, sessionDir(shadowDir, id));
    ws.ctx.fs.writeFileSync(contentPath(shadowDir, id), '');
    writeSessionState(ws.ctx, shadowDir, id, {
      bytes: 0,
      lines: 0,
      last_save: null,
      last_activity: meta.created_at,
      done: false,
      pid: null,
      host: null,
    });
    writeSessionMeta(ws.ctx, shadowDir, meta);
    fsyncDir(ws.ctx.fs, sessionsDir(shadowDir));
    return {
      session_id: id,
      stage: 'awaiting_content',
      session_dir: sessionDir(shadowDir, id),
      instructions: instructions(input.target_file, meta.binary),
    };
  } finally {
    tryUnlink(ws.ctx.fs, `${sessionsDir(shadowDir)}/begin.lock`);
    lock.forget();
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
