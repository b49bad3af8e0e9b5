import { cQuote, type DiffFile } from '../../src/index.js';
import { plural } from '../output.js';
import { colourStatGraph, statAdded, statRemoved } from './diff-colour.js';
import { statLayout, type StatOptions } from './stat-layout.js';

/**
 * `--name-status` lines: `M\tpath`, a rename as git writes it, `R086\told\tnew`;
 * paths quoted as git quotes them. With `-z` (`nul`), as git's -z: every
 * field ended by a NUL, paths as they are.
 */
export function nameStatusText(files: readonly DiffFile[], quotePath = true, nul = false): string {
  const q = (p: string): string => (nul ? p : cQuote(p, quotePath));
  const fields = (f: DiffFile): string[] =>
    f.status === 'R'
      ? [`R${String(f.similarity ?? 100).padStart(3, '0')}`, q(f.from ?? f.path), q(f.path)]
      : [f.status, q(f.path)];
  return nul
    ? files
        .map((f) =>
          fields(f)
            .map((x) => `${x}\0`)
            .join(''),
        )
        .join('')
    : files.map((f) => fields(f).join('\t')).join('\n');
}

/**
 * A rename's name in `--stat` as git's pprint_rename writes it: the parts
 * the two paths share, up to a `/`, outside braces (`src/{a.ts => b.ts}`);
 * both whole when either must be quoted (`"caf\303\251" => cafe`).
 */
export function renameName(a: string, b: string, quotePath = true): string {
  const qa = cQuote(a, quotePath);
  const qb = cQuote(b, quotePath);
  if (qa !== a || qb !== b) return `${qa} => ${qb}`;
  let pfx = 0;
  for (let i = 0; i < a.length && i < b.length && a[i] === b[i]; i++) if (a[i] === '/') pfx = i + 1;
  let sfx = 0;
  const adjust = pfx > 0 ? 1 : 0;
  for (let ia = a.length, ib = b.length; pfx - adjust <= ia && pfx - adjust <= ib && a[ia] === b[ib]; ia--, ib--) {
    if (a[ia] === '/') sfx = a.length - ia;
  }
  const midA = a.slice(pfx, Math.max(pfx, a.length - sfx));
  const midB = b.slice(pfx, Math.max(pfx, b.length - sfx));
  return pfx + sfx > 0 ? `${a.slice(0, pfx)}{${midA} => ${midB}}${a.slice(a.length - sfx)}` : `${midA} => ${midB}`;
}

/**
 * `--stat` as git's show_stats writes it: a line per file, its name
 * shortened from the left (`.../dir/file.ts`) and its graph scaled to fit
 * the width (`COLUMNS`, else the terminal's, else 80), then the summary;
 * nothing for no change. See stat-layout.ts for the widths.
 */
export function statText(
  all: readonly DiffFile[],
  options: StatOptions & { colour: boolean; quotePath?: boolean },
): string {
  if (all.length === 0) return '';
  const files = options.count ? all.slice(0, options.count) : all;
  const names = files.map((f) => statName(f, options.quotePath ?? true));
  const layout = statLayout(
    files.map((f, i) => ({
      name: names[i]!,
      binary: f.binary === true,
      insertions: f.insertions ?? 0,
      deletions: f.deletions ?? 0,
      sizes: f.sizes,
    })),
    options,
  );
  const red = (s: string): string => (options.colour ? statRemoved(s) : s);
  const green = (s: string): string => (options.colour ? statAdded(s) : s);
  const lines = files.map((f, i) => {
    const name = layout.name(names[i]!);
    if (f.binary) {
      const bin = ` ${name} | ${'Bin'.padStart(layout.numberWidth)}`;
      return f.sizes ? `${bin} ${red(String(f.sizes.old))} -> ${green(String(f.sizes.new))} bytes` : bin;
    }
    const count = (f.insertions ?? 0) + (f.deletions ?? 0);
    const { plus, minus } = layout.graph(f.insertions ?? 0, f.deletions ?? 0);
    const graph = options.colour
      ? colourStatGraph('+'.repeat(plus), '-'.repeat(minus))
      : '+'.repeat(plus) + '-'.repeat(minus);
    return ` ${name} | ${String(count).padStart(layout.numberWidth)}${count > 0 ? ' ' : ''}${graph}`;
  });
  return [...lines, ...(all.length > files.length ? [' ...'] : []), summaryLine(all)].join('\n');
}

/** `--shortstat`: the summary line alone; nothing for no change. */
export function shortstatText(files: readonly DiffFile[]): string {
  return files.length === 0 ? '' : summaryLine(files);
}

/** `--name-only`: each path (a rename's new one), quoted as git quotes it; with `-z`, as it is and ended by a NUL. */
export function nameOnlyText(files: readonly DiffFile[], quotePath = true, nul = false): string {
  return nul ? files.map((f) => `${f.path}\0`).join('') : files.map((f) => cQuote(f.path, quotePath)).join('\n');
}

/**
 * `--numstat`: added and removed lines, tab-separated (`-` for a binary
 * file), and the name as `--stat` shows it. With `-z`, as git's -z: the
 * path as it is and a NUL, a rename's as an empty field, then both paths,
 * each ended by a NUL.
 */
export function numstatText(files: readonly DiffFile[], quotePath = true, nul = false): string {
  const counts = (f: DiffFile): string => (f.binary ? '-\t-\t' : `${f.insertions ?? 0}\t${f.deletions ?? 0}\t`);
  if (nul)
    return files
      .map((f) => counts(f) + (f.status === 'R' && f.from !== undefined ? `\0${f.from}\0${f.path}\0` : `${f.path}\0`))
      .join('');
  return files.map((f) => counts(f) + statName(f, quotePath)).join('\n');
}

/** A file's name as `--stat` and `--numstat` show it (git's print_name): quoted, a rename's as renameName writes it. */
function statName(f: DiffFile, quotePath: boolean): string {
  return f.status === 'R' && f.from !== undefined ? renameName(f.from, f.path, quotePath) : cQuote(f.path, quotePath);
}

/** git's print_stat_summary: a count of 0 is left out unless both are 0; binary files count no lines. */
function summaryLine(files: readonly DiffFile[]): string {
  const text = files.filter((f) => !f.binary);
  const ins = text.reduce((n, f) => n + (f.insertions ?? 0), 0);
  const del = text.reduce((n, f) => n + (f.deletions ?? 0), 0);
  let line = ` ${plural(files.length, 'file')} changed`;
  if (ins > 0 || del === 0) line += `, ${plural(ins, 'insertion')}(+)`;
  if (del > 0 || ins === 0) line += `, ${plural(del, 'deletion')}(-)`;
  return line;
}
