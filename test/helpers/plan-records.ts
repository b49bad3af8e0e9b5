import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiskRepo } from './disk-repo.js';
import type { ChildRun } from './plan-child.js';

/*
 * What a plan run left and printed: the draft's tracker and ledger on disk,
 * the JSON events on stdout, a one-line account of a child's run, and the
 * batch ids a..b it is checked against.
 */

export function range(a: number, b: number): number[] {
  return Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);
}

export function readTracker(repo: DiskRepo, draft: string): Record<string, any> | undefined {
  try {
    return JSON.parse(readFileSync(join(repo.dir, '.git/shadow/drafts', draft, 'tracker.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

export function ledger(repo: DiskRepo, draft: string): Array<Record<string, any>> {
  return readFileSync(join(repo.dir, '.git/shadow/drafts', draft, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

export function events(stdout: string): Array<Record<string, any>> {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

export function describe(r: ChildRun): string {
  return `exit ${r.code}, signal ${r.signal}, last events ${JSON.stringify(r.events.slice(-2))}, stderr: ${r.stderr.trim()}`;
}
