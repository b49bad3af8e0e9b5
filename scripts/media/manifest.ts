/**
 * docs/media/media.json: what the committed media were made from (the
 * commands the recording holds, the terminal, the shadow that ran them),
 * written by make-media.ts and read by test/media.test.ts, which holds the
 * media to the current CLI without making them again.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const MANIFEST = 'media.json';
export const CAST = 'first-session.cast';
export const SVG = 'first-session.svg';

export interface MediaManifest {
  made_by: string;
  shadow: {
    version: string;
    /** sha256 of `shadow help <command>` for each shadow command of the recording, in order: when it differs, the help those commands show has changed since. */
    help_sha256: string;
  };
  terminal: { cols: number; rows: number };
  recording: { cast: string; svg: string; seconds: number; commands: Array<{ typed: string; argv: string[] }> };
  screenshots: string[];
}

export const MADE_BY = 'npm run docs:media (scripts/media/make-media.ts); test/media.test.ts checks it';

export function readManifest(dir: string): MediaManifest {
  return JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as MediaManifest;
}

/** sha256 over the help texts, each followed by a NUL. */
export function helpDigest(helpTexts: readonly string[]): string {
  const h = createHash('sha256');
  for (const t of helpTexts) h.update(t).update('\0');
  return h.digest('hex');
}
