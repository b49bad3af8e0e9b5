import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

/**
 * The CLI run in a worker thread of the test's process instead of a process
 * of its own: the same launch sequence as the executable (cli/launch.ts: the
 * hand-off to a running server, then the CLI bundle `shadow-cli.cjs`, as
 * built), answered synchronously, as `spawnSync` answers, so a test reads the
 * same {status, stdout, stderr}.
 *
 * Why: a CLI process costs node's start and the bundle's load, about 120 ms
 * of CPU, and the suite runs some two thousand of them; in the thread a call
 * costs its work. What only a process has (the executable's own start, its
 * code cache, signals, a pipe for stdin, EPIPE, the exit itself) is tested
 * with real processes (`{ process: true }`, or the executable spawned
 * directly), and `SHADOW_TEST_CLI=process` runs every call as a process.
 *
 * The thread answers through a shared word it sets once the answer is
 * posted: the test's thread waits on it (Atomics.wait), as spawnSync blocks,
 * so nothing of the test runs during a call in either way.
 */

export interface ThreadCall {
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  input?: string | Buffer;
}

export interface ThreadAnswer {
  status: number;
  stdout: Buffer;
  stderr: string;
}

/** A call that has not answered in this long is a hung command: the test fails, as a killed process would. */
const CALL_TIMEOUT_MS = 120_000;

interface Thread {
  worker: Worker;
  port: MessagePort;
  signal: Int32Array;
  gone: boolean;
}

let thread: Thread | undefined;

function start(): Thread {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL('./cli-thread-worker.js', import.meta.url), {
    workerData: { signal: signal.buffer, port: port2 },
    transferList: [port2],
    // Anything written on the thread's own process.stdout or stderr (the CLI writes to what it is given) reaches the
    // test's output; the thread's process.env is a copy, and a call's environment is given to the CLI, never set there.
    stdout: false,
    stderr: false,
  });
  // The test's process ends when its tests do, whatever the thread holds.
  worker.unref();
  port1.unref();
  const t: Thread = { worker, port: port1, signal, gone: false };
  worker.on('exit', () => (t.gone = true));
  worker.on('error', () => (t.gone = true));
  return t;
}

/**
 * Whether a call can run in the thread: one whose time zone is not the
 * process's runs as a process (dates are printed in the process's zone), as
 * a server declines such a hand-off.
 */
export function threadCanRun(env: Record<string, string | undefined>): boolean {
  return env.TZ === process.env.TZ;
}

let lastId = 0;

/**
 * Run the CLI with `call` in the thread; its answer. Each call has an id:
 * the thread posts its answer with it, then stores it in the shared word
 * and wakes this thread. An answer of another id (none is expected) is
 * dropped, and the wait goes on until this call's answer is read.
 */
export function runInThread(call: ThreadCall): ThreadAnswer {
  if (thread === undefined || thread.gone) thread = start();
  const t = thread;
  const id = (lastId = (lastId % 0x7fffffff) + 1);
  Atomics.store(t.signal, 0, 0);
  t.port.postMessage({ id, call });
  const deadline = Date.now() + CALL_TIMEOUT_MS;
  for (;;) {
    const got = receiveMessageOnPort(t.port);
    if (got !== undefined) {
      const answer = got.message as { id: number; status: number; stdout: Uint8Array; stderr: string };
      if (answer.id === id) return { status: answer.status, stdout: Buffer.from(answer.stdout), stderr: answer.stderr };
      continue;
    }
    const left = deadline - Date.now();
    if (left <= 0) break;
    const seen = Atomics.load(t.signal, 0);
    // Until the word changes (the answer is posted before it does), or, once it names this call, a moment more.
    Atomics.wait(t.signal, 0, seen, seen === id ? 1 : Math.min(left, 1000));
  }
  thread = undefined;
  void t.worker.terminate();
  throw new Error(
    `shadow ${call.args.join(' ')}: no answer from the CLI thread in ${CALL_TIMEOUT_MS / 1000} s ` +
      `(its word: ${Atomics.load(t.signal, 0)}, this call: ${id})`,
  );
}
