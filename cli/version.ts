import { readFileSync } from 'node:fs';

/**
 * shadow's version, from the package.json above this module: the bundled
 * CLI lives in dist/bin/ and its chunks in dist/bin/chunks/, so the file is
 * looked for upwards rather than at a fixed depth.
 */
export function shadowVersion(from: string = import.meta.url): string {
  for (let url = new URL('./package.json', from), i = 0; i < 6; i++, url = new URL('../package.json', url)) {
    try {
      const pkg = JSON.parse(readFileSync(url, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'shadow-drafts' && pkg.version) return pkg.version;
    } catch {
      // not here: one level up
    }
  }
  return '0.0.0';
}
