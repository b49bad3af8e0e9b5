import type { Commit, Signature, Tag } from '../git/format/git-objects.js';
import { maskSecrets, scanText, type SecretFinding } from '../core/secret-scan.js';

/**
 * The secret guard on what a commit or a tag carries besides its files:
 * what `git log` shows of it and what a push sends with it. A batch's
 * intent is its commit's subject, its actor the author and the
 * `Shadow-Actor` trailer, its model an `Assisted-by` trailer; a
 * checkpoint's message and its tagger are the tag's. Findings name the
 * field (`where`) and its line; their `path` is empty, as no file holds
 * them (a path finding's is the path, masked).
 */

function identity(s: Signature): string {
  return `${s.name} <${s.email}>`;
}

/** The secrets in a commit's message, author and committer. */
export function scanCommitFields(commit: Commit): SecretFinding[] {
  return [
    ...scanText('', commit.message, 'message'),
    ...scanText('', identity(commit.author), 'author'),
    ...scanText('', identity(commit.committer), 'committer'),
  ];
}

/** The secrets in an annotated tag's name, message and tagger: a checkpoint as a push sends it. */
export function scanTagFields(tag: Tag): SecretFinding[] {
  return scanText('', `${tag.tag}\n${identity(tag.tagger)}\n${tag.message}`, 'checkpoint');
}

/** The secrets in a path a change adds: a file's name reaches a branch as its content does. */
export function scanPath(path: string): SecretFinding[] {
  const found = scanText('', path, 'path');
  if (found.length === 0) return found;
  const shown = maskSecrets(path);
  return found.map((f) => ({ ...f, path: shown }));
}

/** A finding as a reason lists it: `file:line (rule)`, or the field for one no file holds. */
export function findingPlace(s: SecretFinding): string {
  if (s.where === 'content') return `${s.path}:${s.line} (${s.rule})`;
  if (s.where === 'path') return `the path ${s.path} (${s.rule})`;
  return `the ${s.where === 'checkpoint' ? 'checkpoint' : `commit ${s.where}`}${s.line > 1 ? ` line ${s.line}` : ''} (${s.rule})`;
}
