/**
 * A child process for the crash tests: runs `apply` (or `unapply`) on a real
 * repository through an fs seam, and kills itself with SIGKILL at a chosen
 * fs call, so that a crash lands on an exact step of the publish.
 *
 *   node apply-worker.js <dir> <apply|unapply> <point>
 *
 * <point>: `journal` (the rename that makes the journal), `rename:<k>` (the
 * k-th rename into the working tree, 1-based: its temp file is written and
 * fsynced), `record` (the rename of the journal into the apply record),
 * `none` (run to the end). Prints one JSON line when it was not killed.
 */
import * as fs from 'node:fs';
import { nodeContext, openShadow, type FileSystem } from '../../src/index.js';
import { FsSeam } from './fs-seam.js';

const [dir, command, point] = process.argv.slice(2) as [string, 'apply' | 'unapply', string];
const seam = new FsSeam(fs as unknown as FileSystem);
const base = nodeContext();
const sh = await openShadow({
  dir,
  fs: seam.fs,
  clock: base.clock,
  ids: base.ids,
  env: process.env,
  processes: base.processes,
});

const inWorktree = (p: string | undefined): boolean =>
  p !== undefined && p.startsWith(`${dir}/`) && !p.startsWith(`${dir}/.git/`);
let renames = 0;
const wanted = point.startsWith('rename:') ? Number(point.slice('rename:'.length)) : -1;

function die(): never {
  process.kill(process.pid, 'SIGKILL');
  for (;;) {
    // SIGKILL to oneself is delivered before kill(2) returns; never go on.
  }
}

seam.onCall = (_n, op, path) => {
  if (op !== 'renameSync') return;
  if (point === 'journal' && path?.includes('/shadow/journal/')) die();
  if (point === 'record' && path?.includes('/applies/')) die();
  if (inWorktree(path) && ++renames === wanted) die();
};
seam.arm();
try {
  const r = command === 'apply' ? await sh.apply() : await sh.unapply();
  process.stdout.write(`${JSON.stringify({ ok: true, paths: r.paths.length })}\n`);
} catch (e) {
  process.stdout.write(
    `${JSON.stringify({ ok: false, code: (e as { code?: string }).code, message: (e as Error).message })}\n`,
  );
  process.exitCode = 1;
}
sh.close();
