import { maskSecrets, scanAddedLines, type AddedLine, type SecretFinding } from '../core/secret-scan.js';

/**
 * Secrets masked in diff text, the one way shadow ever shows one (first 4
 * characters, then a mask): `shadow review`'s diff, `sh.diff({ redact })`,
 * the HTTP API's diffs and every diff the review page shows go through
 * here, whatever range they span. Every line is read, added, removed and
 * context alike, and the headers with their paths: a token a range removes
 * is shown no more than one it adds.
 */

const HUNK = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** The added lines of one file's unified diff (git's format, no colour), numbered in the new content. */
export function addedLinesOf(patch: string): AddedLine[] {
  const added: AddedLine[] = [];
  let next = 0;
  let inHunk = false;
  for (const line of patch.split('\n')) {
    const h = HUNK.exec(line);
    if (h) {
      next = Number(h[1]);
      inHunk = true;
    } else if (!inHunk) continue;
    else if (line.startsWith('+')) added.push({ line: next++, text: line.slice(1) });
    else if (line.startsWith(' ')) next++;
  }
  return added;
}

/** One file's unified diff with every secret on any of its lines masked, and the findings of its added lines. */
export function redactPatch(path: string, patch: string): { patch: string; secrets: SecretFinding[] } {
  const added = addedLinesOf(patch);
  const secrets = added.length === 0 ? [] : scanAddedLines(path, added);
  return { patch: maskSecrets(patch), secrets };
}

/** A path as a reviewer may see it: a secret in a file's name masked like one in its content. */
export function redactPath(path: string): string {
  return maskSecrets(path);
}
