import { createRequire } from 'node:module';
import type { FileSystem } from '../context.js';
import { errnoCode, ShadowError } from '../errors.js';

/**
 * A reader of git's config files. Written here rather than taken from
 * isomorphic-git, whose config reader sees only the repository's own file:
 * shadow needs the global and system files (`user.name` is usually global)
 * and `include`/`includeIf`, as git resolves them.
 */

interface Entry {
  /** `section.key` or `section.subsection.key`; section and key lower-cased. */
  name: string;
  /** `null` for a key given without `=` (true as a boolean). */
  value: string | null;
}

export interface ConfigSources {
  fs: FileSystem;
  env: Readonly<Record<string, string | undefined>>;
  gitdir: string;
  commondir: string;
}

const MAX_INCLUDE_DEPTH = 10;

/** The merged configuration of a repository: system, global, local (and worktree). */
export class GitConfig {
  private readonly entries: Entry[] = [];

  /** A config holding exactly the given text (tests, tooling). */
  static fromText(text: string): GitConfig {
    const c = new GitConfig();
    c.entries.push(...parseConfig(text, '<text>'));
    return c;
  }

  /** Load every file git would read for this repository, in git's order. */
  static load(src: ConfigSources): GitConfig {
    const c = new GitConfig();
    const home = src.env.HOME;
    const files: string[] = [];
    if (!envBool(src.env.GIT_CONFIG_NOSYSTEM)) files.push(src.env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig');
    if (src.env.GIT_CONFIG_GLOBAL !== undefined) {
      files.push(src.env.GIT_CONFIG_GLOBAL);
    } else {
      const xdg = src.env.XDG_CONFIG_HOME ?? (home ? `${home}/.config` : undefined);
      if (xdg) files.push(`${xdg}/git/config`);
      if (home) files.push(`${home}/.gitconfig`);
    }
    for (const f of files) c.readFile(src, f, 0);
    c.readFile(src, `${src.commondir}/config`, 0);
    if (c.getBool('extensions.worktreeconfig') === true) c.readFile(src, `${src.gitdir}/config.worktree`, 0);
    return c;
  }

  private readFile(src: ConfigSources, file: string, depth: number): void {
    if (!file || file === '/dev/null') return;
    let text: string;
    try {
      text = src.fs.readFileSync(file, 'utf8') as string;
    } catch (e) {
      if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR' || errnoCode(e) === 'EACCES') return;
      throw e;
    }
    for (const entry of parseConfig(text, file)) {
      this.entries.push(entry);
      if (depth >= MAX_INCLUDE_DEPTH || entry.value === null) continue;
      const include = includeTarget(entry, src);
      if (include !== undefined) this.readFile(src, resolveIncludePath(include, file, src.env.HOME), depth + 1);
    }
  }

  /** The last value of `name` (`section.key` or `section.sub.key`), or undefined. */
  get(name: string): string | undefined {
    const key = normalizeName(name);
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i]!;
      if (e.name === key) return e.value ?? 'true';
    }
    return undefined;
  }

  /** Every value of a multi-valued `name`, in file order. */
  getAll(name: string): string[] {
    const key = normalizeName(name);
    return this.entries.filter((e) => e.name === key).map((e) => e.value ?? 'true');
  }

  /** A boolean the way git reads one; throws on a value git would reject. */
  getBool(name: string): boolean | undefined {
    const v = this.get(name);
    if (v === undefined) return undefined;
    const s = v.trim().toLowerCase();
    if (['true', 'yes', 'on', '1'].includes(s)) return true;
    if (['false', 'no', 'off', ''].includes(s)) return false;
    if (/^-?\d+[kmg]?$/.test(s)) return (this.getInt(name) ?? 0) !== 0;
    throw new ShadowError('INVALID_ARGUMENT', `bad boolean config value "${v}" for ${name}`, {
      hint: `set it with \`git config ${name} true\` or \`false\``,
    });
  }

  /** An integer with git's k/m/g suffixes; throws on a value git would reject. */
  getInt(name: string): number | undefined {
    const v = this.get(name);
    if (v === undefined) return undefined;
    const m = /^\s*(-?\d+)\s*([kmg]?)\s*$/i.exec(v);
    if (!m) {
      throw new ShadowError('INVALID_ARGUMENT', `bad numeric config value "${v}" for ${name}`, {
        hint: `set it with \`git config ${name} <number>\` (k, m and g suffixes allowed)`,
      });
    }
    const scale = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
    return Number(m[1]) * scale;
  }

  /** Every `section.key` name with a value (for the format check). */
  names(): string[] {
    return this.entries.map((e) => e.name);
  }
}

/** A boolean environment variable the way git reads one (unset or empty is false). */
function envBool(v: string | undefined): boolean {
  if (v === undefined) return false;
  const s = v.trim().toLowerCase();
  if (s === '' || s === 'false' || s === 'no' || s === 'off') return false;
  return /^-?\d+$/.test(s) ? Number(s) !== 0 : true;
}

