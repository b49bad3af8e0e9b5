/**
 * Pathspecs as `shadow apply <pathspec>…` takes them, after the CLI has
 * made them relative to the repository root: a path names that file, or
 * every path below it when it is a directory (`docs` and `docs/` alike); a
 * spec with `*`, `?` or `[` is a glob (picomatch, dot files included) that
 * matches a path or one of its directories. Unlike git's default pathspec,
 * `*` stays within one path component: `**` crosses directories. As in git,
 * `:(literal)` before a spec takes it as it is, glob characters and all
 * (what shadow passes for paths it names itself).
 */
import picomatch from 'picomatch';

const GLOB = /[*?[]/;
const LITERAL = ':(literal)';

/** A test of repository paths against `specs` (true when any matches). */
export function pathspecMatcher(specs: readonly string[]): (path: string) => boolean {
  const tests = specs.map((raw): ((path: string) => boolean) => {
    const literal = raw.startsWith(LITERAL);
    const spec = (literal ? raw.slice(LITERAL.length) : raw).replace(/\/+$/, '');
    if (spec === '' || spec === '.') return () => true;
    if (literal || !GLOB.test(spec)) return (path) => path === spec || path.startsWith(`${spec}/`);
    const glob = picomatch(spec, { dot: true });
    return (path) => {
      if (glob(path)) return true;
      for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) if (glob(path.slice(0, i))) return true;
      return false;
    };
  });
  return (path) => tests.some((t) => t(path));
}

/** The specs of `specs` that match none of `paths`. */
export function unmatchedSpecs(specs: readonly string[], paths: readonly string[]): string[] {
  return specs.filter((s) => !paths.some(pathspecMatcher([s])));
}

/**
 * Why `spec` is not a repository-relative pathspec, or undefined when it is.
 * The agent tools and the HTTP API take pathspecs from the root, with no
 * current directory to resolve them against: an absolute path or a `..`
 * step would match nothing, and the unmatched-pathspec error would then
 * blame the draft rather than the form of the path.
 */
export function pathspecProblem(spec: string): string | undefined {
  if (spec === '') return 'is empty';
  if (spec.startsWith('/') || /^[A-Za-z]:/.test(spec)) return 'is absolute: give it relative to the repository root';
  if (spec.split('/').includes('..')) return 'steps out with "..": give it relative to the repository root';
  return undefined;
}

/** The pathspec that names exactly `path` (and what lies below it), whatever characters it holds. */
export function literalPathspec(path: string): string {
  return `${LITERAL}${path}`;
}
