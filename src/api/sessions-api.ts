import * as z from 'zod/mini';
import { ShadowError } from '../errors.js';
import {
  beginSession,
  cancelSession,
  listSessions,
  orphanedSessions,
  sessionSettings,
  sessionStatus,
  type SessionSettings,
  type BeginResult,
  type FinalizeResult,
  type SessionStatus,
} from '../sessions/session.js';
import type { Workspace } from '../drafts/workspace.js';
import { WriteSession } from '../sessions/write-session.js';
import { validate } from '../drafts/batch/batch-schema.js';

/**
 * Write sessions, as the library offers them: large content that travels as
 * plain text, never inside JSON. `begin` takes metadata only; `push` feeds
 * chunks (a line `DONE` ends the content); `finalize` validates and commits
 * it as one batch.
 */

export const BeginSchema = z.strictObject({
  intent: z.string().check(z.maxLength(10_000)),
  target_file: z.string().check(z.minLength(1)),
  operation: z.enum(['create', 'overwrite', 'append']),
  draft: z.optional(z.string()),
  binary: z.optional(z.boolean()),
});

export type BeginSessionInput = z.infer<typeof BeginSchema>;

export class Sessions {
  /** @internal Made by the handle: `sh.sessions`. */
  constructor(
    private readonly ws: Workspace,
    private readonly draftName: (draft?: string) => string,
    private readonly actor: (explicit?: string) => string,
  ) {}

  /**
   * Begin a session (exactly one of two concurrent begins on a draft wins).
   *
   * @example
   * const { session_id, instructions } = await sh.sessions.begin({ intent: 'guide', target_file: 'docs/guide.md', operation: 'create' });
   */
  async begin(input: BeginSessionInput, options: { actor?: string } = {}): Promise<BeginResult> {
    const v = validate(BeginSchema, input, 'INVALID_ARGUMENT', 'the session');
    return beginSession(this.ws, { ...v, draft: this.draftName(v.draft), actor: this.actor(options.actor) });
  }

  /** Feed a chunk; true once a `DONE` line ended the content. @example sh.sessions.push(id, Buffer.from('# Guide\n')) */
  push(id: string, chunk: Uint8Array): boolean {
    return WriteSession.open(this.ws, id).push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }

  /** The end of the stream (the last line needs no newline). */
  end(id: string): void {
    WriteSession.open(this.ws, id).end();
  }

  /** Save what is buffered now (controllers also save every few seconds). */
  save(id: string): void {
    WriteSession.open(this.ws, id).saveIfDue();
  }

  /**
   * Validate and commit. `content` replaces what was sent (a corrected
   * resend: up to 2 more tries after a failed validation).
   *
   * @example const r = await sh.sessions.finalize(id); r.success && r.commit
   */
  async finalize(id: string, content?: Uint8Array): Promise<FinalizeResult> {
    const s = WriteSession.open(this.ws, id);
    if (content !== undefined) s.replace(Buffer.from(content));
    return s.finalize();
  }

  /** @example sh.sessions.status(id).bytes */
  status(id: string): SessionStatus {
    return sessionStatus(this.ws, id);
  }

  /** Active and orphaned sessions, with age and bytes. */
  list(): SessionStatus[] {
    return listSessions(this.ws);
  }

  /** Drop a session and its files. */
  cancel(id: string): SessionStatus {
    return cancelSession(this.ws, id);
  }

  /** Sessions a crash left: under an hour old they are returned for resume or finalize; older ones are removed. */
  orphans(): { resumable: SessionStatus[]; cleaned: string[] } {
    return orphanedSessions(this.ws);
  }

  /** Remove expired, failed and old orphaned sessions now. */
  clean(): string[] {
    const { cleaned } = orphanedSessions(this.ws);
    for (const s of listSessions(this.ws)) {
      if (s.stage === 'failed') {
        cancelSession(this.ws, s.session_id);
        cleaned.push(s.session_id);
      }
    }
    return cleaned;
  }

  /** Save every session this process feeds whose save is due (a controller's timer). */
  saveAll(): void {
    for (const s of this.ws.sessions.values()) s.saveIfDue();
  }

  /** How often to save, when to prompt for DONE, when a session expires (git config `shadow.session*`). */
  settings(): SessionSettings {
    return sessionSettings(this.ws);
  }

  /** Warnings of a session fed in this process (a full disk). */
  warnings(id: string): string[] {
    const s = this.ws.sessions.get(id);
    if (!s) throw new ShadowError('SESSION_NOT_FOUND', 'Session not found or expired', { data: { session_id: id } });
    return [...s.warnings];
  }
}
