import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readBatchDocument, smallFileBytes, STREAM_BATCH_BYTES, type SmallFileFs } from '../cli/read-input.js';

/**
 * How a batch document named on the command line is read (cli/read-input.ts):
 * a small regular file at once, anything else as before. A server runs
 * handed-off batches on its event loop, so a FIFO must never be opened in
 * a way that waits there for its writer.
 */

const READ_INPUT = pathToFileURL(fileURLToPath(new URL('../cli/read-input.js', import.meta.url))).href;
const noStdin = {
  get stdin(): never {
    throw new Error('standard input is not read for a named file');
  },
};

type Ctx = { dir: string };
const S = suite<Ctx>('reading a batch document named on the command line');
S.before.each((c) => {
  c.dir = mkdtempSync(join(tmpdir(), 'shadow-read-input-'));
});
S.after.each((c) => rmSync(c.dir, { recursive: true, force: true }));

S('a small file comes back as its text; bytes that are not UTF-8 as those bytes', async (c) => {
  const text = JSON.stringify({ operations: [{ operation: 'write', path: 'a.txt', content: 'naïve ✓\n' }] });
  writeFileSync(join(c.dir, 'b.json'), text);
  assert.is(await readBatchDocument('b.json', c.dir, noStdin), text);
  const bad = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
  writeFileSync(join(c.dir, 'bad.json'), bad);
  assert.equal(await readBatchDocument('bad.json', c.dir, noStdin), bad);
  writeFileSync(join(c.dir, 'empty.json'), '');
  assert.is(await readBatchDocument('empty.json', c.dir, noStdin), '');
});

S('a missing file is NOT_FOUND, naming the file', async (c) => {
  const e = (await readBatchDocument('nope.json', c.dir, noStdin).catch((x: unknown) => x)) as {
    code: string;
    message: string;
  };
  assert.is(e.code, 'NOT_FOUND');
  assert.match(e.message, /cannot read nope\.json: ENOENT/);
});

S('a file of STREAM_BATCH_BYTES comes back in pieces, which hold its bytes', async (c) => {
  const big = Buffer.alloc(STREAM_BATCH_BYTES, 0x20);
  writeFileSync(join(c.dir, 'big.json'), big);
  const got = await readBatchDocument('big.json', c.dir, noStdin);
  assert.ok(typeof got !== 'string' && !Buffer.isBuffer(got), 'pieces');
  const pieces: Buffer[] = [];
  for await (const p of got as AsyncIterable<Buffer>) pieces.push(p);
  assert.is(Buffer.concat(pieces).length, STREAM_BATCH_BYTES);
});

/**
 * A FIFO at `dir/name` read with readBatchDocument in a process of its own,
 * with a deadline (a read that waits forever must fail, not hang the run).
 * `order` is the script's body: it starts `read()` and `writer()` (which
 * writes `text`) in some order and sets `got` to what was read, which is
 * returned. `hung` says what a read past the deadline means.
 */
function readFifoApart(dir: string, name: string, text: string, order: string, hung: string): unknown {
  const fifo = join(dir, name);
  assert.is(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
  const script = `
    const { readBatchDocument } = await import(${JSON.stringify(READ_INPUT)});
    const { writeFile } = await import('node:fs/promises');
    const io = { get stdin() { throw new Error('stdin'); } };
    const read = () => readBatchDocument(${JSON.stringify(fifo)}, '/', io);
    const writer = () => writeFile(${JSON.stringify(fifo)}, ${JSON.stringify(text)});
    ${order}
    process.stdout.write(JSON.stringify(got));
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  assert.is(r.signal, null, hung);
  assert.is(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

S('a FIFO with no writer yet lets the event loop go on, then is read whole', (c) => {
  const text = JSON.stringify({ operations: [{ operation: 'write', path: 'f.txt', content: 'from a FIFO\n' }] });
  const got = readFifoApart(
    c.dir,
    'in.fifo',
    text,
    // The writer only after a turn of the event loop (the read must not have held it), and on the thread pool.
    'const reading = read(); await new Promise((r) => setImmediate(r)); const [got] = await Promise.all([reading, writer()]);',
    'the read held the event loop until the deadline',
  );
  assert.is(got, text);
});

S('a FIFO whose writer came first is read whole: nothing opens it before the read that stays', (c) => {
  const text = JSON.stringify({ operations: [{ operation: 'write', path: 'g.txt', content: 'writer first\n' }] });
  // The writer first: on the thread pool it waits in open for a reader.
  const got = readFifoApart(
    c.dir,
    'first.fifo',
    text,
    'const written = writer(); const [got] = await Promise.all([read(), written]);',
    'the read waited for a writer that had gone',
  );
  assert.is(got, text);
  const fifo = join(c.dir, 'first.fifo');
  // And the read at once never opens anything but a regular file (opening a FIFO lets its writer go on).
  const opened: string[] = [];
  const spy: SmallFileFs = {
    statSync: nodeFs.statSync,
    fstatSync: nodeFs.fstatSync,
    readSync: nodeFs.readSync,
    closeSync: nodeFs.closeSync,
    openSync: (path: nodeFs.PathLike, flags: nodeFs.OpenMode, mode?: nodeFs.Mode | null) => {
      opened.push(String(path));
      return nodeFs.openSync(path, flags, mode);
    },
  };
  assert.is(smallFileBytes(fifo, STREAM_BATCH_BYTES, spy), undefined);
  assert.equal(opened, [], 'the FIFO was opened');
  writeFileSync(join(c.dir, 'plain.json'), text);
  assert.equal(smallFileBytes(join(c.dir, 'plain.json'), STREAM_BATCH_BYTES, spy), Buffer.from(text));
  assert.equal(opened, [join(c.dir, 'plain.json')]);
  assert.is(smallFileBytes(join(c.dir, 'plain.json'), text.length, spy), undefined, 'not shorter than the limit');
  // A FIFO swapped in between the stat and the open: opened without blocking, then sent the other way.
  const flags: number[] = [];
  const swapped: SmallFileFs = {
    ...spy,
    statSync: ((path: nodeFs.PathLike) =>
      nodeFs.statSync(String(path) === fifo ? join(c.dir, 'plain.json') : path)) as SmallFileFs['statSync'],
    openSync: (path: nodeFs.PathLike, flag: nodeFs.OpenMode, mode?: nodeFs.Mode | null) => {
      flags.push(Number(flag));
      // Without O_NONBLOCK the open would wait here for a writer that never comes.
      if ((Number(flag) & nodeFs.constants.O_NONBLOCK) === 0) throw new Error('a blocking open of a FIFO');
      return nodeFs.openSync(path, flag, mode);
    },
  };
  assert.is(smallFileBytes(fifo, STREAM_BATCH_BYTES, swapped), undefined);
  assert.is(flags.length, 1);
  assert.ok((flags[0]! & nodeFs.constants.O_NONBLOCK) !== 0, 'opened without blocking');
});

S.run();
