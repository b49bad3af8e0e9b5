/**
 * The worker thread of PackMergeThread (pack-merge-thread.ts): runs each
 * merge it is sent with node's fs and answers with what it did, or with
 * the error's code and message. One merge at a time, in the order sent.
 */
import * as fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { Context, PackMergeJob } from './context.js';
import { errnoCode, ShadowError } from './errors.js';
import { localProcesses, randomIds, systemClock } from './node-context.js';
import { runPackMergeJob } from './git/pack-merge-job.js';

export interface MergeRequest extends PackMergeJob {
  id: number;
}

export type MergeAnswer =
  | { id: number; done: { merged: number; lock: string } | undefined }
  | { id: number; error: { code: string; message: string } };

// The worker's own context: only what a merge uses (no git, no other programs, no environment).
const ctx: Context = { fs, clock: systemClock, ids: randomIds(), env: {}, processes: localProcesses };

parentPort?.on('message', (job: MergeRequest) => {
  let answer: MergeAnswer;
  try {
    answer = { id: job.id, done: runPackMergeJob(ctx, { dir: job.dir, registry: job.registry }) };
  } catch (e) {
    const code = e instanceof ShadowError ? e.code : (errnoCode(e) ?? 'INTERNAL');
    answer = { id: job.id, error: { code, message: e instanceof Error ? e.message : String(e) } };
  }
  parentPort!.postMessage(answer);
});
