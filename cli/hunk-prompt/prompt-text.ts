/**
 * What the prompt says, in git's words for applying changes to the working
 * tree (add-patch.c's patch mode of `git restore -p --source=<commit>`,
 * "worktree_nothead"): the same prompts, help and messages `git add -p`
 * prints, with its verb.
 */

export type PromptKind = 'mode' | 'deletion' | 'addition' | 'hunk';

/** The question after `(i/n) `; `keys` are the keys the hunk allows beyond y,n,q,a,d (`,j,J,s,e`). */
export function promptFor(kind: PromptKind, keys: string): string {
  const what = { mode: 'mode change', deletion: 'deletion', addition: 'addition', hunk: 'this hunk' }[kind];
  return `Apply ${what} to worktree [y,n,q,a,d${keys},?]? `;
}

/** The help's first lines, always shown. */
export const HELP_PATCH =
  'y - apply this hunk to worktree\n' +
  'n - do not apply this hunk to worktree\n' +
  'q - quit; do not apply this hunk or any of the remaining ones\n' +
  'a - apply this hunk and all later hunks in the file\n' +
  'd - do not apply this hunk or any of the later hunks in the file\n';

/** The help's other lines, each shown when its key is offered (`?` always). */
export const HELP_REMAINDER = [
  'j - leave this hunk undecided, see next undecided hunk',
  'J - leave this hunk undecided, see next hunk',
  'k - leave this hunk undecided, see previous undecided hunk',
  'K - leave this hunk undecided, see previous hunk',
  'g - select a hunk to go to',
  '/ - search for a hunk matching the given regex',
  's - split the current hunk into smaller hunks',
  'e - manually edit the current hunk',
  '? - print help',
];

export const EDIT_AGAIN = 'Your edited hunk does not apply. Edit again (saying "no" discards!) [y/n]? ';
