import { ShadowError } from '../errors.js';
import { splitRemoteDraft } from '../core/remote-draft-name.js';
import { importRemoteDraft, isFetchedDraft } from './draft-import.js';
import { loadDraft, requireDraft } from './drafts.js';
import type { Workspace } from './workspace.js';

/**
 * The draft `shadow apply --draft origin/refactor` publishes. A fetched
 * draft is read-only, and an apply records itself on its draft (status,
 * ledger, what it wrote), so the apply continues it here under its own name
 * first, as `git switch refactor` makes a branch from `origin/refactor`:
 * a local `refactor` made from it (`draft new refactor --from
 * origin/refactor`), or the local one when it stands at the same tip. Its
 * approvals are then given on `refactor`. A local `refactor` elsewhere is
 * refused (DRAFT_EXISTS): `shadow pull` brings it up to date. A dry run
 * only reads the fetched draft. Any other name is the name.
 */
export async function draftToApply(
  ws: Workspace,
  name: string,
  options: { dryRun: boolean; actor: string },
): Promise<string> {
  const remote = splitRemoteDraft(name);
  if (remote === undefined || !isFetchedDraft(ws, name)) return name;
  // Its files were brought to its snapshot by the caller's readDraftName.
  if (options.dryRun) return name;
  const fetched = requireDraft(ws, name);
  const local = loadDraft(ws, remote.draft);
  if (local === undefined) {
    await importRemoteDraft(ws, remote.draft, name, options.actor);
    return remote.draft;
  }
  if (local.tip === fetched.tip) return remote.draft;
  throw new ShadowError(
    'DRAFT_EXISTS',
    `draft "${remote.draft}" exists here at ${local.tip.slice(0, 12)}, and ${name} is at ${fetched.tip.slice(0, 12)}: applying ${name} would not apply either`,
    {
      hint: `\`shadow pull ${remote.remote} ${remote.draft}\` brings ${remote.draft} to ${name} (when it is ahead), then \`shadow apply --draft ${remote.draft}\`; or apply ${remote.draft} as it is`,
      data: { draft: remote.draft, local: local.tip, fetched: fetched.tip, remote: remote.remote },
    },
  );
}
