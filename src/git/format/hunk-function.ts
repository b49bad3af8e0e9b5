/**
 * The text git writes after a hunk's `@@ -a,b +c,d @@`: the line of the old
 * file the hunk is in, found as xdiff finds it without a diff driver
 * (xemit.c's default find_func and get_func_line). The nearest line above
 * the hunk whose first byte is an ASCII letter, `_` or `$`, cut to 80 bytes
 * and then of its trailing spaces, tabs, CRs and LF. Each hunk looks back
 * only as far as the hunk before it; finding nothing there, it keeps that
 * hunk's line (two hunks in one function both name it).
 *
 * A path whose `diff` attribute names a driver (`*.py diff=python`) gets
 * the driver's pattern in git; shadow keeps this rule for it
 * (docs/reading.md says so).
 */

const FUNC_BYTES = 80;

function startsLikeAName(byte: number | undefined): boolean {
  return (
    byte !== undefined &&
    ((byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || byte === 0x5f || byte === 0x24)
  );
}

/** git's isspace: space, tab, LF and CR (not VT or FF). */
function isGitSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/**
 * For each hunk (the 0-based index of its first line in `old`, in order),
 * the text after its `@@ ... @@`, or '' for none.
 */
export function hunkFunctions(old: Buffer, firstLines: readonly number[]): string[] {
  if (firstLines.length === 0) return [];
  const starts: number[] = [];
  for (let i = 0; i < old.length; i = old.indexOf(0x0a, i) + 1 || old.length) starts.push(i);
  const out: string[] = [];
  let current = '';
  let limit = -1;
  for (const first of firstLines) {
    const from = Math.min(first, starts.length) - 1;
    for (let l = from; l > limit; l--) {
      const at = starts[l]!;
      if (!startsLikeAName(old[at])) continue;
      const end = l + 1 < starts.length ? starts[l + 1]! : old.length;
      let len = Math.min(end - at, FUNC_BYTES);
      while (len > 0 && isGitSpace(old[at + len - 1]!)) len--;
      current = old.toString('utf8', at, at + len);
      break;
    }
    limit = from;
    out.push(current);
  }
  return out;
}
