import { ShadowError } from '../errors.js';
import { isOid, type Oid } from '../git/format/git-objects.js';
import { refComponentProblem } from '../core/ref-component.js';
import type { Repository } from '../git/repository.js';

function invalid(spec: string, why: string): ShadowError {
  return new ShadowError('INVALID_TARGET', `cannot resolve "${spec}": ${why}`, {
    hint: 'give a branch, tag, full or abbreviated commit id, optionally with ~N or ^N',
    data: { spec },
  });
}

/** Follow tags until a commit. */
export function peelToCommit(repo: Repository, oid: Oid, spec: string): Oid {
  let current = oid;
  for (let i = 0; i < 10; i++) {
    const obj = repo.objects.read(current);
    if (obj.type === 'commit') return current;
    if (obj.type !== 'tag') throw invalid(spec, `it names a ${obj.type}, not a commit`);
    current = repo.objects.readTag(current).object;
  }
  throw invalid(spec, 'too many nested tags');
}

function resolveName(repo: Repository, name: string): Oid | undefined {
  if (name === 'HEAD' || name === '@') return repo.refs.resolve('HEAD');
  // Never let a name reach the file system unless git would accept it as a ref.
  if (name.split('/').some((c) => refComponentProblem(c) !== undefined)) return hexPrefix(repo, name);
  const candidates = name.startsWith('refs/')
    ? [name]
    : [`refs/${name}`, `refs/tags/${name}`, `refs/heads/${name}`, `refs/remotes/${name}`, `refs/remotes/${name}/HEAD`];
  for (const ref of candidates) {
    const oid = repo.refs.resolve(ref);
    if (oid) return oid;
  }
  return hexPrefix(repo, name);
}

function hexPrefix(repo: Repository, name: string): Oid | undefined {
  if (isOid(name.toLowerCase())) return name.toLowerCase();
  if (/^[0-9a-fA-F]{4,39}$/.test(name)) {
    const found = repo.objects.expandPrefix(name.toLowerCase());
    if (found.length > 1)
      throw invalid(name, `the abbreviated id is ambiguous (${found.map((f) => f.slice(0, 12)).join(', ')})`);
    return found[0];
  }
  return undefined;
}

/**
 * Resolve a commit-ish the way `git rev-parse` does for the common forms:
 * `HEAD`, refs (full or short: tags, branches, remotes), full or abbreviated
 * ids, followed by any `~N`, `^` and `^N`. Tags are peeled to their commit.
 */
export function resolveCommitish(repo: Repository, spec: string): Oid {
  const m = /^(.*?)((?:[~^]\d*)*)$/.exec(spec);
  const base = m?.[1] ?? spec;
  const suffix = m?.[2] ?? '';
  if (!base) throw invalid(spec, 'it is empty');
  const oid = resolveName(repo, base);
  if (oid === undefined) throw invalid(spec, 'no ref or object by that name');
  if (!repo.objects.has(oid)) throw invalid(spec, `object ${oid.slice(0, 12)} does not exist`);
  let commit = peelToCommit(repo, oid, spec);
  const steps = suffix.match(/[~^]\d*/g) ?? [];
  for (const step of steps) {
    const n = step.length > 1 ? Number(step.slice(1)) : 1;
    if (step[0] === '~') {
      for (let i = 0; i < n; i++) {
        const parent: Oid | undefined = repo.objects.readCommit(commit).parents[0];
        if (!parent) throw invalid(spec, `${commit.slice(0, 12)} has no parent`);
        commit = parent;
      }
    } else if (n > 0) {
      const parent = repo.objects.readCommit(commit).parents[n - 1];
      if (!parent) throw invalid(spec, `${commit.slice(0, 12)} has no parent ${n}`);
      commit = parent;
    }
  }
  return commit;
}
