import { pathToFileURL } from 'node:url';

/**
 * Runs several test files one after another in this one process (the
 * runner's groups of short files, test/run-tests.ts): node's start and the
 * library's load, some 0.3 s of CPU a process, are paid once a group.
 *
 * Each file is imported with uvu's queue deferred (as uvu's own CLI runs
 * files), then its suites run before the next file is imported, so a file
 * sees no other file's tests running. Each file's output is framed by a
 * line `<<< name` and a line `>>> name <ms>`, and ends with uvu's own
 * `Total:`/`Passed:`/`Skipped:` lines; a file whose closing line is missing
 * (the process died in it) is failed by the runner.
 */

declare global {
  var UVU_DEFER: number | undefined;
  var UVU_INDEX: number | undefined;
  var UVU_QUEUE: Array<Array<string | null | (() => Promise<[string | true, number, number, number]>)>>;
}

globalThis.UVU_DEFER = 1;
globalThis.UVU_QUEUE = [];
const write = (s: string): boolean => process.stdout.write(s);
let failed = false;

for (const [index, path] of process.argv.slice(2).entries()) {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const started = Date.now();
  write(`<<< ${name}\n`);
  globalThis.UVU_INDEX = index;
  globalThis.UVU_QUEUE[index] = [name];
  await import(pathToFileURL(path).href);
  const [, ...suites] = globalThis.UVU_QUEUE[index]!;
  let total = 0;
  let passed = 0;
  let skipped = 0;
  for (const suite of suites) {
    const [errors, ran, skips, max] = await (suite as () => Promise<[string | true, number, number, number]>)();
    total += max;
    passed += ran;
    skipped += skips;
    if (errors !== true) {
      failed = true;
      write(`\n${errors}\n`);
    }
  }
  write(
    `\n  Total:     ${total}\n  Passed:    ${passed}\n  Skipped:   ${skipped}\n>>> ${name} ${Date.now() - started}\n`,
  );
}
process.exitCode = failed ? 1 : 0;
