/** The options of `shadow diff` that take git's forms, which the handler reads itself (diff-words.ts): shown by `shadow diff --help`. */
export const DIFF_OPTIONS = `Also, as git diff takes them:
  -M[<n>], --find-renames[=<n>]  pair renames (n: least similarity, 50%; -M90%, -M9)
  --color[=<when>], --no-color   always, never, auto (a terminal, unless NO_COLOR)
  --no-pager                     no pager (else GIT_PAGER, core.pager, PAGER, less)
  -- <path>...                   only these paths (from here; globs, :(literal))`;
