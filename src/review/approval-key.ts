/**
 * The repository's approval key: 32 random bytes in
 * `<git common dir>/shadow/approval.key` (mode 0600), made by the first
 * decision taken here. Every approve or deny made here carries an
 * HMAC-SHA256 of its id, kind, fingerprint, decision, actor, identity and
 * time under this key (`data.mac`). The key never travels: no push, snapshot
 * or ledger holds it, so a decision whose MAC verifies was made in this
 * repository, whatever else its ledger says. Anyone who can write the
 * ledger's JSON can re-chain it, copy a decision from another machine or
 * write one under the person's name; none of them can write a MAC that
 * verifies here.
 *
 * The key is random bytes from node:crypto, not from the context's ids:
 * those are made predictable in tests, and a predictable key is no key.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { errnoCode, ShadowError } from '../errors.js';
import { ensureDir, fsyncDir, readTextIfExists, tryUnlink, writeAll } from '../durable/durable-file.js';
import type { Workspace } from '../drafts/workspace.js';

/** The fields of a decision its MAC (and its signature) covers. */
export interface DecisionFields {
  id: string;
  kind: string;
  fingerprint: string;
  decision: string;
  actor: string;
  identity: string;
  ts: string;
}

const KEY = /^[0-9a-f]{64}$/;

/** Where the key is kept. */
export function approvalKeyPath(ws: Workspace): string {
  return `${ws.repo.shadowDir}/approval.key`;
}

/** This repository's key; undefined when no decision was ever made here, null when the file holds no key. */
function keyFile(ws: Workspace): Buffer | undefined | null {
  const text = readTextIfExists(ws.ctx.fs, approvalKeyPath(ws))?.trim();
  if (text === undefined) return undefined;
  return KEY.test(text) ? Buffer.from(text, 'hex') : null;
}

/** This repository's key, or undefined when no decision was ever made here (or the file holds no key: none verifies). */
export function readApprovalKey(ws: Workspace): Buffer | undefined {
  return keyFile(ws) ?? undefined;
}

function corruptKey(ws: Workspace): ShadowError {
  const path = approvalKeyPath(ws);
  return new ShadowError('CORRUPT_STATE', `${path} holds no approval key (64 hex digits): nothing was recorded`, {
    hint: `remove ${path}; the next decision makes a new key, and decisions made here before it must be made again`,
    data: { path },
  });
}

/**
 * This repository's key, made now when there is none. Made by a hard link
 * of a fsynced temporary file, which fails when the key exists: two
 * processes deciding at once end with one key, and both use it.
 */
export function ensureApprovalKey(ws: Workspace): Buffer {
  const existing = keyFile(ws);
  if (existing === null) throw corruptKey(ws);
  if (existing) return existing;
  const fs = ws.ctx.fs;
  const path = approvalKeyPath(ws);
  ensureDir(fs, ws.repo.shadowDir);
  const tmp = `${path}.tmp-${ws.ctx.ids.token()}`;
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    writeAll(fs, fd, Buffer.from(`${randomBytes(32).toString('hex')}\n`, 'utf8'));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(tmp, path);
  } catch (e) {
    if (errnoCode(e) !== 'EEXIST') throw e;
  } finally {
    tryUnlink(fs, tmp);
  }
  fsyncDir(fs, ws.repo.shadowDir);
  const key = keyFile(ws);
  if (!key) throw corruptKey(ws);
  return key;
}

/** The text a decision's MAC and signature cover: one field a line, each value as a JSON string (pure). */
export function decisionText(f: DecisionFields & { draft?: string }): string {
  const fields: Array<[string, string | undefined]> = [
    ['draft', f.draft],
    ['id', f.id],
    ['kind', f.kind],
    ['fingerprint', f.fingerprint],
    ['decision', f.decision],
    ['actor', f.actor],
    ['identity', f.identity],
    ['ts', f.ts],
  ];
  return `shadow approval decision v1\n${fields
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} ${JSON.stringify(v)}\n`)
    .join('')}`;
}

/** The MAC of a decision under `key` (hex; pure). */
export function decisionMac(key: Buffer, f: DecisionFields): string {
  // The draft's name is left out: a pull or an import renames a draft; the fingerprint names what was decided.
  const { id, kind, fingerprint, decision, actor, identity, ts } = f;
  const text = decisionText({ id, kind, fingerprint, decision, actor, identity, ts });
  return createHmac('sha256', key).update(text).digest('hex');
}

/** Whether `mac` is the MAC of the decision under `key` (constant time; pure). */
export function macMatches(key: Buffer, f: DecisionFields, mac: unknown): boolean {
  if (typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return false;
  return timingSafeEqual(Buffer.from(decisionMac(key, f), 'hex'), Buffer.from(mac, 'hex'));
}
