import type { Context } from '../context.js';
import { blobOid } from './format/git-objects.js';
import { ShadowError } from '../errors.js';
import {
  blobHasCrlfText,
  eolAction,
  eolToGit,
  eolToWorktree,
  type AttrValue,
  type EolAction,
  type EolConfig,
} from './format/eol.js';
import type { AttrState } from './format/gitattributes.js';
import type { Oid } from './format/git-objects.js';
import type { AttributeFiles } from './attribute-files.js';
import type { GitConfig } from './git-config.js';

/** How one path crosses between the working tree and git. */
export interface PathForm {
  eol: EolAction;
  /** A filter driver, `ident` or `working-tree-encoding`: git itself converts the path. */
  viaGit: string | undefined;
}

const PLAIN: PathForm = { eol: 'binary', viaGit: undefined };
const WANTED = ['text', 'crlf', 'eol', 'ident', 'filter', 'working-tree-encoding'] as const;

/** The objects the conversions read and check. */
export interface FormObjects {
  has(oid: Oid): boolean;
  readBlob(oid: Oid): Buffer;
}

function attr(v: AttrState | undefined): AttrValue {
  return v === null ? undefined : v;
}

/** core.autocrlf and core.eol, as git reads them. */
export function eolConfigOf(config: GitConfig): EolConfig {
  const raw = config.get('core.autocrlf')?.toLowerCase();
  const autocrlf = raw === 'input' ? 'input' : (config.getBool('core.autocrlf') ?? false);
  const eol = config.get('core.eol')?.toLowerCase();
  return { autocrlf, eol: eol === 'crlf' ? 'crlf' : eol === 'lf' ? 'lf' : 'native' };
}

/**
 * The two forms of a file, as git converts between them: working tree →
 * blob as `git add` does (clean), blob → working tree as `git checkout`
 * does (smudge). End-of-line conversion runs here, in process (every file
 * of a repository with `* text=auto` or core.autocrlf crosses it); a path
 * with a filter driver, `ident` or `working-tree-encoding` goes through git
 * itself (`git hash-object --path`, `git cat-file --filters`), which runs
 * `clean`/`smudge` commands and `process` drivers (git-lfs) exactly as git
 * does, `required` included. A path with no attribute and no config that
 * converts costs one lookup of cached attribute files: no read, no spawn.
 */
export class WorktreeForm {
  private readonly eolConfig: EolConfig;
  /** Paths answered since `renew`: a batch asks about the same path several times. */
  private readonly forms = new Map<string, PathForm>();

  constructor(
    private readonly ctx: Context,
    private readonly worktree: string,
    private readonly config: GitConfig,
    private readonly attributes: AttributeFiles,
    private readonly objects: FormObjects,
    /** The blob git's index holds at a path (for `text=auto`'s "CRLF already in the index" rule). */
    private readonly indexBlob: (path: string) => Oid | undefined,
  ) {
    this.eolConfig = eolConfigOf(config);
  }

  /** Start another use (a batch): attribute files are looked at again. */
  renew(): void {
    this.forms.clear();
    this.attributes.renew();
  }

  /** What converts `path`. */
  formOf(path: string): PathForm {
    const known = this.forms.get(path);
    if (known) return known;
    const a = this.attributes.of(path, WANTED);
    let viaGit: string | undefined;
    const filter = a.get('filter');
    if (typeof filter === 'string' && this.driverConfigured(filter)) viaGit = `filter=${filter}`;
    else if (a.get('ident') === true) viaGit = 'ident';
    else if (typeof a.get('working-tree-encoding') === 'string')
      viaGit = `working-tree-encoding=${String(a.get('working-tree-encoding'))}`;
    const eol = eolAction(
      { text: attr(a.get('text')), crlf: attr(a.get('crlf')), eol: attr(a.get('eol')) },
      this.eolConfig,
    );
    const form = eol === 'binary' && viaGit === undefined ? PLAIN : { eol, viaGit };
    this.forms.set(path, form);
    return form;
  }

  /**
   * The `diff` attribute of `path`: false for `-diff` (and the `binary`
   * macro), true for `diff`, a driver's name for `diff=<driver>`, undefined
   * when unspecified.
   */
  diffAttribute(path: string): AttrState | undefined {
    return this.attributes.of(path, ['diff']).get('diff');
  }

  /** A driver git would run: one with a command, or one marked required (git then fails without one). */
  private driverConfigured(name: string): boolean {
    const c = this.config;
    const key = `filter.${name}`;
    return (
      ['clean', 'smudge', 'process'].some((k) => (c.get(`${key}.${k}`) ?? '') !== '') ||
      c.getBool(`${key}.required`) === true
    );
  }

  /** True when `path`'s working-tree bytes are its blob's: nothing converts it. */
  plain(path: string): boolean {
    return this.formOf(path) === PLAIN;
  }

  /** Working tree → blob, as `git add` stores `bytes` at `path`. */
  toBlob(path: string, bytes: Buffer): Buffer {
    const form = this.formOf(path);
    if (form === PLAIN) return bytes;
    if (form.viaGit !== undefined) {
      const oid = this.git(path, form, ['hash-object', '-w', '--stdin', `--path=${path}`], bytes)
        .toString('utf8')
        .trim();
      return this.objects.readBlob(oid);
    }
    return eolToGit(bytes, form.eol, () => {
      const oid = this.indexBlob(path);
      return oid !== undefined && this.objects.has(oid) && blobHasCrlfText(this.objects.readBlob(oid));
    });
  }

  /** Blob → working tree, as `git checkout` writes `blob` at `path`. */
  toWorktree(path: string, blob: Buffer): Buffer {
    const form = this.formOf(path);
    if (form === PLAIN) return blob;
    if (form.viaGit !== undefined) {
      const oid = blobOid(blob);
      // A blob made in this batch is not in the object database yet: git needs it there.
      if (!this.objects.has(oid)) this.git(path, form, ['hash-object', '-w', '--stdin', '--no-filters'], blob);
      return this.git(path, form, ['cat-file', '--filters', `--path=${path}`, oid]);
    }
    return eolToWorktree(blob, form.eol, this.eolConfig);
  }

  private git(path: string, form: PathForm, args: string[], input?: Buffer): Buffer {
    const runner = this.ctx.git;
    if (!runner) {
      throw new ShadowError(
        'FILTER_FAILED',
        `${path} needs git to convert it (${form.viaGit}), and git cannot be run here`,
        {
          hint: 'run shadow where git is on the PATH',
          data: { path, attribute: form.viaGit },
        },
      );
    }
    const r = runner.run(['-c', 'core.fsync=loose-object', ...args], { cwd: this.worktree, env: this.ctx.env, input });
    if (r.status !== 0) {
      const why = r.stderr.trim().split('\n').slice(-3).join('; ') || `git exited with ${r.status}`;
      throw new ShadowError('FILTER_FAILED', `git could not convert ${path} (${form.viaGit}): ${why}`, {
        hint: 'check the filter driver in git config (`git config --get-regexp ^filter\\.`) and that it runs on this file',
        data: { path, attribute: form.viaGit, status: r.status },
      });
    }
    return r.stdout;
  }
}
