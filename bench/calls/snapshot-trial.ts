/**
 * The V8 start-up snapshot, tried against the code cache in the same run.
 *
 * Node builds a snapshot of a script's heap with `--build-snapshot` and
 * starts from it with `--snapshot-blob`: the CLI bundle evaluated at build
 * time, its `run` called by the snapshot's main function. Two kinds are
 * built here from the same dist/bin/shadow-cli.cjs:
 *
 * - cold: the bundle's top level evaluated, functions compiled lazily at
 *   run time as usual (without the code cache: a vm.Script's cache cannot be
 *   given to functions that already exist in the heap);
 * - eager: every function of the bundle compiled at build time (V8's
 *   `--no-lazy` around the compile), so their bytecode is in the snapshot.
 *
 * A third kind, a snapshot taken after a command ran (its modules
 * initialised, its functions compiled), would hold what that command read:
 * a repository, an environment, a time. It is not built.
 *
 * shadow does not ship a snapshot (docs/speed.md says why, with these
 * figures); this keeps the comparison reproducible.
 */
import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';

/** The script node runs with --build-snapshot (CommonJS: built-in modules only, the bundle evaluated in it). */
const BUILDER = `'use strict';
const v8 = require('node:v8');
const vm = require('node:vm');
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const file = process.env.SHADOW_TRIAL_BUNDLE;
const eager = process.env.SHADOW_TRIAL_EAGER === '1';
let load = require;
const mod = { exports: {} };
if (eager) v8.setFlagsFromString('--no-lazy');
const wrapped = new vm.Script(
  '(function (exports, require, module, __filename, __dirname) {"use strict";' + fs.readFileSync(file, 'utf8') + '\\n})',
  { filename: file },
).runInThisContext();
if (eager) v8.setFlagsFromString('--lazy');
wrapped(mod.exports, (id) => load(id), mod, file, path.dirname(file));
v8.startupSnapshot.setDeserializeMainFunction(() => {
  // Packages outside the bundle are found from the bundle's directory, at run time.
  load = Module.createRequire(file);
  // The same wider thread pool the executable gives a command it runs itself.
  if (process.env.UV_THREADPOOL_SIZE === undefined) {
    process.env.UV_THREADPOOL_SIZE = '16';
    fs.stat(file, () => undefined);
    delete process.env.UV_THREADPOOL_SIZE;
  }
  mod.exports
    .run(process.argv.slice(1), {
      cwd: process.cwd(),
      env: process.env,
      stdout: (s) => process.stdout.write(s),
      stderr: (s) => process.stderr.write(s),
      stdin: process.stdin,
      isTTY: process.stdout.isTTY === true,
    })
    .then((code) => (process.exitCode = code));
});
`;

export interface SnapshotBlobs {
  cold: string;
  eager: string;
  /** Bytes of each blob, beside the bundle's. */
  sizes: { bundle: number; cold: number; eager: number };
}

/** Build the cold and the eager snapshot of `bundle` into `dir`. */
export function buildSnapshots(bundle: string, dir: string): SnapshotBlobs {
  nodeFs.mkdirSync(dir, { recursive: true });
  const builder = join(dir, 'snapshot-builder.cjs');
  nodeFs.writeFileSync(builder, BUILDER);
  const blob = (kind: 'cold' | 'eager'): string => {
    const out = join(dir, `shadow-${kind}.blob`);
    const r = spawnSync(process.execPath, ['--snapshot-blob', out, '--build-snapshot', builder], {
      env: {
        PATH: process.env.PATH ?? '',
        SHADOW_TRIAL_BUNDLE: bundle,
        SHADOW_TRIAL_EAGER: kind === 'eager' ? '1' : '0',
      },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`building the ${kind} snapshot failed: ${r.stderr}`);
    return out;
  };
  const cold = blob('cold');
  const eager = blob('eager');
  const size = (f: string): number => nodeFs.statSync(f).size;
  return { cold, eager, sizes: { bundle: size(bundle), cold: size(cold), eager: size(eager) } };
}
