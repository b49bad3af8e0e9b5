/**
 * Names of shadow's refs, and the rules a draft or checkpoint name follows:
 * exactly one component that `git check-ref-format` accepts.
 */

export const DRAFTS_PREFIX = 'refs/shadow/drafts/';
export const CHECKPOINTS_PREFIX = 'refs/shadow/checkpoints/';
export const ARCHIVE_PREFIX = 'refs/shadow/archive/';
export const PROPOSALS_PREFIX = 'refs/shadow/proposals/';

export const AUTO_CHECKPOINT_PREFIX = 'auto-';

export const draftRef = (draft: string): string => `${DRAFTS_PREFIX}${draft}`;
export const checkpointRef = (draft: string, name: string): string => `${CHECKPOINTS_PREFIX}${draft}/${name}`;
export const checkpointsPrefix = (draft: string): string => `${CHECKPOINTS_PREFIX}${draft}/`;
export const proposalRef = (draft: string): string => `${PROPOSALS_PREFIX}${draft}`;

/**
 * Why `name` is not a valid single ref component, or undefined. Mirrors
 * `git check-ref-format` for one component, and refuses `/` so a name never
 * collides with a directory of other names.
 */
export function refComponentProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty';
  if (Buffer.byteLength(name) > 200) return 'it is longer than 200 bytes';
  if (name.includes('/')) return 'it contains "/"';
  if (name.startsWith('.')) return 'it starts with "."';
  if (name.startsWith('-')) return 'it starts with "-", which reads as a command-line flag';
  if (name.endsWith('.')) return 'it ends with "."';
  if (name.endsWith('.lock')) return 'it ends with ".lock"';
  if (name.includes('..')) return 'it contains ".."';
  if (name.includes('@{')) return 'it contains "@{"';
  if (name === '@') return 'it is "@"';
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return 'it contains a control character';
  }
  const bad = /[ ~^:?*[\\]/.exec(name);
  if (bad) return `it contains "${bad[0]}"`;
  return undefined;
}

/** Why `name` may not be a checkpoint name, or undefined. */
export function checkpointNameProblem(name: string): string | undefined {
  const problem = refComponentProblem(name);
  if (problem) return problem;
  if (/^\d+$/.test(name)) return 'it is a plain number, which `shadow rollback` reads as a batch number';
  return undefined;
}
