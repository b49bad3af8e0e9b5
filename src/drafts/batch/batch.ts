import { decodeContent } from '../../core/content.js';
import { opPaths, type BatchInput, type FileOperation } from './ops.js';
import type { BatchResult } from './batch-result.js';
import type { BatchOptions } from './batch-attempt.js';
import { commitGroup, type BatchJob } from './batch-commit.js';
import { opsFingerprint } from './ops-fingerprint.js';
import type { Patcher } from './resolve-batch.js';
import { checkWorktree, loadDraft, unbornDraft } from '../drafts.js';
import type { Workspace } from '../workspace.js';

export type { BatchResult } from './batch-result.js';
export type { BatchOptions } from './batch-attempt.js';

/**
 * Each write's text in `operations` (the batch's own list) decoded to bytes
 * once, its string let go: a batch is held for its whole run (a lost race
 * resolves it again), and holding both forms doubled its memory. Replaced
 * in place one by one, each text can be collected as soon as its bytes are
 * made when nothing else holds the batch as sent. A content that does not
 * decode is left as it is, for resolution to report in its place among the
 * others.
 */
function decodeWrites(operations: FileOperation[], maxContentBytes: number): void {
  for (let i = 0; i < operations.length; i++) {
    const op = operations[i]!;
    if (op.operation !== 'write' || op.bytes || op.stored) continue;
    try {
      operations[i] = {
        ...op,
        content: '',
        encoding: undefined,
        bytes: decodeContent(op.content, op.encoding, maxContentBytes),
      };
    } catch {
      // Left for resolution to report.
    }
  }
}

/**
 * Run one batch as one atomic commit on a draft: resolve every op in memory
 * against the tip; only when all resolve, write the objects (one durable
 * pack) and move the ref by compare-and-swap. When another writer moved the
 * tip meanwhile, resolve again on the new tip: ops that still apply commit on
 * top; a path another writer changed under an op that assumed the old
 * content fails the batch with CONFLICT. Nothing is ever half-written.
 */
export function runBatch(ws: Workspace, input: BatchInput, options: BatchOptions): Promise<BatchResult> {
  // In a box the run empties: a suspended async function keeps what its
  // parameters held when it suspended, whatever it assigns them later.
  return runSent(ws, [input], options);
}

/** The batch out of its box, in a copy of its own: nothing here holds the one it was sent as. */
function takeBatch(sent: BatchInput[]): BatchInput {
  const input = sent.pop()!;
  return { ...input, operations: input.operations.slice() };
}

async function runSent(ws: Workspace, sent: BatchInput[], options: BatchOptions): Promise<BatchResult> {
  // The callers' frames, which hold the batch as it was sent, unwind here;
  // then the texts of its writes are held by this copy alone, and each can
  // be collected once its bytes are made.
  await Promise.resolve();
  const input = takeBatch(sent);
  decodeWrites(input.operations, options.maxContentBytes ?? ws.settings.maxContentBytes);
  const fingerprint = opsFingerprint(input.operations, { ...options.trailers, request: input.request_id });
  // A draft that does not exist yet is made by its first batch that commits: a
  // rejected batch leaves no trace, not even an empty draft.
  const existing = loadDraft(ws, options.draft);
  const first = existing ?? unbornDraft(ws, options.draft, { actor: options.actor });
  const unborn = existing === undefined;
  checkWorktree(ws, first);
  const patcher: Patcher | undefined = input.operations.some((o) => o.operation === 'patch')
    ? await import('../text/text-patch.js')
    : undefined;
  const settings = {
    maxContentBytes: options.maxContentBytes ?? ws.settings.maxContentBytes,
    allowIgnored: options.allowIgnored ?? ws.settings.allowIgnored,
  };
  const touched = [...new Set(input.operations.flatMap(opPaths))];
  // Batches of this process on one draft take turns (Workspace.inGroup)
  // instead of racing for its ref and losing work to each other; those that
  // queued up while one committed commit together (commitGroup), each judged
  // against the tip it was sent on (baseTip), as a batch that lost a race
  // is. Other processes still race, by compare-and-swap.
  return new Promise<BatchResult>((done, failed) => {
    const job: BatchJob = {
      input,
      options,
      settings,
      patcher,
      baseTip: first.tip,
      touched,
      fingerprint,
      first,
      unborn,
      done,
      failed,
    };
    ws.inGroup(options.draft, job, (jobs: BatchJob[], waited) => commitGroup(ws, jobs, waited)).catch(failed);
  });
}
