/**
 * A partial apply (`shadow apply <pathspec>…`): which paths of the draft's
 * change set it publishes. The review, approvals and the guard then see
 * only those; the draft keeps the rest.
 */
import { ShadowError } from '../errors.js';
import { pathspecMatcher, unmatchedSpecs } from '../core/pathspec.js';
import type { PublishEntry } from '../drafts/publish-set/publish-set.js';
import type { CommitMode } from './commit-modes.js';

/**
 * The test of a partial apply's paths, or undefined for a whole one. A
 * commit mode publishes whole commits, so it takes no pathspec; a pathspec
 * that matches none of the draft's changes is refused (checkPathspecs, on
 * the reviewed subset), as git refuses one that matches no file.
 */
export function partialPaths(options: {
  paths?: readonly string[];
  mode?: CommitMode;
}): ((path: string) => boolean) | undefined {
  if (options.paths === undefined || options.paths.length === 0) return undefined;
  if (options.mode) {
    throw new ShadowError(
      'INVALID_ARGUMENT',
      `--${options.mode.kind} publishes the draft's commits whole: it takes no paths`,
      {
        hint: 'apply the paths alone (shadow apply <paths>), then commit them with git; or drop the paths to apply --commit the whole draft',
      },
    );
  }
  return pathspecMatcher(options.paths);
}

/** Refuse the pathspecs of a partial apply that match none of the draft's changes (`published`: those the rest matched). */
export function checkPathspecs(specs: readonly string[] | undefined, published: readonly PublishEntry[]): void {
  const unmatched = specs
    ? unmatchedSpecs(
        specs,
        published.map((e) => e.path),
      )
    : [];
  if (unmatched.length === 0) return;
  throw new ShadowError(
    'INVALID_ARGUMENT',
    `pathspec ${unmatched.map((s) => `'${s}'`).join(', ')} did not match any path the draft changes`,
    {
      hint: "see the draft's changes with shadow diff --stat; on the command line paths are relative to the current directory, elsewhere to the repository root",
      data: { unmatched },
    },
  );
}
