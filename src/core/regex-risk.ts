/**
 * A guard for regular expressions that come from outside (an agent's
 * search): JavaScript's engine backtracks, and a repetition nested in a
 * repetition, `(a+)+` or `(\w*\s?)*`, can take exponential time on a line
 * that almost matches, with no way to interrupt it. Such patterns are
 * refused before they run. What is left (star height 1) is linear or
 * polynomial in practice; an overlapping alternation under one repetition,
 * `(a|a)*`, is not caught.
 */

/** The quantifier at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`): its length, and whether it can repeat its atom (more than once), unbounded or not. */
function quantifierAt(source: string, i: number): { length: number; repeats: boolean; unbounded: boolean } | undefined {
  const c = source[i];
  if (c === '*' || c === '+') return { length: 1, repeats: true, unbounded: true };
  if (c === '?') return { length: 1, repeats: false, unbounded: false };
  if (c !== '{') return undefined;
  const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
  if (!m) return undefined;
  const max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
  return { length: m[0].length, repeats: max > 1, unbounded: max === Infinity };
}

/** Where the pattern repeats a group that itself holds an unbounded repetition (the index of the outer quantifier), or undefined. */
export function nestedRepetitionAt(source: string): number | undefined {
  // For each open group: whether an unbounded quantifier occurred inside it.
  const groups: boolean[] = [];
  let inClass = false;
  let lastGroupRepeats = false; // the atom just before is a group holding an unbounded quantifier
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (inClass) {
      if (c === '\\') i++;
      else if (c === ']') inClass = false;
      continue;
    }
    const q = quantifierAt(source, i);
    if (q) {
      if (lastGroupRepeats && q.repeats) return i;
      if (q.unbounded && groups.length > 0) groups[groups.length - 1] = true;
      i += q.length - 1;
      if (source[i + 1] === '?') i++; // lazy
      lastGroupRepeats = false;
      continue;
    }
    lastGroupRepeats = false;
    if (c === '\\')
      i++; // an escaped character is one atom
    else if (c === '[') inClass = true;
    else if (c === '(') groups.push(false);
    else if (c === ')') {
      const inner = groups.pop() ?? false;
      lastGroupRepeats = inner;
      // A group holding a repetition makes its parent hold one too.
      if (inner && groups.length > 0) groups[groups.length - 1] = true;
    }
  }
  return undefined;
}
