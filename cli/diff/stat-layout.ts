import stringWidth from '../yargs-shims/string-width.js';

/**
 * The widths of a `--stat`, as git's show_stats (diff.c) sets them: a line
 * is ` <name> | <count> <graph>`; the name takes what it needs, the graph
 * as many columns as the largest change, and when the two do not fit in
 * `width` the graph gets at most 3/8 of it (at least 6 columns) and the
 * name the rest, shortened from the left to `...` and the next `/`. A
 * graph wider than its columns is scaled (git's scale_linear): every
 * change keeps at least one column.
 */

export interface StatOptions {
  /** The columns of a line: git's term_columns (`COLUMNS`, else a terminal's width, else 80). */
  width: number;
  /** `diff.statGraphWidth`: the graph's most columns (0: no limit of its own). */
  graphWidth?: number;
  /** `diff.statNameWidth`: the name's most columns (0: no limit of its own). */
  nameWidth?: number;
  /** `--stat-count`: the files shown (the rest as ` ...`, still counted in the summary). */
  count?: number;
}

export interface StatFile {
  /** The name as it is shown (quoted, a rename's `{a => b}`). */
  name: string;
  binary: boolean;
  insertions: number;
  deletions: number;
  sizes?: { old: number; new: number };
}

export interface StatLayout {
  /** The count column's width. */
  numberWidth: number;
  /** A name padded (or shortened) to the name column. */
  name(name: string): string;
  /** The graph's + and - columns for a file's counts. */
  graph(insertions: number, deletions: number): { plus: number; minus: number };
}

const digits = (n: number): number => String(n).length;

export function statLayout(files: readonly StatFile[], options: StatOptions): StatLayout {
  let maxChange = 0;
  let maxLen = 0;
  let binWidth = 0;
  let numberWidth = 0;
  for (const f of files) {
    maxLen = Math.max(maxLen, stringWidth(f.name));
    if (f.binary) {
      // "Bin XXX -> YYY bytes"; the counts line up with "Bin".
      binWidth = Math.max(binWidth, 14 + digits(f.sizes?.new ?? 0) + digits(f.sizes?.old ?? 0));
      numberWidth = 3;
      continue;
    }
    maxChange = Math.max(maxChange, f.insertions + f.deletions);
  }
  numberWidth = Math.max(numberWidth, digits(maxChange));
  const width = Math.max(options.width, 16 + 6 + numberWidth);
  const statGraph = options.graphWidth ?? 0;
  const statName = options.nameWidth ?? 0;
  let graphWidth = maxChange + 4 > binWidth ? maxChange : binWidth - 4;
  if (statGraph > 0 && statGraph < graphWidth) graphWidth = statGraph;
  let nameWidth = statName > 0 && statName < maxLen ? statName : maxLen;
  if (nameWidth + numberWidth + 6 + graphWidth > width) {
    if (graphWidth > Math.trunc((width * 3) / 8) - numberWidth - 6) {
      graphWidth = Math.max(6, Math.trunc((width * 3) / 8) - numberWidth - 6);
    }
    if (statGraph > 0 && graphWidth > statGraph) graphWidth = statGraph;
    if (nameWidth > width - numberWidth - 6 - graphWidth) nameWidth = width - numberWidth - 6 - graphWidth;
    else graphWidth = width - numberWidth - 6 - nameWidth;
  }
  const scale = (n: number): number => (n === 0 ? 0 : 1 + Math.trunc((n * (graphWidth - 1)) / maxChange));
  return {
    numberWidth,
    name(name) {
      let shown = name;
      let prefix = '';
      let len = nameWidth;
      const full = stringWidth(name);
      if (nameWidth < full) {
        prefix = '...';
        len = Math.max(0, len - 3);
        // Drop characters from the left until the rest fits, then start at the next `/`.
        const chars = [...name];
        let w = full;
        let i = 0;
        while (w > len && i < chars.length) w -= stringWidth(chars[i++]!);
        shown = chars.slice(i).join('');
        const slash = shown.indexOf('/');
        if (slash >= 0) shown = shown.slice(slash);
      }
      return prefix + shown + ' '.repeat(Math.max(0, len - stringWidth(shown)));
    },
    graph(insertions, deletions) {
      if (graphWidth > maxChange) return { plus: insertions, minus: deletions };
      let total = scale(insertions + deletions);
      if (total < 2 && insertions > 0 && deletions > 0) total = 2;
      if (insertions < deletions) {
        const plus = scale(insertions);
        return { plus, minus: total - plus };
      }
      const minus = scale(deletions);
      return { plus: total - minus, minus };
    },
  };
}
