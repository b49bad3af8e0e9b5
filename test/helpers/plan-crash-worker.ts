/**
 * A plan runner that SIGKILLs itself at an exact step: once plan batch
 * `after` has committed (0: from the start), the `nth` call of the
 * file-system method `method` whose path (the destination, for renameSync and linkSync)
 * matches `pattern`, right after that call returns. It prints the plan's
 * events as JSON lines until then. With `event` for the method, it signals
 * itself right after printing the batch/commit event of plan batch
 * `pattern` (between batches: no lock held), with `signal` (default
 * SIGKILL; SIGSTOP pauses it there).
 *
 *   node plan-crash-worker.js <dir> <plan file> <after> <method> <pattern> <nth> [signal]
 */
import * as nodeFs from 'node:fs';
import { nodeContext, openShadow, type FileSystem } from '../../src/index.js';

const [dir, planFile, afterText, method, pattern, nthText, signal = 'SIGKILL'] = process.argv.slice(2) as [
  string,
  string,
  string,
  keyof FileSystem | 'event',
  string,
  string,
  NodeJS.Signals | undefined,
];
const re = new RegExp(pattern);
const nth = Number(nthText);
let armed = Number(afterText) === 0;
let seen = 0;
const fs: Record<string, unknown> = { ...nodeFs };
if (method !== 'event') {
  const real = nodeFs[method] as (...args: unknown[]) => unknown;
  fs[method] = (...args: unknown[]): unknown => {
    const out = real(...args);
    const path = String(method === 'renameSync' || method === 'linkSync' ? args[1] : args[0]);
    if (armed && re.test(path) && ++seen === nth) process.kill(process.pid, signal);
    return out;
  };
}
const ctx = nodeContext({ fs: fs as unknown as FileSystem });
const sh = await openShadow({
  dir,
  fs: ctx.fs,
  clock: ctx.clock,
  ids: ctx.ids,
  env: ctx.env,
  processes: ctx.processes,
});
await sh.runPlan(nodeFs.readFileSync(planFile, 'utf8'), {
  planFile,
  onEvent: (e) => {
    process.stdout.write(`${JSON.stringify(e)}\n`);
    if (e.type === 'batch/commit' && e.plan_batch === Number(afterText)) armed = true;
    if (method === 'event' && e.type === 'batch/commit' && e.plan_batch === Number(pattern))
      process.kill(process.pid, signal);
  },
});
sh.close();
