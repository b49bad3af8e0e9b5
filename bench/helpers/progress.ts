/** Progress lines on stderr, apart from the results a benchmark prints on stdout. */

export function log(s: string): void {
  process.stderr.write(`${s}\n`);
}
