import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { ShadowError } from '../errors.js';
import { MODE, type Oid } from '../git/format/git-objects.js';
import { protectGlobs, splitProtectGlobs } from './protected-paths.js';
import type { PublishEntry } from '../drafts/publish-set/publish-set.js';
import { maskSecrets, RULES, scanAddedLines, type SecretFinding } from '../core/secret-scan.js';
import { findingPlace, scanPath } from './metadata-secrets.js';
import { reviewCacheOf } from '../state/review-cache.js';
import { draftPublishSet } from '../drafts/publish-set/draft-publish-set.js';
import type { Draft } from '../drafts/drafts.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * What a reviewer sees of a draft, and what it takes to apply it: the
 * unified diff of its publish set (paths sorted), the fingerprint that
 * approvals are bound to (`patchset:<sha256 of the diff bytes>`), and the
 * findings: secrets in added lines, protected paths, mass deletions.
 */

export type ApprovalKind = 'secrets_override' | 'protected_path' | 'mass_delete';

/** The policy apply is checked against: git config `shadow.*`, overridden by flags. */
export interface Policy {
  /** Globs of paths whose change needs a `protected_path` approval (the defaults included); `!glob` frees the paths it matches. */
  protect: string[];
  /** More deletions than this need a `mass_delete` approval. */
  maxDeletes: number;
  sandbox: 'read-only' | 'workspace-write';
}

export interface RequiredApproval {
  id: string;
  kind: ApprovalKind;
  fingerprint: string;
  reason: string;
  paths: string[];
  /**
   * Asked only by the apply that puts commits on the branch, `--commit` (the
   * draft's commits) or `--squash` (one new commit), or only by `shadow push`
   * (a checkpoint's tag, or commits only a checkpoint or the proposal holds).
   */
  when?: 'commit' | 'squash' | 'push';
  /** The draft commit the approval is for (then `fingerprint` is `commit:<oid>`). */
  commit?: Oid;
}

export interface Review {
  draft: string;
  tip: Oid;
  entries: PublishEntry[];
  patch_id: string;
  fingerprint: string;
  /** sha256 of each target's base content (null: absent). */
  base_sha256_by_path: Record<string, string | null>;
  secrets: SecretFinding[];
  protected: string[];
  deletions: number;
  /** Binary files the secret guard could not read. */
  unscanned: string[];
  required: RequiredApproval[];
}

/** A review with its text, for people. */
export interface ReviewWithDiff extends Review {
  /**
   * The unified diff, paths sorted, with every secret redacted (the
   * fingerprint is the hash of the diff as it really is).
   */
  diff: string;
}

/** The policy of the repository, with `overrides` (from flags) on top. */
export function readPolicy(ws: Workspace, overrides: Partial<Policy> = {}): Policy {
  const c = ws.repo.config;
  const sandbox = (overrides.sandbox ?? c.get('shadow.sandbox') ?? 'workspace-write').toLowerCase();
  if (sandbox !== 'read-only' && sandbox !== 'workspace-write') {
    throw new ShadowError(
      'INVALID_ARGUMENT',
      `shadow.sandbox is "${sandbox}"; it must be read-only or workspace-write`,
      {
        hint: 'git config shadow.sandbox workspace-write',
      },
    );
  }
  return {
    protect:
      overrides.protect ??
      protectGlobs(
        c.getAll('shadow.protect').flatMap((v) =>
          v
            .split(',')
            .map((g) => g.trim())
            .filter(Boolean),
        ),
        c.getBool('shadow.protectDefaults') ?? true,
      ),
    maxDeletes: overrides.maxDeletes ?? c.getInt('shadow.maxdeletes') ?? 50,
    sandbox,
  };
}

