import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { workerData, type MessagePort } from 'node:worker_threads';
import { launch, type CliBundle } from '../../cli/launch.js';
import type { ThreadCall } from './cli-thread.js';

/** The worker thread of cli-thread.ts: runs each call as the executable would, one at a time. */

const { signal, port } = workerData as { signal: SharedArrayBuffer; port: MessagePort };
const word = new Int32Array(signal);
const require = createRequire(import.meta.url);
const BUNDLE = new URL('../../bin/shadow-cli.cjs', import.meta.url);
const version = (): string =>
  (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
let cli: CliBundle | undefined;

async function answer(call: ThreadCall): Promise<{ status: number; stdout: Uint8Array; stderr: string }> {
  const out: Buffer[] = [];
  let err = '';
  const stdin = new PassThrough();
  stdin.end(call.input === undefined ? Buffer.alloc(0) : Buffer.from(call.input));
  let status: number;
  try {
    status = await launch(call.args, {
      cwd: call.cwd,
      env: { ...call.env },
      stdout: (s) => out.push(Buffer.from(s)),
      stderr: (s) => (err += s),
      stdin: () => stdin,
      isTTY: false,
      uid: process.getuid?.(),
      umask: process.umask(),
      version,
      loadCli: async () => ({ cli: (cli ??= require(fileURLToPath(BUNDLE)) as CliBundle), saveCache: () => undefined }),
    });
  } catch (e) {
    // The executable would end with node's uncaught-error report and status 1.
    err += `${e instanceof Error ? e.stack : String(e)}\n`;
    status = 1;
  }
  return { status, stdout: Buffer.concat(out), stderr: err };
}

/**
 * Until the call's work has ended: a process of the executable exits only
 * when nothing keeps its event loop alive (a pack merge it started after
 * answering, a timer), and its caller reads the answer only then. The port
 * the calls arrive on is the one resource of the thread's own.
 */
async function settled(): Promise<void> {
  const busy = (): boolean => process.getActiveResourcesInfo().some((r) => r !== 'MessagePort');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (busy()) {
    // A millisecond's sleep between looks, so that waiting on the thread pool does not spin.
    Atomics.wait(pause, 0, 0, 1);
    await new Promise((done) => setImmediate(done));
  }
}

port.on('message', ({ id, call }: { id: number; call: ThreadCall }) => {
  void answer(call).then(async (a) => {
    await settled();
    port.postMessage({ id, ...a });
    Atomics.store(word, 0, id);
    Atomics.notify(word, 0);
  });
});
