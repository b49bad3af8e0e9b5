import { redact, RULES, scanAddedLines, type AddedLine, type SecretFinding } from './secrets.js';

/**
 * Secrets masked in diff text, the one way shadow ever shows one (first 4
 * characters, then a mask): `shadow review`'s diff and every diff the review
 * page shows go through here, whatever range they span.
 */

/** The diff text with the value of each finding masked wherever it appears. */
export function redactFindings(text: string, findings: readonly SecretFinding[], added: readonly AddedLine[]): string {
  let out = text;
  for (const f of findings) {
    const rule = RULES.find((r) => r.id === f.rule);
    const line = added.find((a) => a.line === f.line)?.text;
    const m = rule && line !== undefined ? rule.pattern.exec(line) : null;
    const value = m ? (m[1] ?? m[0]) : undefined;
    if (value) out = out.split(value).join(redact(value));
  }
  return out;
}

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

/** One file's unified diff with the secrets its added lines hold masked, and the findings. */
export function redactPatch(path: string, patch: string): { patch: string; secrets: SecretFinding[] } {
  const added = addedLinesOf(patch);
  const secrets = added.length === 0 ? [] : scanAddedLines(path, added);
  return { patch: secrets.length === 0 ? patch : redactFindings(patch, secrets, added), secrets };
}
