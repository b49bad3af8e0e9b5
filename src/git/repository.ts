import type { Context } from '../context.js';
import { ShadowError } from '../errors.js';
import type { Signature } from './format/git-objects.js';
import { listDir, parentOf, readTextIfExists } from '../durable/durable-file.js';
import { GitConfig } from './git-config.js';
import { hasLinkExtension, readIndexVersion } from './index-file.js';
import { ObjectDatabase } from './object-db.js';
import type { ParsedObjects } from './object-caches.js';
import { RefStore } from './refs.js';

function lockHoldersDir(commondir: string): string {
  return `${commondir}/shadow/locks`;
}

/** Where a repository lives. */
export interface RepositoryLayout {
  /** This worktree's git dir (`.git`, or `.git/worktrees/<name>`). */
  gitdir: string;
  /** The common git dir, shared by all worktrees: objects, refs, shadow's files. */
  commondir: string;
  /** The working tree's root, or null for a bare repository. */
  worktree: string | null;
}

const DEFAULT_LOCK_TIMEOUT_MS = 5000;

function isDirectory(ctx: Context, path: string): boolean {
  try {
    return ctx.fs.statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(ctx: Context, path: string): boolean {
  try {
    return ctx.fs.statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A git dir has HEAD; objects and refs live in it or, for a linked worktree, in its common dir. */
function looksLikeGitDir(ctx: Context, dir: string): boolean {
  if (!isFile(ctx, `${dir}/HEAD`)) return false;
  const common = readTextIfExists(ctx.fs, `${dir}/commondir`);
  const base = common ? resolvePath(dir, common.trim()) : dir;
  return isDirectory(ctx, `${base}/objects`) && isDirectory(ctx, `${base}/refs`);
}

function resolvePath(base: string, p: string): string {
  const joined = p.startsWith('/') ? p : `${base}/${p}`;
  const out: string[] = [];
  for (const seg of joined.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return `/${out.join('/')}`;
}

/**
 * Find the repository that contains the absolute path `dir`, the way git
 * does: walking up to a `.git` directory or file, or a bare repository.
 */
export function discoverRepository(ctx: Context, dir: string): RepositoryLayout {
  if (ctx.env.GIT_DIR) {
    const gitdir = resolvePath(dir, ctx.env.GIT_DIR);
    if (!looksLikeGitDir(ctx, gitdir)) throw notARepository(dir);
    const wt = ctx.env.GIT_WORK_TREE ? resolvePath(dir, ctx.env.GIT_WORK_TREE) : dir;
    return withCommonDir(ctx, gitdir, wt);
  }
  let d = resolvePath('/', dir);
  for (;;) {
    const dotgit = `${d === '/' ? '' : d}/.git`;
    if (isDirectory(ctx, dotgit) && looksLikeGitDir(ctx, dotgit)) return withCommonDir(ctx, dotgit, d);
    if (isFile(ctx, dotgit)) {
      const text = readTextIfExists(ctx.fs, dotgit) ?? '';
      const m = /^gitdir:\s*(.+)$/m.exec(text);
      if (!m) throw notARepository(dir, `${dotgit} is a file without a "gitdir:" line`);
      const gitdir = resolvePath(d, m[1]!.trim());
      if (!looksLikeGitDir(ctx, gitdir))
        throw notARepository(dir, `${dotgit} points to ${gitdir}, which is not a git directory`);
      return withCommonDir(ctx, gitdir, d);
    }
    if (looksLikeGitDir(ctx, d)) {
      const wt = d.endsWith('/.git') ? parentOf(d) : null;
      return withCommonDir(ctx, d, wt);
    }
    if (d === '/') throw notARepository(dir);
    d = parentOf(d);
  }
}

/**
 * The working tree whose git dir is `gitdir`, for messages: a linked
 * worktree's git dir names its `.git` file in `gitdir`; the main one is the
 * parent of `.git`. The git dir itself when neither holds.
 */
export function worktreeOfGitDir(ctx: Context, gitdir: string): string {
  const dotgit = readTextIfExists(ctx.fs, `${gitdir}/gitdir`)?.trim();
  if (dotgit) return dotgit.endsWith('/.git') ? parentOf(dotgit) : dotgit;
  return gitdir.endsWith('/.git') ? parentOf(gitdir) : gitdir;
}

function withCommonDir(ctx: Context, gitdir: string, worktree: string | null): RepositoryLayout {
  const common = readTextIfExists(ctx.fs, `${gitdir}/commondir`);
  const commondir = common ? resolvePath(gitdir, common.trim()) : gitdir;
  return { gitdir, commondir, worktree };
}

function notARepository(dir: string, why?: string): ShadowError {
  return new ShadowError('NOT_A_REPOSITORY', `${dir} is not inside a git repository${why ? `: ${why}` : ''}`, {
    hint: 'run shadow inside a git repository, pass -C <dir>, or create one with `git init`',
    data: { dir },
  });
}

function unsupported(message: string, hint: string, data: Record<string, unknown> = {}): ShadowError {
  return new ShadowError('UNSUPPORTED_REPOSITORY', message, { hint, data });
}

const KNOWN_EXTENSIONS = new Set([
  'noop',
  'noop-v1',
  'preciousobjects',
  'partialclone',
  'worktreeconfig',
  'objectformat',
  'refstorage',
]);

/**
 * Refuse repositories shadow would read wrongly: SHA-256 objects, reftable
 * refs, unknown format extensions, an index in version 4 or split. A clear
 * "unsupported" beats a silent wrong result.
 */
export function checkFormat(ctx: Context, layout: RepositoryLayout, config: GitConfig): void {
  const version = config.getInt('core.repositoryformatversion') ?? 0;
  if (version > 1) {
    throw unsupported(`repository format version ${version} is not supported`, 'shadow reads format versions 0 and 1');
  }
  const objectFormat = (config.get('extensions.objectformat') ?? 'sha1').toLowerCase();
  if (objectFormat !== 'sha1') {
    throw unsupported(
      `this repository uses ${objectFormat} object ids; shadow supports SHA-1 repositories only`,
      'use shadow with a SHA-1 repository (the default of `git init`)',
      {
        objectFormat,
      },
    );
  }
  const refStorage = (config.get('extensions.refstorage') ?? 'files').toLowerCase();
  if (refStorage !== 'files') {
    throw unsupported(
      `this repository stores refs in ${refStorage}; shadow supports the files backend only`,
      'convert with `git refs migrate --ref-format=files`',
      { refStorage },
    );
  }
  if (version === 1) {
    for (const name of config.names()) {
      if (!name.startsWith('extensions.')) continue;
      const ext = name.slice('extensions.'.length);
      if (!KNOWN_EXTENSIONS.has(ext)) {
        throw unsupported(
          `this repository needs the extension "${ext}", which shadow does not know`,
          `upgrade shadow; if git no longer needs the extension, remove it with \`git config --unset extensions.${ext}\``,
          { extension: ext },
        );
      }
    }
  }
  if (layout.worktree === null) return;
  const indexPath = `${layout.gitdir}/index`;
  const header = readIndexVersion(ctx.fs, indexPath);
  const splitHint = 'turn it off with `git update-index --no-split-index` and `git config core.splitIndex false`';
  if (config.getBool('core.splitindex') === true) {
    throw unsupported('this repository uses a split index (core.splitIndex), which shadow does not support', splitHint);
  }
  if (header === undefined) return;
  if (header.signature !== 'DIRC') {
    throw unsupported(
      'the index file is not a git index',
      'inspect it with `git status`; `git read-tree HEAD` rebuilds it',
    );
  }
  if (header.version === 4) {
    throw unsupported(
      'the index is in version 4, which shadow does not support',
      'rewrite it with `git update-index --index-version 3`',
      { indexVersion: 4 },
    );
  }
  if (header.version !== 2 && header.version !== 3) {
    throw unsupported(
      `index version ${header.version} is not supported`,
      'rewrite it with `git update-index --index-version 3`',
      { indexVersion: header.version },
    );
  }
  // A shared index file may outlive the split index that used it; only the
  // index's own link extension says the index is split now.
  if (
    listDir(ctx.fs, layout.gitdir).some((n) => n.startsWith('sharedindex.')) &&
    hasLinkExtension(ctx.fs.readFileSync(indexPath) as Buffer)
  ) {
    throw unsupported('this repository uses a split index, which shadow does not support', splitHint);
  }
}

/** An open repository: its layout, config, objects and refs. */
export class Repository {
  readonly objects: ObjectDatabase;
  readonly refs: RefStore;
  /** How long to wait for a lock git or another shadow holds (`shadow.lockTimeout`). */
  readonly lockTimeoutMs: number;

  private constructor(
    readonly ctx: Context,
    readonly layout: RepositoryLayout,
    readonly config: GitConfig,
    parsed?: ParsedObjects,
  ) {
    const precious = config.getBool('extensions.preciousobjects') === true;
    this.objects = new ObjectDatabase(
      ctx,
      `${layout.commondir}/objects`,
      precious ? undefined : `${layout.commondir}/shadow/packs.list`,
      parsed,
    );
    this.lockTimeoutMs = config.getInt('shadow.locktimeout') ?? DEFAULT_LOCK_TIMEOUT_MS;
    this.refs = new RefStore(
      ctx,
      layout.gitdir,
      layout.commondir,
      this.lockTimeoutMs,
      lockHoldersDir(layout.commondir),
    );
  }

  /**
   * Open the repository containing `dir` (absolute), after checking its
   * format; `parsed` gives the parsed-object caches to use for its common
   * git dir (shared with other handles), when given.
   */
  static open(ctx: Context, dir: string, parsed?: (commondir: string) => ParsedObjects): Repository {
    const layout = discoverRepository(ctx, dir);
    const config = GitConfig.load({ fs: ctx.fs, env: ctx.env, gitdir: layout.gitdir, commondir: layout.commondir });
    if (config.getBool('core.bare') === true) layout.worktree = null;
    checkFormat(ctx, layout, config);
    return new Repository(ctx, layout, config, parsed?.(layout.commondir));
  }

  /** shadow's own directory inside the common git dir. */
  get shadowDir(): string {
    return `${this.layout.commondir}/shadow`;
  }

  /** Where the holders of shadow's git-format locks are recorded (see lock-holders.ts). */
  get lockHolders(): string {
    return lockHoldersDir(this.layout.commondir);
  }

  /** The committer identity: git's `user.name`/`user.email` (or GIT_COMMITTER_*), else shadow. */
  committer(): Signature {
    const env = this.ctx.env;
    const now = this.ctx.clock.now();
    return {
      name: env.GIT_COMMITTER_NAME ?? this.config.get('user.name') ?? 'shadow',
      email: env.GIT_COMMITTER_EMAIL ?? this.config.get('user.email') ?? 'shadow@localhost',
      timestamp: Math.floor(now / 1000),
      tzOffset: this.ctx.clock.tzOffsetMinutes(now),
    };
  }

  /** The identity of an actor: the user's own email when the actor is the user. */
  actorSignature(actor: string): Signature {
    const c = this.committer();
    const user = this.config.get('user.name');
    if (actor === user || actor === c.name) return { ...c, name: actor };
    const slug =
      actor
        .toLowerCase()
        .replace(/[^a-z0-9._-]+/g, '-')
        .replace(/^-+|-+$/g, '') || 'actor';
    return { ...c, name: actor, email: `${slug}@shadow.invalid` };
  }

  close(): void {
    this.objects.close();
  }
}
