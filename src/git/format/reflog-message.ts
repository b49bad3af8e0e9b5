/**
 * The reflog messages of the branch moves shadow makes, worded as git words
 * those of the command that would make the same move, so `git reflog` reads
 * the same whichever tool moved the branch.
 */

/** The first line of a commit message, as `git commit` puts it in the reflog. */
function subjectOf(message: string): string {
  return message.trim().split('\n', 1)[0]!;
}

/** `git commit`: `commit: <subject>`, `commit (initial): <subject>` on a branch without commits. */
export function commitReflogMessage(message: string, initial: boolean): string {
  return `${initial ? 'commit (initial)' : 'commit'}: ${subjectOf(message)}`;
}

/** `git merge --ff-only <ref>`. */
export function fastForwardReflogMessage(ref: string): string {
  return `merge ${ref}: Fast-forward`;
}

/** `git cherry-pick`, whose last line names the last commit it picked. */
export function cherryPickReflogMessage(message: string): string {
  return `cherry-pick: ${subjectOf(message)}`;
}

/** `git reset <commit>`. */
export function resetReflogMessage(to: string): string {
  return `reset: moving to ${to}`;
}

/**
 * A message as git stores it in a reflog line: runs of whitespace (newlines
 * included) become one space, none leads or trails (git's copy_reflog_msg).
 */
export function normalizeReflogMessage(message: string): string {
  return message.replace(/[ \t\n\r]+/g, ' ').trim();
}