/** The deterministic id of an approval: the same draft content always asks for the same ids. */
export function approvalId(fingerprint: string, kind: ApprovalKind): string {
  return `ap-${createHash('sha256').update(`${fingerprint}\0${kind}`).digest('hex').slice(0, 10)}`;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

type Matcher = (path: string) => boolean;

function protectMatcher(globs: readonly string[]): Matcher {
  const { protect, except } = splitProtectGlobs(globs);
  if (protect.length === 0) return () => false;
  let match: Matcher | undefined;
  return (path) => {
    if (!match) {
      // picomatch loads, and the globs compile, only when a review has a path to judge.
      const picomatch = createRequire(import.meta.url)('picomatch') as typeof import('picomatch');
      // One regular expression for all the globs: V8 tries the alternatives natively, where one matcher
      // per glob costs a function call each (the defaults alone are some sixty globs).
      // Protection ignores case (a case-folding file system opens `.CLAUDE/settings.json` as `.claude/…`);
      // an exception frees only the case it names: in doubt, ask.
      const anyOf = (globs: string[], nocase: boolean): RegExp =>
        new RegExp(globs.map((g) => `(?:${picomatch.makeRe(g, { dot: true }).source})`).join('|'), nocase ? 'i' : '');
      const yes = anyOf(protect, true);
      const no = except.length > 0 ? anyOf(except, false) : undefined;
      match = (p) => yes.test(p) && !no?.test(p);
    }
    return match(path);
  };
}

/** What a draft's publish set shows, whatever the policy: the part of a review worth caching. */
interface Examination {
  /** The new contents, kept with a small examination (at most KEPT_BYTES) for the apply that follows a dry run. */
  kept?: Map<Oid, Buffer>;
  /** Absent when the examination came from the review cache on disk, which keeps no text. */
  diff?: string;
  patch_id: string;
  base_sha256_by_path: Record<string, string | null>;
  secrets: SecretFinding[];
  unscanned: string[];
}

/**
 * What an examination depends on besides the publish set, for the review
 * cache's key: the format of unified-diff.ts's text and the logic of the
 * secret scanner (bump the first part when either changes; the golden test
 * in review.test.ts fails when the text or the findings move), and the jsdiff
 * release (package.json pins it exactly, as fingerprints depend on its
 * algorithm; a test holds this to the installed one). The rules are hashed in.
 * Format 2: files past line-diff.ts's budget are diffed by patience diff.
 * Format 3: findings say `where`, and a path the change adds is scanned.
 */
export const EXAMINATION_FORMAT = '3; jsdiff 9.0.0';

const RULES_DIGEST = createHash('sha256')
  .update(
    JSON.stringify(RULES.map((r) => [r.id, r.description, r.pattern.source, r.pattern.flags, r.minEntropy ?? null])),
  )
  .digest('hex');

/** Everything a secret scan's result depends on besides the lines scanned: what a cache of scans is keyed by. */
export const SCAN_KEY = createHash('sha256').update(`${EXAMINATION_FORMAT}\0${RULES_DIGEST}`).digest('hex');

function examinationKey(setDigest: string): string {
  return createHash('sha256').update(`${EXAMINATION_FORMAT}\0${RULES_DIGEST}\0${setDigest}`).digest('hex');
}

const REVIEW_CACHE_ENTRIES = 4;
/** Publish sets from this size have their reviews saved on disk (a smaller one is examined faster than the file is written). */
const CACHE_REVIEWS_FROM = 32;
/** New blobs a review hands on to the apply that follows it, at most this many bytes. */
const HANDOFF_BYTES = 64 << 20;
/** New contents a cached examination keeps (a dry run, then the apply: the blobs are read once). */
const KEPT_BYTES = 1 << 20;

function publishSetDigest(entries: readonly PublishEntry[]): string {
  const h = createHash('sha256');
  for (const e of entries)
    h.update(`${e.path}\0${e.old?.mode ?? ''} ${e.old?.oid ?? ''}\0${e.new?.mode ?? ''} ${e.new?.oid ?? ''}\n`);
  return h.digest('hex');
}

async function examine(
  ws: Workspace,
  entries: readonly PublishEntry[],
  blobs?: Map<Oid, Buffer>,
  contents?: ReadonlyMap<Oid, Buffer>,
): Promise<Examination> {
  const { fileDiff } = await import('../git/format/unified-diff.js');
  const objects = ws.repo.objects;
  const read = (e: { mode: string; oid: Oid } | null): Buffer =>
    e && e.mode !== MODE.gitlink ? (contents?.get(e.oid) ?? objects.readBlob(e.oid)) : Buffer.alloc(0);
  const parts: string[] = [];
  const redactedParts: string[] = [];
  const secrets: SecretFinding[] = [];
  const unscanned: string[] = [];
  const base_sha256_by_path: Record<string, string | null> = {};
  let handed = 0;
  let kept: Map<Oid, Buffer> | undefined = new Map();
  let keptBytes = 0;
  for (const e of entries) {
    const oldContent = read(e.old);
    const newContent = read(e.new);
    if (blobs && e.new && handed + newContent.length <= HANDOFF_BYTES) {
      blobs.set(e.new.oid, newContent);
      handed += newContent.length;
    }
    if (kept && e.new) {
      keptBytes += newContent.length;
      if (keptBytes <= KEPT_BYTES) kept.set(e.new.oid, newContent);
      else kept = undefined;
    }
    // The fingerprint's form (unified-diff.ts): the patch is what the fingerprint hashes, so it does not follow
    // core.quotePath or how shadow shows a diff, and two clones, or two versions, of the same draft agree on it.
    const d = fileDiff({ path: e.path, old: e.old, new: e.new, oldContent, newContent, form: 'fingerprint' });
    parts.push(d.text);
    base_sha256_by_path[e.path] = e.old ? sha256(oldContent) : null;
    // A path the change adds is published like a line: a token in a file's name reaches the branch too.
    if (e.new && !e.old) secrets.push(...scanPath(e.path));
    if (d.binary && e.new) unscanned.push(e.path);
    else if (d.added.length > 0) secrets.push(...scanAddedLines(e.path, d.added));
    // Shown masked on every line, removed and context lines and headers too.
    redactedParts.push(maskSecrets(d.text));
  }
  return {
    kept,
    diff: redactedParts.join(''),
    patch_id: sha256(Buffer.from(parts.join(''), 'utf8')),
    base_sha256_by_path,
    secrets,
    unscanned,
  };
}

/**
 * The examination of a publish set: from this handle's memory, else from
 * the review cache on disk (unless the diff's text is wanted, which it does
 * not keep), else computed and saved there.
 */
async function examination(
  ws: Workspace,
  draft: Draft,
  entries: readonly PublishEntry[],
  withDiff: boolean,
  blobs?: Map<Oid, Buffer>,
  contents?: ReadonlyMap<Oid, Buffer>,
): Promise<Examination> {
  const key = examinationKey(publishSetDigest(entries));
  let exam = ws.reviewCache.get(key) as Examination | undefined;
  if (exam && (exam.diff !== undefined || !withDiff)) {
    ws.reviewCache.delete(key);
    if (blobs && exam.kept) for (const [oid, content] of exam.kept) blobs.set(oid, content);
  } else {
    const onDisk =
      entries.length >= CACHE_REVIEWS_FROM ? reviewCacheOf(ws.ctx, ws.repo.shadowDir, draft.name) : undefined;
    const saved = withDiff ? undefined : onDisk?.find(key);
    if (saved)
      exam = {
        patch_id: saved.patch_id,
        base_sha256_by_path: saved.base_sha256_by_path,
        secrets: saved.secrets,
        unscanned: saved.unscanned,
      };
    else {
      exam = await examine(ws, entries, blobs, contents);
      const { patch_id, base_sha256_by_path, secrets, unscanned } = exam;
      onDisk?.save({ key, patch_id, base_sha256_by_path, secrets, unscanned });
    }
    ws.reviewCache.delete(key);
    if (ws.reviewCache.size >= REVIEW_CACHE_ENTRIES) ws.reviewCache.delete(ws.reviewCache.keys().next().value!);
  }
  ws.reviewCache.set(key, exam);
  return exam;
}

/**
 * Review a draft against a policy: fingerprint, findings, and the approvals
 * apply needs. `blobs`, when given, receives the new contents the review
 * read (for the apply that follows, so each blob is read once).
 */
/**
 * The review of a draft's change set, or of the part of it `only` keeps (a
 * partial apply), or of `part`'s entries (a hunk apply: base + the chosen
 * hunks, whose new blobs `part.contents` holds): approvals bind to what is
 * reviewed, and the secret guard reads only what is written.
 */
export function reviewDraft(
  ws: Workspace,
  draft: Draft,
  policy: Policy,
  blobs?: Map<Oid, Buffer>,
  only?: (path: string) => boolean,
  part?: ReviewedPart,
): Promise<Review> {
  return review(ws, draft, policy, false, blobs, only, part);
}

/** What a hunk apply publishes, reviewed in place of the draft's change set. */
export interface ReviewedPart {
  entries: PublishEntry[];
  contents: ReadonlyMap<Oid, Buffer>;
}

/** `reviewDraft` with the diff's text (redacted), for `shadow review`. */
export async function reviewDraftWithDiff(ws: Workspace, draft: Draft, policy: Policy): Promise<ReviewWithDiff> {
  const r = await review(ws, draft, policy, true);
  return { ...r, diff: r.diff! };
}

async function review(
  ws: Workspace,
  draft: Draft,
  policy: Policy,
  withDiff: boolean,
  blobs?: Map<Oid, Buffer>,
  only?: (path: string) => boolean,
  part?: ReviewedPart,
): Promise<Review & { diff?: string }> {
  const all = part ? part.entries : draftPublishSet(ws, draft);
  const entries = only ? all.filter((e) => only(e.path)) : all;
  const exam = await examination(ws, draft, entries, withDiff, blobs, part?.contents);
  const { diff, patch_id } = exam;
  const base_sha256_by_path = { ...exam.base_sha256_by_path };
  const unscanned = [...exam.unscanned];
  const secrets = exam.secrets.map((s) => ({ ...s }));
  const fingerprint = `patchset:${patch_id}`;
  const isProtected = protectMatcher(policy.protect);
  const protectedPaths = entries.map((e) => e.path).filter(isProtected);
  const deletions = entries.filter((e) => e.new === null).length;
  const required: RequiredApproval[] = [];
  const need = (kind: ApprovalKind, reason: string, paths: string[]): void => {
    required.push({ id: approvalId(fingerprint, kind), kind, fingerprint, reason, paths });
  };
  if (secrets.length > 0) {
    const where = [...new Set(secrets.map(findingPlace))].slice(0, 5).join(', ');
    const inNames = secrets.some((s) => s.where === 'path');
    const what = inNames
      ? secrets.every((s) => s.where === 'path')
        ? 'in paths'
        : 'in added lines and paths'
      : 'in added lines';
    need('secrets_override', `${secrets.length} secret${secrets.length === 1 ? '' : 's'} ${what}: ${where}`, [
      ...new Set(secrets.map((s) => s.path)),
    ]);
  }
  if (protectedPaths.length > 0)
    need(
      'protected_path',
      `changes protected paths (shadow.protect and its defaults): ${protectedPaths.slice(0, 5).join(', ')}`,
      protectedPaths,
    );
  if (deletions > policy.maxDeletes) {
    need(
      'mass_delete',
      `deletes ${deletions} files (more than shadow.maxDeletes = ${policy.maxDeletes})`,
      entries.filter((e) => e.new === null).map((e) => e.path),
    );
  }
  return {
    draft: draft.name,
    tip: draft.tip,
    entries,
    ...(withDiff ? { diff } : {}),
    patch_id,
    fingerprint,
    base_sha256_by_path,
    secrets,
    protected: protectedPaths,
    deletions,
    unscanned,
    required,
  };
}
