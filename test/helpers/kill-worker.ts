/**
 * A child process for the lock tests: runs one command on a real repository
 * through an fs seam and SIGKILLs itself at a chosen fs call, so that a
 * crash lands while it holds a given lock.
 *
 *   node kill-worker.js <dir> <batch|finalize|apply|apply-commit|unapply> <op>[@<path suffix>]:<k>
 *
 * Dies at the k-th call of fs method <op> (on a path ending with the suffix,
 * if given). Prints one JSON line when it was not killed.
 */
import * as fs from 'node:fs';
import { nodeContext, openShadow, type FileSystem } from '../../src/index.js';
import { FsSeam } from './fs-seam.js';

const [dir, command, trigger] = process.argv.slice(2) as [string, string, string];
const m = /^(\w+)(?:@(.+))?:(\d+)$/.exec(trigger);
if (!m) throw new Error(`bad trigger ${trigger}`);
const [, wantedOp, suffix, k] = m;
const seam = new FsSeam(fs as unknown as FileSystem);
const base = nodeContext();
const sh = await openShadow({
  dir,
  fs: seam.fs,
  clock: base.clock,
  ids: base.ids,
  env: process.env,
  processes: base.processes,
  git: base.git,
});

let seen = 0;
seam.onCall = (_n, op, path) => {
  if (op !== wantedOp || (suffix !== undefined && !path?.endsWith(suffix))) return;
  if (++seen === Number(k)) {
    process.kill(process.pid, 'SIGKILL');
    for (;;) {
      // SIGKILL to oneself is delivered before kill(2) returns; never go on.
    }
  }
};
try {
  let session: string | undefined;
  if (command === 'finalize') {
    session = (await sh.sessions.begin({ intent: 'notes', target_file: 'notes.md', operation: 'create' })).session_id;
    sh.sessions.push(session, Buffer.from('# Notes\n\nfrom a session\n'));
  }
  seam.arm();
  let out: unknown;
  if (command === 'batch')
    out = await sh.batch({
      intent: 'killed',
      operations: [{ operation: 'write', path: 'killed.txt', content: 'k\n' }],
    });
  else if (command === 'finalize') out = await sh.sessions.finalize(session!);
  else if (command === 'unapply') out = await sh.unapply();
  else out = await sh.apply({ commit: command === 'apply-commit' });
  process.stdout.write(`${JSON.stringify({ ok: true, out })}\n`);
} catch (e) {
  process.stdout.write(
    `${JSON.stringify({ ok: false, code: (e as { code?: string }).code, message: (e as Error).message })}\n`,
  );
  process.exitCode = 1;
}
sh.close();
