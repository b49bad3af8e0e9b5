import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { ShadowError } from '../../src/index.js';
import type { AgentSetup, ConfigFile } from './agent-specs.js';
import { addToJson, removeFromJson } from './json-config.js';
import { addToToml, removeFromToml } from './toml-config.js';

/**
 * The files `shadow init` changes, planned before anything is written (so
 * `--print` and a config that does not parse write nothing), and a record of
 * what they held before, so that `--remove` puts back the very bytes. The
 * record lives in the git directory (`shadow/agents/`), never in the
 * project; a file changed since shadow wrote it loses only shadow's entries.
 */

export type Change = 'create' | 'update' | 'unchanged' | 'delete' | 'restore';

export interface PlannedFile {
  /** As the config names it: relative to the project's root. */
  path: string;
  abs: string;
  before: Buffer | null;
  /** null: the file goes. */
  after: Buffer | null;
  change: Change;
}

interface FileRecord {
  abs: string;
  existed: boolean;
  /** base64 of the bytes before the first init, while shadow's writes are the only changes since. */
  before?: string;
  /** sha256 of what shadow last wrote. */
  after: string;
}

export interface InitRecord {
  version: 1;
  agent: string;
  root: string;
  files: FileRecord[];
  /** Directories init made, outermost first: removed again when empty. */
  dirs: string[];
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

export function recordPath(commondir: string, agent: string, root: string): string {
  // One record per agent and working tree: linked worktrees share the common dir.
  return join(commondir, 'shadow', 'agents', `${agent}-${sha256(Buffer.from(root)).slice(0, 12)}.json`);
}

export function readRecord(path: string): InitRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as InitRecord;
    return r.version === 1 && Array.isArray(r.files) && Array.isArray(r.dirs) ? r : undefined;
  } catch {
    // None, or unreadable: --remove then takes shadow's entries out by name.
    return undefined;
  }
}

function readConfig(abs: string, path: string): Buffer | null {
  if (!existsSync(abs)) return null;
  if (!statSync(abs).isFile())
    throw new ShadowError('NOT_A_FILE', `${path} is not a file; nothing was written`, { data: { path } });
  return readFileSync(abs);
}

function text(path: string, bytes: Buffer, format: ConfigFile['format']): string {
  const s = bytes.toString('utf8');
  // Decoding would put U+FFFD where the bytes were: the file written back would differ in them.
  if (!Buffer.from(s, 'utf8').equals(bytes)) {
    throw new ShadowError(
      'INVALID_CONFIG',
      `${path} is not valid ${format.toUpperCase()}: it is not UTF-8; nothing was written`,
      { hint: `save ${path} as UTF-8`, data: { path } },
    );
  }
  return s;
}

/** What init would write: every file parsed and merged first, so that nothing is written when one fails. */
export function planInit(setup: AgentSetup, root: string, force: boolean): PlannedFile[] {
  return setup.files.map((file) => {
    const abs = join(root, file.path);
    const before = readConfig(abs, file.path);
    const current = before === null ? null : text(file.path, before, file.format);
    const merged =
      file.format === 'json'
        ? addToJson(file.path, current, file.edits, force)
        : addToToml(file.path, current, file.edits, force);
    if (merged === null) return { path: file.path, abs, before, after: before, change: 'unchanged' };
    return { path: file.path, abs, before, after: Buffer.from(merged), change: before === null ? 'create' : 'update' };
  });
}

/** What --remove would write: the recorded bytes where shadow's write is still the file, else the file without shadow's entries. */
export function planRemove(setup: AgentSetup, root: string, record: InitRecord | undefined): PlannedFile[] {
  return setup.files.map((file) => {
    const abs = join(root, file.path);
    const before = readConfig(abs, file.path);
    const unchanged: PlannedFile = { path: file.path, abs, before, after: before, change: 'unchanged' };
    if (before === null) return unchanged;
    const rec = record?.files.find((f) => f.abs === abs);
    if (rec && sha256(before) === rec.after) {
      if (!rec.existed) return { ...unchanged, after: null, change: 'delete' };
      if (rec.before !== undefined)
        return { ...unchanged, after: Buffer.from(rec.before, 'base64'), change: 'restore' };
    }
    const current = text(file.path, before, file.format);
    const out =
      file.format === 'json'
        ? removeFromJson(file.path, current, file.edits)
        : removeFromToml(file.path, current, file.edits);
    if (out === null) return unchanged;
    if (out.empty && rec && !rec.existed) return { ...unchanged, after: null, change: 'delete' };
    return { ...unchanged, after: Buffer.from(out.text), change: 'update' };
  });
}

/** Replace a file in one step (a temporary file renamed over it), keeping its mode. */
function writeAtomic(abs: string, bytes: Buffer, mode: number | undefined): void {
  const tmp = `${abs}.shadow-${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  if (mode !== undefined) chmodSync(tmp, mode & 0o7777);
  renameSync(tmp, abs);
}

function writeRecord(path: string, record: InitRecord): void {
  mkdirSync(dirname(path), { recursive: true });
  writeAtomic(path, Buffer.from(`${JSON.stringify(record, null, 2)}\n`), undefined);
}

/** Directories from `root` down to `dir` that do not exist yet, outermost first. */
function missingDirs(root: string, dir: string): string[] {
  const out: string[] = [];
  for (let d = dir; d.length > root.length && !existsSync(d); d = dirname(d)) out.unshift(d);
  return out;
}

export function applyInit(
  planned: readonly PlannedFile[],
  setup: AgentSetup,
  root: string,
  recordFile: string,
  record: InitRecord | undefined,
): void {
  const changed = planned.filter((p) => p.change === 'create' || p.change === 'update');
  if (changed.length === 0) return;
  const next: InitRecord = record
    ? structuredClone(record)
    : { version: 1, agent: setup.agent, root, files: [], dirs: [] };
  const made: string[] = [];
  for (const p of changed) {
    for (const d of missingDirs(root, dirname(p.abs))) if (!made.includes(d)) made.push(d);
    const prev = next.files.find((f) => f.abs === p.abs);
    if (!prev) {
      next.files.push({
        abs: p.abs,
        existed: p.before !== null,
        ...(p.before ? { before: p.before.toString('base64') } : {}),
        after: sha256(p.after!),
      });
      continue;
    }
    // Changed by someone else since shadow wrote it: the old bytes would drop that change.
    if (p.before === null || sha256(p.before) !== prev.after) delete prev.before;
    if (p.before === null) prev.existed = false;
    prev.after = sha256(p.after!);
  }
  next.dirs.push(...made.filter((d) => !next.dirs.includes(d)));
  // The record first: a write cut short leaves what --remove needs.
  writeRecord(recordFile, next);
  for (const d of made) mkdirSync(d);
  for (const p of changed) writeAtomic(p.abs, p.after!, p.before === null ? undefined : statSync(p.abs).mode);
}

export function applyRemove(planned: readonly PlannedFile[], recordFile: string, record: InitRecord | undefined): void {
  for (const p of planned) {
    if (p.change === 'delete') unlinkSync(p.abs);
    else if (p.change === 'restore' || p.change === 'update') writeAtomic(p.abs, p.after!, statSync(p.abs).mode);
  }
  for (const d of [...(record?.dirs ?? [])].reverse()) {
    try {
      rmdirSync(d);
    } catch {
      // Not empty (the person's files, or another agent's): it stays.
    }
  }
  if (existsSync(recordFile)) unlinkSync(recordFile);
}
