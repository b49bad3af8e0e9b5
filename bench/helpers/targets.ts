/** A benchmark's targets: each judged PASS, FAIL or SKIP from its checks, and printed with the run's tally. */
import { loadAverage } from './machine.js';

export interface Verdict {
  status: 'PASS' | 'FAIL' | 'SKIP';
  target: string;
  detail: string;
}

/** One measurement held against a target. */
export interface Check {
  ok: boolean;
  text: string;
}

/** SKIP (because of `missing`) with no checks; PASS when every check holds; FAIL otherwise. */
export function verdict(target: string, checks: readonly Check[], missing: string): Verdict {
  if (checks.length === 0) return { status: 'SKIP', target, detail: missing };
  return { status: checks.every((c) => c.ok) ? 'PASS' : 'FAIL', target, detail: checks.map((c) => c.text).join('; ') };
}

/** Every verdict, the load average at the end, then how many passed, failed and were skipped, and the run's seconds since `started`. */
export function printVerdicts(vs: readonly Verdict[], started: number): void {
  for (const v of vs) console.log(`${v.status}  ${v.target}${v.detail ? `: ${v.detail}` : ''}`);
  const pass = vs.filter((v) => v.status === 'PASS').length;
  const fail = vs.filter((v) => v.status === 'FAIL').length;
  const skip = vs.filter((v) => v.status === 'SKIP').length;
  console.log(`load average at the end: ${loadAverage()}`);
  console.log(
    `\n${pass} passed, ${fail} failed, ${skip} skipped  (${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
}
