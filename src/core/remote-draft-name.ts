/**
 * A draft fetched from a remote is named `<remote>/<draft>` (`origin/refactor`),
 * as git names a remote-tracking branch: two ref components joined by one
 * `/`. A local draft's name is one component, so the two never collide.
 */
import { refComponentProblem } from './ref-component.js';

/** The remote and the draft of a remote draft's name, or undefined for a local draft's name (or a bad one). */
export function splitRemoteDraft(name: string): { remote: string; draft: string } | undefined {
  const slash = name.indexOf('/');
  if (slash === -1 || name.indexOf('/', slash + 1) !== -1) return undefined;
  const remote = name.slice(0, slash);
  const draft = name.slice(slash + 1);
  if (refComponentProblem(remote) !== undefined || refComponentProblem(draft) !== undefined) return undefined;
  return { remote, draft };
}

/** The name a draft's commits carry in their `Shadow-Draft` trailer: a remote draft's own name at its source. */
export function lineName(name: string): string {
  return splitRemoteDraft(name)?.draft ?? name;
}
