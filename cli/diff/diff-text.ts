import type { DiffFile } from '../../src/index.js';
import { pad, plural } from '../output.js';
import { colourStatGraph } from './diff-colour.js';

/** `--name-status` lines: `M\tpath`, a rename as git writes it, `R086\told\tnew`. */
export function nameStatusText(files: readonly DiffFile[]): string {
  const line = (f: DiffFile): string =>
    f.status === 'R'
      ? `R${String(f.similarity ?? 100).padStart(3, '0')}\t${f.from}\t${f.path}`
      : `${f.status}\t${f.path}`;
  return files.map(line).join('\n');
}

/**
 * A rename's name in `--stat` as git's pprint_rename writes it: the parts
 * the two paths share, up to a `/`, outside braces (`src/{a.ts => b.ts}`).
 */
export function renameName(a: string, b: string): string {
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
 * `--stat`: a line per file with its count (right-aligned, as git aligns
 * them) and graph (coloured as git's), and the summary.
 */
export function statText(files: readonly DiffFile[], colour: boolean): string {
  const names = files.map((f) => (f.status === 'R' && f.from !== undefined ? renameName(f.from, f.path) : f.path));
  const width = Math.max(0, ...names.map((n) => n.length));
  const count = (f: DiffFile): number => (f.insertions ?? 0) + (f.deletions ?? 0);
  const numberWidth = Math.max(files.some((f) => f.binary) ? 3 : 0, ...files.map((f) => String(count(f)).length));
  const lines = files.map((f, i) => {
    if (f.binary) return ` ${pad(names[i]!, width)} | ${'Bin'.padStart(numberWidth)}`;
    const plus = '+'.repeat(Math.min(f.insertions ?? 0, 40));
    const minus = '-'.repeat(Math.min(f.deletions ?? 0, 40));
    const graph = colour ? colourStatGraph(plus, minus) : plus + minus;
    return ` ${pad(names[i]!, width)} | ${String(count(f)).padStart(numberWidth)}${count(f) > 0 ? ' ' : ''}${graph}`;
  });
  const ins = files.reduce((n, f) => n + (f.insertions ?? 0), 0);
  const del = files.reduce((n, f) => n + (f.deletions ?? 0), 0);
  return [
    ...lines,
    ` ${plural(files.length, 'file')} changed, ${plural(ins, 'insertion')}(+), ${plural(del, 'deletion')}(-)`,
  ].join('\n');
}