/** `Section.Sub.Key` → `section.Sub.key`: section and key fold case, the subsection does not. */
function normalizeName(name: string): string {
  const first = name.indexOf('.');
  const last = name.lastIndexOf('.');
  if (first === -1) return name.toLowerCase();
  if (first === last) return name.toLowerCase();
  return `${name.slice(0, first).toLowerCase()}${name.slice(first, last)}.${name.slice(last + 1).toLowerCase()}`;
}

function includeTarget(entry: Entry, src: ConfigSources): string | undefined {
  if (entry.name === 'include.path') return entry.value ?? undefined;
  const m = /^includeif\.(.*)\.path$/.exec(entry.name);
  if (!m) return undefined;
  const cond = m[1]!;
  const gitdir = /^gitdir(\/i)?:(.*)$/.exec(cond);
  if (!gitdir) return undefined; // onbranch: and hasconfig: are not evaluated
  let pattern = gitdir[2]!;
  if (pattern.startsWith('~/') && src.env.HOME) pattern = src.env.HOME + pattern.slice(1);
  else if (!pattern.startsWith('/') && !pattern.startsWith('~')) pattern = `**/${pattern}`;
  if (pattern.endsWith('/')) pattern += '**';
  const dir = src.gitdir.endsWith('/') ? src.gitdir : `${src.gitdir}/`;
  // Loaded only for an includeIf: most configurations have none, and start-up counts.
  const picomatch = createRequire(import.meta.url)('picomatch') as typeof import('picomatch');
  const isMatch = picomatch(pattern, { dot: true, nocase: gitdir[1] !== undefined });
  return isMatch(dir) || isMatch(dir.slice(0, -1)) ? (entry.value ?? undefined) : undefined;
}

function resolveIncludePath(path: string, from: string, home: string | undefined): string {
  if (path.startsWith('~/') && home) return home + path.slice(1);
  if (path.startsWith('/')) return path;
  return `${from.slice(0, from.lastIndexOf('/'))}/${path}`;
}

/** Parse the text of one config file. Malformed lines are skipped, as shadow only reads. */
export function parseConfig(text: string, file: string): Entry[] {
  const out: Entry[] = [];
  let section = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    // skip whitespace and blank lines
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r' || text[i] === '\n')) i++;
    if (i >= n) break;
    const ch = text[i]!;
    if (ch === '#' || ch === ';') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (ch === '[') {
      const end = sectionHeaderEnd(text, i + 1);
      if (end === -1) break;
      section = parseSectionHeader(text.slice(i + 1, end));
      i = end + 1;
      continue;
    }
    // key [= value]
    let j = i;
    while (j < n && /[A-Za-z0-9-]/.test(text[j]!)) j++;
    const key = text.slice(i, j).toLowerCase();
    while (j < n && (text[j] === ' ' || text[j] === '\t')) j++;
    if (key === '' || !section) {
      while (j < n && text[j] !== '\n') j++;
      i = j;
      continue;
    }
    if (text[j] !== '=') {
      out.push({ name: `${section}.${key}`, value: null });
      while (j < n && text[j] !== '\n') j++;
      i = j;
      continue;
    }
    const [value, next] = parseValue(text, j + 1);
    out.push({ name: `${section}.${key}`, value });
    i = next;
  }
  void file;
  return out;
}

/** The index of the `]` that closes a section header (a quoted subsection may hold `]`). */
function sectionHeaderEnd(text: string, start: number): number {
  let quoted = false;
  for (let k = start; k < text.length; k++) {
    const c = text[k];
    if (c === '\n') return -1;
    if (quoted && c === '\\') k++;
    else if (c === '"') quoted = !quoted;
    else if (c === ']' && !quoted) return k;
  }
  return -1;
}

function parseSectionHeader(inner: string): string {
  const q = inner.indexOf('"');
  // [section], or the old [section.subsection] whose subsection git lower-cases
  if (q === -1) return inner.trim().toLowerCase();
  const name = inner.slice(0, q).trim().toLowerCase();
  let sub = '';
  for (let k = q + 1; k < inner.length; k++) {
    const c = inner[k]!;
    if (c === '\\' && k + 1 < inner.length) {
      sub += inner[++k];
      continue;
    }
    if (c === '"') break;
    sub += c;
  }
  return `${name}.${sub}`;
}

function parseValue(text: string, start: number): [string, number] {
  let out = '';
  let quoted = false;
  let pendingSpace = '';
  let i = start;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') break;
    if (c === '\r' && text[i + 1] === '\n') continue;
    if (!quoted && (c === '#' || c === ';')) {
      while (i < text.length && text[i] !== '\n') i++;
      break;
    }
    if (c === '\\') {
      const d = text[i + 1];
      i++;
      if (d === '\n') continue;
      if (d === '\r' && text[i + 1] === '\n') {
        i++;
        continue;
      }
      out += pendingSpace + ({ n: '\n', t: '\t', b: '\b', '"': '"', '\\': '\\' }[d ?? ''] ?? '');
      pendingSpace = '';
      continue;
    }
    if (c === '"') {
      out += pendingSpace;
      pendingSpace = '';
      quoted = !quoted;
      continue;
    }
    if (!quoted && (c === ' ' || c === '\t')) {
      pendingSpace += ' ';
      continue;
    }
    out += pendingSpace + c;
    pendingSpace = '';
  }
  return [out, i];
}
