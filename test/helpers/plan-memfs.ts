import * as assert from 'uvu/assert';
import { openShadow, type FileSystem, type PlanEvent, type Shadow, type Tracker } from '../../src/index.js';
import type { MemRepo } from './mem-repo.js';

/*
 * Plans in-process on memfs: the plan file, the tracker file, a handle that
 * knows its process, the events a run sends, and the errors expected.
 */

export const PLAN_FILE = '/repo/plan.json';
export const N = 12;

export function range(a: number, b: number): number[] {
  return Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);
}

export function draftPath(draft = 'default'): string {
  return `/repo/.git/shadow/drafts/${draft}`;
}

export function readTrackerFile(repo: MemRepo, draft = 'default'): Tracker | undefined {
  const p = `${draftPath(draft)}/tracker.json`;
  return repo.fs.existsSync(p) ? (JSON.parse(String(repo.fs.readFileSync(p, 'utf8'))) as Tracker) : undefined;
}

export function writeTrackerFile(repo: MemRepo, t: unknown, draft = 'default'): void {
  repo.fs.writeFileSync(`${draftPath(draft)}/tracker.json`, typeof t === 'string' ? t : `${JSON.stringify(t)}\n`);
}

export function writePlanFile(repo: MemRepo, text: string): void {
  repo.fs.writeFileSync(PLAN_FILE, text);
}

/** A handle that knows its process (for `stopPlan`): this pid on 'test-host', alive when in `alive`. */
export function openAs(repo: MemRepo, self: number, alive: Set<number>, fs: FileSystem = repo.ctx.fs): Promise<Shadow> {
  return openShadow({
    dir: repo.dir,
    fs,
    clock: repo.ctx.clock,
    ids: repo.ctx.ids,
    env: repo.ctx.env,
    processes: { self, host: 'test-host', isAlive: (pid) => alive.has(pid) },
  });
}

/** Collects events; `stopAfter(k)` is a shouldStop that turns true once k batches committed in this run. */
export function recorder(): {
  events: PlanEvent[];
  onEvent: (e: PlanEvent) => void;
  stopAfter: (k: number) => () => boolean;
} {
  const events: PlanEvent[] = [];
  return {
    events,
    onEvent: (e) => events.push(e),
    stopAfter: (k) => () => events.filter((e) => e.type === 'batch/commit').length >= k,
  };
}

export async function eventTypes(sh: Shadow): Promise<string[]> {
  return (await sh.events()).map((e) => e.type);
}

/** Run `text` (remembered as PLAN_FILE) and stop after `k` batches. */
export async function runAndStop(repo: MemRepo, sh: Shadow, text: string, k: number): Promise<void> {
  writePlanFile(repo, text);
  const rec = recorder();
  const out = await sh.runPlan(text, { planFile: PLAN_FILE, shouldStop: rec.stopAfter(k), onEvent: rec.onEvent });
  assert.is(out.status, 'stopped');
  assert.is(out.last_completed_batch_id, k);
}

export async function expectCode(
  p: Promise<unknown>,
  code: string,
): Promise<Error & { code: string; data?: any; hint?: string }> {
  try {
    await p;
  } catch (e) {
    assert.is((e as { code?: string }).code, code, (e as Error).message);
    return e as Error & { code: string };
  }
  assert.unreachable(`expected ${code}`);
  throw new Error('unreachable');
}

export const write = (path: string, content = `${path}\n`) => ({ operation: 'write' as const, path, content });

export const good = (id: number): Record<string, unknown> => ({ id, operations: [write(`f${id}.txt`)] });
export const jsonPlan = (batches: unknown[], extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ ...extra, batches });
