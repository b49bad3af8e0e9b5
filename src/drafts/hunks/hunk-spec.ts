import { ShadowError } from '../../errors.js';

/**
 * `--hunks` specs, read: a list of items, each separated by commas or given
 * on its own. An item is a hunk id (12 hex digits, as `shadow diff --json`
 * prints it), `<path>` (the whole path, as `shadow apply <path>`), or
 * `<path>:<choices>` where the last `:` followed by choices separates the
 * path: `3`, `2-4`, `mode` (the mode change alone), `rename` (a rename alone, its
content as it was). After `<path>:<n>`, a
 * comma and more choices add to the same path (`a.ts:1,3-4,b.ts:2`).
 */

export type HunkSpecItem =
  | { kind: 'id'; id: string }
  | { kind: 'whole'; path: string }
  | { kind: 'part'; path: string; indices: number[]; mode: boolean; rename: boolean };

const ID = /^[0-9a-f]{12}$/;
const CHOICE = /^(?:\d+(?:-\d+)?|mode|rename)$/;

function badSpec(spec: string, why: string): ShadowError {
  return new ShadowError('INVALID_ARGUMENT', `--hunks ${spec}: ${why}`, {
    hint: 'name hunks as <id> (shadow diff --json), <path>:<n>[,<m>|<n>-<m>]…, <path>:mode, <path>:rename or <path>',
    data: { spec },
  });
}

function addChoice(item: Extract<HunkSpecItem, { kind: 'part' }>, choice: string, spec: string): void {
  if (choice === 'mode' || choice === 'rename') {
    item[choice] = true;
    return;
  }
  const [from, to = from] = choice.split('-').map(Number) as [number, number?];
  if (from < 1 || to < from) throw badSpec(spec, `"${choice}" is not a range of hunk numbers (they count from 1)`);
  for (let n = from; n <= to; n++) item.indices.push(n);
}

/** Read the `--hunks` specs into items (ids are told from paths later: an id may also be a path's name). */
export function parseHunkSpecs(specs: readonly string[]): HunkSpecItem[] {
  const items: HunkSpecItem[] = [];
  for (const spec of specs) {
    let last: Extract<HunkSpecItem, { kind: 'part' }> | undefined;
    for (const raw of spec.split(',')) {
      const token = raw.trim();
      if (token === '') throw badSpec(spec, 'an empty item');
      if (last && CHOICE.test(token)) {
        addChoice(last, token, spec);
        continue;
      }
      last = undefined;
      const colon = token.lastIndexOf(':');
      const tail = colon === -1 ? '' : token.slice(colon + 1);
      if (colon > 0 && CHOICE.test(tail)) {
        last = { kind: 'part', path: token.slice(0, colon), indices: [], mode: false, rename: false };
        addChoice(last, tail, spec);
        items.push(last);
      } else if (ID.test(token)) items.push({ kind: 'id', id: token });
      else items.push({ kind: 'whole', path: token });
    }
  }
  if (items.length === 0) throw badSpec('', 'no hunk named');
  return items;
}
