import { readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * yargs' `findUp` (the `escalade/sync` package) for the CLI bundle: esbuild
 * puts this module in its place (`alias` in cli/bundle.mjs).
 *
 * yargs looks for a package.json upward from its own directory, to guess
 * the CLI's version. Bundled, it cannot tell where it is (it looks for
 * `node_modules` in its path) and searches from the working directory
 * instead: the user's repository, whose package.json it then reads, and
 * where there is none it formats a failed assertion (about 4 ms of every
 * command). This search starts at the bundle's own directory, so yargs
 * finds shadow's package.json, as it would unbundled.
 */
export default function findUp(
  _start: string,
  callback: (dir: string, names: string[]) => string | undefined,
): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const found = callback(dir, readdirSync(dir));
    if (found) return resolve(dir, found);
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}
