import { ShadowError } from '../../src/errors.js';
import type { ColourWhen } from './diff-colour.js';

/**
 * The words of `shadow diff` that take git's forms, which yargs would split
 * or misread: `-M50%` (a value glued to a short option), `-M` before a
 * range (a flag that must not take the next word), `--color[=<when>]`,
 * `--stat[=<width>,...]`, `-U<n>`, `--diff-filter=<letters>` and git's other
 * diff options shadow takes. The command passes them through unparsed
 * (unknown-options-as-args) and they are read here, git's way.
 */
export interface DiffWords {
  /** The range: `A..B`, `A` (A to the tip), or two points `A B` (as `A..B`). */
  range?: string;
  /** The points as typed, for the error that suggests `--`. */
  points: string[];
  /** `-M`: true, or a minimum similarity in percent. */
  renames?: boolean | number;
  color?: ColourWhen;
  pager?: boolean;
  /** `--stat`, with the widths of `--stat=<width>[,<name-width>[,<count>]]` and `--stat-*=<n>`. */
  stat?: StatWords;
  numstat?: boolean;
  shortstat?: boolean;
  nameOnly?: boolean;
  /** `-U<n>`, `--unified=<n>`: lines of context. */
  context?: number;
  /** `--abbrev=<n>`: the ids of `index` lines at least this long (git clamps it to 4..40). */
  abbrev?: number;
  /** `--full-index`: whole ids on `index` lines, whatever `--abbrev` says (as git). */
  fullIndex?: boolean;
  /** `--src-prefix=`, `--dst-prefix=` (`--no-prefix`: both empty, `--default-prefix`: `a/`, `b/`). */
  src?: string;
  dst?: string;
  /** `--exit-code`: exit 1 when there is a change; `--quiet`: that, printing nothing. */
  exitCode?: boolean;
  quiet?: boolean;
  /** `-R`: the two sides swapped. */
  reverse?: boolean;
  /** `-z`: paths as they are, each field of --name-only, --name-status and --numstat ended by a NUL. */
  nul?: boolean;
  /** `--diff-filter=<letters>`: the change classes kept. */
  filter?: DiffFilter;
}

const usage = (message: string, hint: string): ShadowError => new ShadowError('USAGE', message, { hint });

export interface DiffFilter {
  classes: ReadonlySet<string>;
  allOrNone: boolean;
}

/** The change classes `--diff-filter` names, as git's diff_status_letters. */
const STATUS_LETTERS = 'ACDMRTUXB';

/**
 * git's --diff-filter: upper-case letters add a change class, lower-case
 * ones take it away, from nothing or, when the first letter is lower-case,
 * from every class; `*` (all or none) keeps every path when any path is of
 * a class kept, else none.
 */
function diffFilter(text: string): DiffFilter {
  const classes = new Set<string>(/^[a-z]/.test(text) ? STATUS_LETTERS : '');
  let allOrNone = false;
  for (const ch of text) {
    if (ch === '*') allOrNone = true;
    else if (STATUS_LETTERS.includes(ch)) classes.add(ch);
    else if (STATUS_LETTERS.includes(ch.toUpperCase())) classes.delete(ch.toUpperCase());
    else
      throw usage(
        `unknown change class '${ch}' in --diff-filter=${text}`,
        'A added, C copied, D deleted, M modified, R renamed, T type changed, U unmerged; lower case leaves them out; * all or none',
      );
  }
  return { classes, allOrNone };
}

/** What `--diff-filter` keeps of `files` (see diffFilter). */
export function filterStatuses<F extends { status: string }>(files: readonly F[], filter: DiffFilter): F[] {
  if (filter.allOrNone) return files.some((f) => filter.classes.has(f.status)) ? [...files] : [];
  return files.filter((f) => filter.classes.has(f.status));
}

/** What `--stat` and its width options say (absent: git's defaults). */
export interface StatWords {
  width?: number;
  nameWidth?: number;
  graphWidth?: number;
  count?: number;
}

/** A number of `--stat`'s, as git reads them (digits only). */
function statNumber(option: string, text: string): number {
  if (!/^\d+$/.test(text))
    throw usage(
      `${option} expects a number, not "${text}"`,
      'shadow diff --stat=<width>[,<name-width>[,<count>]], or --stat-width=<n>, --stat-name-width=<n>, --stat-graph-width=<n>, --stat-count=<n>',
    );
  return Number(text);
}

/** `--stat` and `--stat-*` words into `out.stat`; false for any other word. */
function readStatWord(w: string, out: DiffWords): boolean {
  if (w === '--stat') {
    out.stat ??= {};
    return true;
  }
  if (w.startsWith('--stat=')) {
    const [width, name, count, ...rest] = w.slice('--stat='.length).split(',');
    if (rest.length > 0)
      throw usage(`--stat takes at most three numbers: ${w}`, 'shadow diff --stat=<width>[,<name-width>[,<count>]]');
    const stat: StatWords = { ...out.stat };
    if (width !== undefined && width !== '') stat.width = statNumber('--stat', width);
    if (name !== undefined && name !== '') stat.nameWidth = statNumber('--stat', name);
    if (count !== undefined && count !== '') stat.count = statNumber('--stat', count);
    out.stat = stat;
    return true;
  }
  const m = /^--stat-(width|name-width|graph-width|count)=(.*)$/.exec(w);
  if (!m) return false;
  const key = ({ width: 'width', 'name-width': 'nameWidth', 'graph-width': 'graphWidth', count: 'count' } as const)[
    m[1] as 'width' | 'name-width' | 'graph-width' | 'count'
  ];
  out.stat = { ...out.stat, [key]: statNumber(`--stat-${m[1]}`, m[2]!) };
  return true;
}

