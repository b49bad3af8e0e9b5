/**
 * A plan runner that SIGKILLs itself at an exact step: once plan batch
 * `after` has committed (0: from the start), the `nth` call of the
 * file-system method `method` whose path (the destination, for renameSync and linkSync)
 * matches `pattern`, right after that call returns (`before:<method>`: right
 * before it is made). It prints the plan's
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
  keyof FileSystem | 'event' | `before:${string}`,
  string,
  string,
  NodeJS.Signals | undefined,
];
const re = new RegExp(pattern);
const nth = Number(nthText);
let armed = Number(afterText) === 0;
let seen = 0;
const fs: Record<string, unknown> = { ...nodeFs };
// `before:<method>`: the kill comes just before that call instead of just after it.
const before = method.startsWith('before:');
const name = (before ? method.slice('before:'.length) : method) as keyof FileSystem | 'event';
if (name !== 'event') {
  const real = nodeFs[name] as (...args: unknown[]) => unknown;
  fs[name] = (...args: unknown[]): unknown => {
    const path = String(name === 'renameSync' || name === 'linkSync' ? args[1] : args[0]);
    const hit = armed && re.test(path) && ++seen === nth;
    if (hit && before) process.kill(process.pid, signal);
    const out = real(...args);
    if (hit && !before) process.kill(process.pid, signal);
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
