import { createRequire } from 'node:module';

/**
 * `.gitattributes` files, parsed and matched as git does (attr.c):
 * `pattern attr -attr !attr attr=value` lines, C-quoted patterns, `[attr]`
 * macros (with git's built-in `binary`), patterns without a slash matching
 * the base name at any depth below their file, and the highest-precedence
 * match deciding each attribute.
 */

/** An attribute's state: set, unset (`-a`), a value, or reset to unspecified (`!a`, null). */
export type AttrState = true | false | string | null;

interface AttrRule {
  matches: (path: string) => boolean;
  /** The line's attributes, in the order written. */
  states: Array<[string, AttrState]>;
}

/** One attributes file, parsed. */
export interface AttrFile {
  /** Directory the file sits in, relative to the root (`''` for the root or a file outside the tree). */
  dir: string;
  rules: AttrRule[];
  /** `[attr]name …` lines (kept only from files git lets define macros). */
  macros: Array<[string, Array<[string, AttrState]>]>;
}

/** git's own macro: `[attr]binary -diff -merge -text`. */
const BUILTIN_MACROS: Array<[string, Array<[string, AttrState]>]> = [
  [
    'binary',
    [
      ['diff', false],
      ['merge', false],
      ['text', false],
    ],
  ],
];

/** Unquote a C-style quoted pattern (`"a b\t.txt"`), as git's unquote_c_style. */
function unquote(s: string): string | undefined {
  let out = '';
  for (let i = 1; i < s.length; i++) {
    const c = s[i]!;
    if (c === '"') return out;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = s[++i];
    const simple: Record<string, string> = {
      a: '\x07',
      b: '\b',
      f: '\f',
      n: '\n',
      r: '\r',
      t: '\t',
      v: '\v',
      '\\': '\\',
      '"': '"',
    };
    if (n !== undefined && simple[n] !== undefined) out += simple[n];
    else if (n !== undefined && /[0-3]/.test(n)) {
      const oct = s.slice(i, i + 3);
      if (!/^[0-3][0-7]{2}$/.test(oct)) return undefined;
      out += String.fromCharCode(parseInt(oct, 8));
      i += 2;
    } else return undefined;
  }
  return undefined;
}

function parseState(word: string): [string, AttrState] | undefined {
  let name = word;
  let state: AttrState = true;
  if (word.startsWith('-')) {
    name = word.slice(1);
    state = false;
  } else if (word.startsWith('!')) {
    name = word.slice(1);
    state = null;
  } else {
    const eq = word.indexOf('=');
    if (eq !== -1) {
      name = word.slice(0, eq);
      state = word.slice(eq + 1);
    }
  }
  // git's attr_name_valid: no leading '-', letters, digits, '-', '_', '.'.
  if (!/^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/.test(name)) return undefined;
  return [name, state];
}

/** The matcher of one pattern of a file in `dir`. */
function matcherOf(pattern: string, dir: string, ignoreCase: boolean): ((path: string) => boolean) | undefined {
  // A trailing slash names a directory, and attributes are asked of files only.
  if (pattern.endsWith('/')) return undefined;
  // picomatch loads only when an attributes file has a rule: most batches never need it.
  const picomatch = createRequire(import.meta.url)('picomatch') as typeof import('picomatch');
  const options = {
    dot: true,
    nobrace: true,
    noextglob: true,
    nonegate: true,
    noquantifiers: true,
    nocase: ignoreCase,
  };
  const prefix = dir === '' ? '' : `${dir}/`;
  const within = (path: string): string | undefined =>
    path.startsWith(prefix) ? path.slice(prefix.length) : undefined;
  if (!pattern.includes('/')) {
    const m = picomatch(pattern, options);
    return (path) => {
      const rel = within(path);
      return rel !== undefined && m(rel.slice(rel.lastIndexOf('/') + 1));
    };
  }
  const m = picomatch(pattern.startsWith('/') ? pattern.slice(1) : pattern, options);
  return (path) => {
    const rel = within(path);
    return rel !== undefined && m(rel);
  };
}

/**
 * Parse one attributes file in directory `dir`. `macrosAllowed` is true for
 * the files git reads macros from (the root `.gitattributes`,
 * `info/attributes`, the global and system files).
 */
export function parseAttrFile(text: string, dir: string, macrosAllowed: boolean, ignoreCase = false): AttrFile {
  const file: AttrFile = { dir, rules: [], macros: [] };
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '').replace(/^[ \t]+/, '');
    if (line === '' || line.startsWith('#')) continue;
    let pattern: string;
    let rest: string;
    if (line.startsWith('"')) {
      const end = findClosingQuote(line);
      const p = end === -1 ? undefined : unquote(line.slice(0, end + 1));
      if (p === undefined) continue;
      pattern = p;
      rest = line.slice(end + 1);
    } else {
      const m = /^(\S+)(.*)$/.exec(line);
      if (!m) continue;
      pattern = m[1]!;
      rest = m[2]!;
    }
    const states: Array<[string, AttrState]> = [];
    for (const w of rest.split(/[ \t]+/)) {
      if (w === '') continue;
      const s = parseState(w);
      if (s) states.push(s);
    }
    if (pattern.startsWith('[attr]')) {
      if (macrosAllowed) file.macros.push([pattern.slice(6), states]);
      continue;
    }
    // Negative patterns are forbidden in attributes files; git ignores the line.
    if (pattern.startsWith('!')) continue;
    const matches = matcherOf(pattern, dir, ignoreCase);
    if (matches && states.length > 0) file.rules.push({ matches, states });
  }
  return file;
}

function findClosingQuote(line: string): number {
  for (let i = 1; i < line.length; i++) {
    if (line[i] === '\\') i++;
    else if (line[i] === '"') return i;
  }
  return -1;
}

/**
 * The values of the attributes `wanted` for `path`, from `files` in
 * ascending precedence (system, global, the `.gitattributes` from the root
 * down, `info/attributes`). As in git, the last matching line of the most
 * specific file decides each attribute, and a macro that is set brings its
 * own attributes at the same precedence. Unspecified attributes are absent.
 */
export function attributesOf(
  files: readonly AttrFile[],
  path: string,
  wanted: readonly string[],
): Map<string, AttrState> {
  const macros = new Map<string, Array<[string, AttrState]>>(BUILTIN_MACROS);
  for (const f of files) for (const [name, states] of f.macros) macros.set(name, states);
  const decided = new Map<string, AttrState>();
  const want = new Set(wanted);
  // Macros can set what was asked for: they must be filled as well.
  for (const [name, states] of macros) if (states.some(([n]) => want.has(n))) want.add(name);
  let left = want.size;
  const fill = (states: Array<[string, AttrState]>, depth: number): void => {
    for (let i = states.length - 1; i >= 0 && left > 0; i--) {
      const [name, state] = states[i]!;
      if (!want.has(name) || decided.has(name)) continue;
      decided.set(name, state);
      left--;
      const macro = macros.get(name);
      if (macro && state === true && depth < 8) fill(macro, depth + 1);
    }
  };
  for (let f = files.length - 1; f >= 0 && left > 0; f--) {
    const rules = files[f]!.rules;
    for (let r = rules.length - 1; r >= 0 && left > 0; r--) {
      if (rules[r]!.matches(path)) fill(rules[r]!.states, 0);
    }
  }
  const out = new Map<string, AttrState>();
  for (const name of wanted) {
    const v = decided.get(name);
    if (v !== undefined && v !== null) out.set(name, v);
  }
  return out;
}
