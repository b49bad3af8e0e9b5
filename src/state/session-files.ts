import * as z from 'zod/mini';
import type { Context } from '../context.js';
import { errnoCode } from '../errors.js';
import { listDir, tryUnlink, writeFileAtomic } from '../durable/durable-file.js';
import { readJsonFile } from '../durable/json-file.js';

/**
 * A write session on disk: `shadow/sessions/<id>/` with `metadata.json`
 * (what it writes, durable), `content.txt` (the content, appended and
 * fsynced at each save) and `state.json` (bytes, lines, last save, the
 * process feeding it).
 */

export const SessionMetaSchema = z.object({
  version: z.literal(1),
  session_id: z.string(),
  intent: z.string(),
  target_file: z.string(),
  operation: z.enum(['create', 'overwrite', 'append']),
  draft: z.string(),
  actor: z.string(),
  binary: z.boolean(),
  created_at: z.string(),
  /** Finalize attempts that failed validation. */
  attempts: z.number(),
  status: z.enum(['awaiting_content', 'failed']),
  errors: z.array(z.string()),
});

export const SessionStateSchema = z.object({
  bytes: z.number(),
  lines: z.number(),
  last_save: z.nullable(z.string()),
  last_activity: z.string(),
  /** True once a DONE line (or the end of the stream) ended the content. */
  done: z.boolean(),
  pid: z.nullable(z.number()),
  host: z.nullable(z.string()),
});

export type SessionMeta = z.infer<typeof SessionMetaSchema>;
export type SessionState = z.infer<typeof SessionStateSchema>;

export function sessionsDir(shadowDir: string): string {
  return `${shadowDir}/sessions`;
}

export function sessionDir(shadowDir: string, id: string): string {
  return `${sessionsDir(shadowDir)}/${id}`;
}

export function readSessionMeta(ctx: Context, shadowDir: string, id: string): SessionMeta | undefined {
  return readJsonFile(ctx.fs, `${sessionDir(shadowDir, id)}/metadata.json`, SessionMetaSchema);
}

export function readSessionState(ctx: Context, shadowDir: string, id: string): SessionState | undefined {
  return readJsonFile(ctx.fs, `${sessionDir(shadowDir, id)}/state.json`, SessionStateSchema);
}

export function writeSessionMeta(ctx: Context, shadowDir: string, meta: SessionMeta): void {
  writeFileAtomic(
    ctx.fs,
    `${sessionDir(shadowDir, meta.session_id)}/metadata.json`,
    `${JSON.stringify(meta, null, 1)}\n`,
    { token: ctx.ids.token(), durable: true },
  );
}

export function writeSessionState(ctx: Context, shadowDir: string, id: string, state: SessionState): void {
  writeFileAtomic(ctx.fs, `${sessionDir(shadowDir, id)}/state.json`, stateText(state), {
    token: ctx.ids.token(),
    durable: false,
  });
}

/** state.json's text, padded to a fixed size so that rewriting it in place never leaves a longer old tail. */
function stateText(state: SessionState): string {
  const json = JSON.stringify(state);
  return `${json.padEnd(STATE_SIZE - 1, ' ')}\n`;
}

const STATE_SIZE = 512;

/**
 * state.json rewritten in place through one open descriptor: a save costs a
 * write, not a temporary file and a rename (half a millisecond each on some
 * disks, for every 50 lines). A write torn by a crash leaves JSON that does
 * not parse, which readers treat as missing: content.txt is the truth about
 * what was saved, and state.json only its summary.
 */
export class SessionStateFile {
  private fd = -1;

  constructor(
    private readonly ctx: Context,
    private readonly path: string,
  ) {}

  static of(ctx: Context, shadowDir: string, id: string): SessionStateFile {
    return new SessionStateFile(ctx, `${sessionDir(shadowDir, id)}/state.json`);
  }

  write(state: SessionState): void {
    const text = Buffer.from(stateText(state), 'utf8');
    if (text.length > STATE_SIZE) {
      // Longer than the slot (a very long host name): replace the file whole.
      this.close();
      writeFileAtomic(this.ctx.fs, this.path, text, { token: this.ctx.ids.token(), durable: false });
      return;
    }
    if (this.fd === -1) this.fd = this.ctx.fs.openSync(this.path, 'r+');
    let off = 0;
    while (off < text.length) off += this.ctx.fs.writeSync(this.fd, text, off, text.length - off, off);
  }

  close(): void {
    if (this.fd !== -1) this.ctx.fs.closeSync(this.fd);
    this.fd = -1;
  }
}

/** Ids of every session directory. */
export function listSessionIds(ctx: Context, shadowDir: string): string[] {
  return listDir(ctx.fs, sessionsDir(shadowDir)).filter((n) => /^[0-9a-f-]{36}$/.test(n));
}

export function contentPath(shadowDir: string, id: string): string {
  return `${sessionDir(shadowDir, id)}/content.txt`;
}

/**
 * Remove a session's files and directory: `metadata.json` first, which is
 * what makes a session exist, so that a process killed among the removals
 * leaves a session that is gone (the rest is an orphan directory cleaned
 * later), never one that is there without its content.
 */
export function removeSessionFiles(ctx: Context, shadowDir: string, id: string): void {
  const dir = sessionDir(shadowDir, id);
  tryUnlink(ctx.fs, `${dir}/metadata.json`);
  for (const name of listDir(ctx.fs, dir)) tryUnlink(ctx.fs, `${dir}/${name}`);
  try {
    ctx.fs.rmdirSync(dir);
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw e;
  }
}

const SLICE = 1 << 20;

/**
 * The first `length` bytes of a session's content file, in slices that end
 * at the end of a line (the last may not), read into one reused buffer: a
 * slice is valid until the next is asked for. A line longer than the buffer
 * grows it.
 */
export function* contentSlices(ctx: Context, path: string, length: number): Generator<Buffer> {
  const fd = ctx.fs.openSync(path, 'r');
  try {
    let buf = Buffer.allocUnsafe(Math.min(SLICE, Math.max(1, length)));
    let held = 0; // bytes of an unfinished line at the start of buf
    for (let at = 0; at < length;) {
      if (held === buf.length) {
        const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, length));
        buf.copy(bigger, 0, 0, held);
        buf = bigger;
      }
      const n = ctx.fs.readSync(fd, buf, held, Math.min(buf.length - held, length - at), at);
      if (n === 0) throw new Error(`${path} ended at byte ${at} of ${length}`);
      at += n;
      const filled = held + n;
      const cut = at === length ? filled : buf.lastIndexOf(0x0a, filled - 1) + 1;
      if (cut === 0) {
        held = filled;
        continue;
      }
      yield buf.subarray(0, cut);
      buf.copy(buf, 0, cut, filled);
      held = filled - cut;
    }
  } finally {
    ctx.fs.closeSync(fd);
  }
}
