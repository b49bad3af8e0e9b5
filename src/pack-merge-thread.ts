import * as nodeFs from 'node:fs';
import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import type { FileSystem, PackMergeJob, PackMergeResult, PackMerger } from './context.js';
import { ShadowError } from './errors.js';
import { releaseHeldBy } from './durable/process-lock.js';
import { MERGE_LOCK_WHAT, mergeLockPath } from './git/pack-consolidate.js';
import type { MergeAnswer, MergeRequest } from './pack-merge-worker.js';

type Done = PackMergeResult | undefined;

interface Waiting {
  job: PackMergeJob;
  resolve(done: Done): void;
  reject(e: Error): void;
  /** Settles with the merge, whatever its outcome (close waits for it). */
  settled: Promise<unknown>;
}

/**
 * Pack merges on a worker thread (pack-merge-worker.ts), for a process that
 * serves requests (`shadow serve`, `shadow mcp`, a library server): a
 * merge reads, writes, fsyncs and removes files for milliseconds, and on
 * the event loop, even in steps, each step delays the batch that waits
 * behind it. The thread starts at the first merge and stays for the next;
 * it does not keep the process alive while idle, and does while a merge
 * runs (a process that ends mid-merge leaves what a crash leaves, which the
 * next merge takes over, but has no reason to). The merge lock still
 * allows one merge at a time per repository.
 *
 * One thread serves every handle of the process (SharedCaches carries it to
 * `openShadow`).
 *
 * @example
 * const merger = new PackMergeThread();
 * const sh = await openShadow({ dir, packMerger: merger });
 * // ... serve ...
 * await merger.close();
 */
export class PackMergeThread implements PackMerger {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private next = 1;
  private closed = false;

  /** Runs `job` on the thread (started now if it is not running). */
  merge(job: PackMergeJob): Promise<PackMergeResult | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const worker = this.start();
    const id = this.next++;
    const request: MergeRequest = { id, dir: job.dir, registry: job.registry };
    let answer!: Pick<Waiting, 'resolve' | 'reject'>;
    const merged = new Promise<Done>((resolve, reject) => (answer = { resolve, reject }));
    this.waiting.set(id, { job, ...answer, settled: merged.catch(() => undefined) });
    worker.ref();
    worker.postMessage(request);
    return merged;
  }

  /** Stop the thread once the merges sent to it are over. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.waiting.values()].map((w) => w.settled));
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // Loaded at the first merge: a command that never merges on a thread (every one-shot command) never loads it.
    const threads = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
    const worker = new threads.Worker(new URL('./pack-merge-worker.js', import.meta.url));
    worker.unref();
    worker.on('message', (answer: MergeAnswer) => {
      const w = this.waiting.get(answer.id);
      if (!w) return;
      this.waiting.delete(answer.id);
      if (this.waiting.size === 0) worker.unref();
      if ('error' in answer)
        w.reject(new ShadowError('IO_ERROR', `pack merge: ${answer.error.code}: ${answer.error.message}`));
      else w.resolve(answer.done);
    });
    // The thread died (an error it did not catch): what it ran fails, a
    // merge lock it held is released (its holder, this process, lives on),
    // and the next merge starts another thread.
    const lost = (why: string): void => {
      if (this.worker === worker) this.worker = undefined;
      const pending = [...this.waiting.values()];
      this.waiting.clear();
      for (const w of pending) {
        releaseHeldBy(
          { fs: nodeFs as unknown as FileSystem },
          mergeLockPath(w.job.registry),
          process.pid,
          MERGE_LOCK_WHAT,
        );
        w.reject(new ShadowError('IO_ERROR', `the pack merge thread stopped: ${why}`));
      }
    };
    worker.on('error', (e) => lost(e.message));
    worker.on('exit', (code) => lost(`exit ${code}`));
    this.worker = worker;
    return worker;
  }
}
