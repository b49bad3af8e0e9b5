/**
 * What a draft is besides its commits (draft.json: root, bases, batch
 * numbers; events.jsonl: the ledger, approvals included; proposal.json)
 * travels as git objects: a commit on `refs/shadow/meta/<draft>` whose tree
 * holds the three files, its parent the previous snapshot.
 *
 * Why a snapshot at push, not a commit per event: a batch stays exactly
 * what it was (no object, ref or fsync more on the hot path, and nothing
 * that grows with the draft's age), and the files stay the source the rest
 * of shadow reads. The snapshot is taken under the ledger's lock, so the
 * ledger it holds is whole (no append half in it), and it records the draft
 * tip it describes; push sends that tip, not whatever the ref holds by the
 * time git runs, so the refs pushed together always agree with each other.
 *
 * draft.json is written as the draft is at that tip: its bases are the
 * effective ones (what the applies made here laid over the captures), since
 * the apply records stay here; and it names no directory of this machine
 * (no worktree, no proposal's workspace_root).
 */
import { ShadowError } from '../errors.js';
import { waitForProcessLock } from '../durable/process-lock.js';
import { readTextIfExists } from '../durable/durable-file.js';
import {
  hashObject,
  MODE,
  serializeCommit,
  serializeTree,
  type Oid,
  type TreeEntry,
} from '../git/format/git-objects.js';
import { requireDraft } from '../drafts/drafts.js';
import { ledgerPath } from '../drafts/ledger-events.js';
import { metaRef } from '../drafts/ref-names.js';
import { RefMoved } from '../git/refs.js';
import { draftDir, type DraftMetaFile } from '../state/draft-meta.js';
import type { Workspace } from '../drafts/workspace.js';

/** A draft as it will be pushed: its tip and the snapshot commit of its files. */
export interface DraftSnapshot {
  draft: string;
  tip: Oid;
  meta: Oid;
}

/**
 * Snapshot draft `name`'s files into `refs/shadow/meta/<name>` (a new commit
 * only when they changed). `joined`: a pull's, the other side's snapshot its
 * ledger joined, made a second parent so that it stays reachable (the join
 * names it) and the next push fast-forwards the remote's snapshot ref.
 */
export async function snapshotMeta(ws: Workspace, name: string, joined?: Oid): Promise<DraftSnapshot> {
  const repo = ws.repo;
  const ledger = ledgerPath(ws, name);
  const lock = await waitForProcessLock(ws.ctx, `${ledger}.lock`, 'ledger append', repo.lockTimeoutMs);
  let snapshot: { tip: Oid; tree: Oid; objects: Array<{ oid: Oid; type: 'blob' | 'tree'; content: Buffer }> };
  try {
    const d = requireDraft(ws, name);
    const pointers =
      d.meta.pointers?.proposal === undefined
        ? d.meta.pointers
        : { ...d.meta.pointers, proposal: unrooted(d.meta.pointers.proposal) };
    const file: DraftMetaFile = {
      ...d.meta,
      bases: d.bases.toRecord(),
      bases_tip: d.tip,
      worktree: null,
      ...(pointers === undefined ? {} : { pointers }),
    };
    const files: Array<[string, Buffer]> = [['draft.json', Buffer.from(`${JSON.stringify(file, null, 1)}\n`, 'utf8')]];
    const events = ws.ctx.fs.existsSync(ledger) ? (ws.ctx.fs.readFileSync(ledger) as Buffer) : undefined;
    if (events) files.push(['events.jsonl', events]);
    const proposal = readTextIfExists(ws.ctx.fs, `${draftDir(repo.shadowDir, name)}/proposal.json`);
    if (proposal !== undefined)
      files.push([
        'proposal.json',
        Buffer.from(`${JSON.stringify(unrooted(JSON.parse(proposal)), null, 1)}\n`, 'utf8'),
      ]);
    const objects: Array<{ oid: Oid; type: 'blob' | 'tree'; content: Buffer }> = [];
    const entries: TreeEntry[] = [];
    for (const [fileName, content] of files) {
      const oid = hashObject('blob', content);
      objects.push({ oid, type: 'blob', content });
      entries.push({ mode: MODE.file, name: fileName, oid });
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    const treeContent = serializeTree(entries);
    const tree = hashObject('tree', treeContent);
    objects.push({ oid: tree, type: 'tree', content: treeContent });
    snapshot = { tip: d.tip, tree, objects };
  } finally {
    lock.release();
  }
  const ref = metaRef(name);
  const parent = repo.refs.resolve(ref);
  if (parent !== undefined && joined === undefined) {
    const previous = repo.objects.readCommit(parent);
    if (previous.tree === snapshot.tree && tipOf(previous.message) === snapshot.tip)
      return { draft: name, tip: snapshot.tip, meta: parent };
  }
  const who = repo.committer();
  const content = serializeCommit({
    tree: snapshot.tree,
    parents: [
      ...(parent === undefined ? [] : [parent]),
      ...(joined === undefined || joined === parent ? [] : [joined]),
    ],
    author: who,
    committer: who,
    message: `shadow: draft ${name} at ${snapshot.tip}\n\nShadow-Meta-Draft: ${name}\nShadow-Meta-Tip: ${snapshot.tip}\n`,
  });
  const meta = hashObject('commit', content);
  repo.objects.write([...snapshot.objects, { oid: meta, type: 'commit', content }]);
  try {
    await repo.refs.update({
      ref,
      expected: parent ?? null,
      next: meta,
      message: `shadow: snapshot of draft ${name}`,
      who,
    });
  } catch (e) {
    if (e instanceof RefMoved) {
      throw new ShadowError('BUSY', `another push of draft "${name}" is snapshotting it right now`, {
        hint: 'run the push again',
        data: { draft: name },
      });
    }
    throw e;
  }
  return { draft: name, tip: snapshot.tip, meta };
}

/**
 * A proposal without the directory it was made in: `workspace_root` is an
 * absolute path of this machine, which names nothing on another (and says
 * who and where), so it travels as null, as for a bare repository.
 */
function unrooted(proposal: unknown): unknown {
  if (typeof proposal !== 'object' || proposal === null || !('workspace_root' in proposal)) return proposal;
  return { ...proposal, workspace_root: null };
}

/** The draft tip a snapshot commit describes. */
export function tipOf(message: string): Oid | undefined {
  return /^Shadow-Meta-Tip: ([0-9a-f]{40})$/m.exec(message)?.[1];
}
