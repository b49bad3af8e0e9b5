import { ShadowError } from '../../errors.js';
import { parentDirs } from '../../core/path-rules.js';

/**
 * The outermost of `path` and its parent directories that `isSubmodule`
 * names a submodule, or undefined. Outermost first: a submodule nested in
 * another is the outer one's to manage, so the outer one is what to name.
 *
 * @example
 * submoduleOf('lib/src/a.c', (p) => p === 'lib'); // 'lib'
 */
export function submoduleOf(path: string, isSubmodule: (prefix: string) => boolean): string | undefined {
  for (const dir of parentDirs(path)) if (isSubmodule(dir)) return dir;
  return isSubmodule(path) ? path : undefined;
}

/**
 * Why `path` cannot be read or written: it is the submodule `submodule`, or
 * lies inside it. `commit` is the commit the superproject records for it
 * (null: a nested repository git does not track).
 */
export function submodulePathError(
  path: string,
  submodule: string,
  commit: string | null,
  verb = 'write into',
): ShadowError {
  const what = path === submodule ? `${path} is a submodule` : `${path} is inside the submodule ${submodule}`;
  const at = commit ? ` (commit ${commit.slice(0, 12)})` : ' (a nested git repository)';
  return new ShadowError(
    'SUBMODULE_PATH',
    `${what}${at}: shadow does not ${verb} submodules, which are repositories of their own`,
    {
      hint:
        verb === 'read' || verb === 'list'
          ? `look inside it as the repository it is (cd ${submodule})`
          : `change it in its own repository (cd ${submodule}; shadow works there too)${commit ? ', then record its new commit here with git add' : ''}`,
      data: { path, submodule, commit },
    },
  );
}