/**
 * git's parse_rename_score, as a percentage: digits are a fraction (`5` is
 * 50%, `05` 5%, `.5` 50%) unless a `%` ends them (`50%`); undefined when
 * anything else follows.
 */
export function renamePercent(text: string): number | undefined {
  let num = 0;
  let scale = 1;
  let dot = false;
  let i = 0;
  for (; i < text.length; i++) {
    const ch = text[i]!;
    if (!dot && ch === '.') {
      scale = 1;
      dot = true;
    } else if (ch === '%') {
      scale = dot ? scale * 100 : 100;
      i++;
      break;
    } else if (ch >= '0' && ch <= '9') {
      if (scale < 100000) {
        scale *= 10;
        num = num * 10 + Number(ch);
      }
    } else break;
  }
  if (i < text.length) return undefined;
  return num >= scale ? 100 : (num * 100) / scale;
}

/** Read the passed-through words of `shadow diff`. */
export function parseDiffWords(words: readonly string[]): DiffWords {
  const out: DiffWords = { points: [] };
  for (const w of words) {
    const renames = /^(?:-M|--find-renames(?:=|$))(.*)$/.exec(w);
    if (renames) {
      const percent = renamePercent(renames[1]!);
      if (percent === undefined)
        throw usage(
          `invalid argument to -M: "${renames[1]}"`,
          'a minimum similarity: -M (50%), -M90%, -M9 (90%), --find-renames=90%',
        );
      out.renames = percent === 0 ? true : percent;
    } else if (w === '--no-renames') out.renames = false;
    else if (w === '--color') out.color = 'always';
    else if (w === '--no-color') out.color = 'never';
    else if (w.startsWith('--color=')) {
      const when = w.slice('--color='.length);
      if (when !== 'always' && when !== 'never' && when !== 'auto') {
        throw usage(
          `--color takes always, never or auto, not "${when}"`,
          'shadow diff --color=always (or --color), --color=never (or --no-color), --color=auto',
        );
      }
      out.color = when;
    } else if (w === '--no-pager') out.pager = false;
    else if (w === '--numstat') out.numstat = true;
    else if (w === '--shortstat') out.shortstat = true;
    else if (w === '--name-only') out.nameOnly = true;
    else if (w === '-z') out.nul = true;
    else if (w === '-R') out.reverse = true;
    else if (w === '--exit-code') out.exitCode = true;
    else if (w === '--quiet') out.quiet = true;
    else if (w === '--no-prefix') out.src = out.dst = '';
    else if (w === '--default-prefix') {
      out.src = 'a/';
      out.dst = 'b/';
    } else if (w.startsWith('--src-prefix=')) out.src = w.slice('--src-prefix='.length);
    else if (w.startsWith('--dst-prefix=')) out.dst = w.slice('--dst-prefix='.length);
    else if (w.startsWith('--diff-filter=')) out.filter = diffFilter(w.slice('--diff-filter='.length));
    else if (/^(?:-U|--unified=)/.test(w)) {
      const n = w.replace(/^(?:-U|--unified=)/, '');
      if (!/^\d+$/.test(n))
        throw usage(
          `${w.startsWith('-U') ? '-U' : '--unified'} expects a number of lines, not "${n}"`,
          'shadow diff -U0, -U10, --unified=5',
        );
      out.context = Number(n);
    } else if (w === '--full-index') out.fullIndex = true;
    else if (w === '--abbrev') out.abbrev = undefined;
    else if (w.startsWith('--abbrev=')) {
      const n = w.slice('--abbrev='.length);
      if (!/^\d+$/.test(n))
        throw usage(`--abbrev expects a number of hex digits, not "${n}"`, 'shadow diff --abbrev=12, --full-index');
      out.abbrev = Math.min(40, Math.max(4, Number(n)));
    } else if (readStatWord(w, out)) continue;
    else if (w.startsWith('-'))
      throw usage(
        `unknown option ${w} for shadow diff`,
        'run `shadow diff --help`; paths go after --: shadow diff -- <path>',
      );
    else out.points.push(w);
  }
  if (out.points.length > 2) {
    const points = out.points.join(' ');
    throw usage(
      `shadow diff takes at most two points, got ${out.points.length}: ${points}`,
      `paths go after --: shadow diff -- ${points}`,
    );
  }
  if (out.points.length === 1) out.range = out.points[0];
  if (out.points.length === 2) out.range = `${out.points[0]}..${out.points[1]}`;
  return out;
}
