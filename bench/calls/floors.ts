/**
 * bench/calls' floors: what a design costs with no shadow in it, measured in
 * the same run as shadow, so that a target beyond one is seen as such.
 *
 * - A bare hand-off: a node client that loads `node:net`, connects to a
 *   Unix socket, sends a request of the same shape as a real hand-off's
 *   (its arguments, directory and whole environment), waits for `accepted`,
 *   says `go`, prints what comes back and exits; the server, another node
 *   process, answers at once and does no work. A handed-off call can be no
 *   faster than this.
 * - A bare durable hand-off: the same client and server, the server making
 *   a lone batch's five flushes (below) between `go` and its answer. The
 *   least a handed-off batch costs with shadow's crash protocol kept.
 * - A bare durable server: node's own `http` answering a POST after the
 *   waits a lone batch makes, one after the other (a pack, its index and a
 *   lock file written and flushed together; their directory flushed; a
 *   reflog line appended and flushed; the lock renamed onto the ref and its
 *   directory flushed; a ledger line appended and flushed), and no other
 *   work. A served batch can be no faster than this.
 */
import { spawn } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { started, stopped } from '../helpers/serve-proc.js';

/** Both ends of the bare hand-off: call `onFrame` for each JSON line that arrives on socket `s`. */
const FRAMES = `
function frames(s, onFrame) {
  let rest = '';
  s.setEncoding('utf8');
  s.on('data', (d) => {
    rest += d;
    let nl;
    while ((nl = rest.indexOf('\\n')) >= 0) {
      const frame = JSON.parse(rest.slice(0, nl));
      rest = rest.slice(nl + 1);
      onFrame(frame);
    }
  });
}
`;

/**
 * A lone batch's five waits, one after the other, as shadow makes them: a
 * pack, its index and the ref's lock file written and flushed together;
 * their directory; a reflog line appended and flushed; the lock renamed
 * onto the ref and its directory flushed; a ledger line appended and
 * flushed. The small writes on the event loop, each flush on the thread
 * pool (its only wait). `fiveFlushes(data)` for each batch, in `dir`.
 */
const FIVE_FLUSHES = `
const fs = require('node:fs');
const path = require('node:path');
const flushed = (fd) => new Promise((resolve, reject) => fs.fsync(fd, (e) => (e ? reject(e) : resolve())));
const flush = async (p) => { const fd = fs.openSync(p, 'r'); try { await flushed(fd); } finally { fs.closeSync(fd); } };
const written = async (p, data, flags = 'w') => { const fd = fs.openSync(p, flags); try { fs.writeSync(fd, data); await flushed(fd); } finally { fs.closeSync(fd); } };
let flushing = Promise.resolve();
let made = 0;
function flushesIn(dir) {
  const packs = path.join(dir, 'pack'), refs = path.join(dir, 'refs'), logs = path.join(dir, 'logs');
  for (const d of [packs, refs, logs]) fs.mkdirSync(d, { recursive: true });
  const one = async (text) => {
    const i = made++;
    await Promise.all([
      written(path.join(packs, 'tmp_pack_' + i), text),
      written(path.join(packs, 'tmp_idx_' + i), text.subarray(0, 64)),
      written(path.join(refs, 'draft.lock'), i.toString(16).padStart(40, '0') + '\\n'),
    ]);
    fs.renameSync(path.join(packs, 'tmp_pack_' + i), path.join(packs, 'pack-' + i + '.pack'));
    fs.renameSync(path.join(packs, 'tmp_idx_' + i), path.join(packs, 'pack-' + i + '.idx'));
    await flush(packs);
    await written(path.join(logs, 'draft'), 'a reflog line ' + i + '\\n', 'a');
    fs.renameSync(path.join(refs, 'draft.lock'), path.join(refs, 'draft'));
    await flush(refs);
    await written(path.join(dir, 'events.jsonl'), JSON.stringify({ seq: i }) + '\\n', 'a');
    return i;
  };
  // One batch at a time, as one draft's ref lock allows; a failed one does not stop the next.
  return (text) => {
    const done = flushing.then(() => one(text));
    flushing = done.catch(() => undefined);
    return done;
  };
}
`;

