/** The options of `shadow diff` that take git's forms, which the handler reads itself (diff-words.ts): shown by `shadow diff --help`. */
export const DIFF_OPTIONS = `Also, as git diff takes them:
  -M[<n>], --find-renames[=<n>]  pair renames (n: least similarity, 50%; -M90%, -M9)
  --color[=<when>], --no-color   always, never, auto (a terminal, unless NO_COLOR)
  --no-pager                     no pager (else GIT_PAGER, core.pager, PAGER, less)
  --stat[=<width>[,<name-width>[,<count>]]]
                                 lines added and removed per file, laid out as git's
  --stat-width=<n>, --stat-name-width=<n>, --stat-graph-width=<n>, --stat-count=<n>
  --numstat                      added and removed lines per file, tab-separated (- - for binary)
  --shortstat                    the --stat summary line alone
  --name-only                    the changed paths
  --no-prefix, --src-prefix=<p>, --dst-prefix=<p>, --default-prefix
                                 the patch's path prefixes (a/ b/; diff.noPrefix)
  --exit-code, --quiet           exit 1 when anything differs (--quiet: printing nothing)
  -R                             the two sides swapped: what undoing the change would do
  -z                             with --name-only, --name-status, --numstat: paths as they are, NUL-ended
  -U<n>, --unified=<n>           lines of context in the patch (3)
  --abbrev=<n>, --full-index     ids on index lines at least n hex digits, or whole (core.abbrev)
  --diff-filter=<letters>        only these changes: A M D R T U (lower case: all but these)
  -- <path>...                   only these paths (from here; globs, :(literal))`;