const HANDOFF_SERVER = `${FRAMES}${FIVE_FLUSHES}
const net = require('node:net');
const [sock, durableDir] = process.argv.slice(2);
const fiveFlushes = durableDir ? flushesIn(durableDir) : undefined;
const answer = (s) => s.end(JSON.stringify({ o: Buffer.from('batch 1 on draft k10: 0123456789ab\\n').toString('base64') }) + '\\n{"exit":0}\\n');
net.createServer((s) => {
  let request = '';
  frames(s, (frame) => {
    if ('build' in frame) {
      request = JSON.stringify(frame);
      s.write('{"accepted":true}\\n');
    } else if ('go' in frame) {
      if (fiveFlushes) fiveFlushes(Buffer.from(request)).then(() => answer(s), (e) => s.destroy(e));
      else answer(s);
    }
  });
  s.on('error', () => {});
}).listen(sock, () => process.stdout.write('listening\\n'));
`;

const HANDOFF_CLIENT = `${FRAMES}
const { connect } = require('node:net');
const [sock, ...args] = process.argv.slice(2);
const env = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
const s = connect(sock);
s.once('connect', () => s.write(JSON.stringify({ v: 1, build: 'bare', args, cwd: process.cwd(), env, umask: process.umask() }) + '\\n'));
frames(s, (frame) => {
  if ('accepted' in frame) s.write('{"go":true}\\n');
  else if ('o' in frame) require('node:fs').writeSync(1, Buffer.from(frame.o, 'base64'));
  else if ('exit' in frame) { process.exitCode = frame.exit; s.destroy(); }
});
`;

const DURABLE_SERVER = `${FIVE_FLUSHES}
const http = require('node:http');
const [dir] = process.argv.slice(2);
const fiveFlushes = flushesIn(dir);
http.createServer((req, res) => {
  const body = [];
  req.on('data', (d) => body.push(d));
  req.on('end', async () => {
    const i = await fiveFlushes(Buffer.concat(body));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, batch: i }));
  });
}).listen(0, '127.0.0.1', function () { process.stdout.write(JSON.stringify({ port: this.address().port }) + '\\n'); });
`;

/**
 * The bare hand-off's server, started in `root`; `client` is the script a
 * timed case runs with node. `durable`: the server makes a batch's five
 * flushes (under root/durable-handoff) before it answers.
 */
export async function startBareHandoff(
  root: string,
  durable = false,
): Promise<{ client: string; socket: string; stop(): Promise<unknown> }> {
  const name = durable ? 'bare-durable-handoff' : 'bare-handoff';
  const server = join(root, `${name}-server.cjs`);
  const client = join(root, 'bare-handoff-client.cjs');
  const socket = join(root, `${name}.sock`);
  nodeFs.writeFileSync(server, HANDOFF_SERVER);
  nodeFs.writeFileSync(client, HANDOFF_CLIENT);
  nodeFs.rmSync(socket, { force: true });
  const args = durable ? [server, socket, join(root, 'durable-handoff')] : [server, socket];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  await started(child, `the ${name.replace('-', ' ')} server`);
  return { client, socket, stop: () => stopped(child) };
}

/** The bare durable server, started in `root` (its files under root/durable). */
export async function startBareDurable(root: string): Promise<{ port: number; stop(): Promise<unknown> }> {
  const script = join(root, 'bare-durable-server.cjs');
  nodeFs.writeFileSync(script, DURABLE_SERVER);
  const child = spawn(process.execPath, [script, join(root, 'durable')], { stdio: ['ignore', 'pipe', 'pipe'] });
  const line = await started(child, 'the bare durable server');
  return { port: (JSON.parse(line) as { port: number }).port, stop: () => stopped(child) };
}
