import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';
import { exited } from './helpers/session-http.js';

/*
 * The executable's standard output (cli/stdout-fd.ts): a pipe or a file is
 * written on descriptor 1 without node's process.stdout, so a command run
 * by an agent or a hook loads neither node's sockets (`net`) nor `tty`; the
 * bytes are those a file receives, whole however slowly the reader reads,
 * through a descriptor left non-blocking too; a reader that stops early
 * ends the command quietly.
 */

const S = suite<{ repo: DiskRepo; probe: string; big: Buffer }>('standard output without node’s stream');
S.before((c) => {
  // 1 MiB of text, in lines: many times a pipe's buffer.
  c.big = Buffer.from(
    Array.from({ length: 16_384 }, (_, i) => `${String(i).padStart(8, '0')} ${'x'.repeat(54)}\n`).join(''),
  );
  c.repo = new DiskRepo({ 'a.txt': 'a\n', 'big.txt': c.big.toString() });
  c.probe = join(c.repo.root, 'net-probe.cjs');
  writeFileSync(
    c.probe,
    [
      "process.on('exit', () => {",
      "  for (const m of ['net', 'tty'])",
      "    if (process.moduleLoadList.includes('NativeModule ' + m)) process._rawDebug(m + ' loaded');",
      '});',
    ].join('\n'),
  );
  const batch = join(c.repo.root, 'batch.json');
  writeFileSync(batch, JSON.stringify({ operations: [{ operation: 'write', path: 'b.txt', content: 'b\n' }] }));
});
S.after((c) => c.repo.cleanup());

const env = (repo: DiskRepo) => ({ ...repo.env, SHADOW_HANDOFF: '0' });

S('a batch, status and diff --stat into a pipe load neither net nor tty, and print what a file receives', (c) => {
  for (const args of [['batch', join(c.repo.root, 'batch.json')], ['status'], ['diff', '--stat'], ['cat', 'big.txt']]) {
    const piped = spawnSync(process.execPath, ['--require', c.probe, SHADOW_BIN, ...args], {
      cwd: c.repo.dir,
      env: env(c.repo),
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.is(piped.status, 0, `${args.join(' ')}: ${piped.stderr}`);
    assert.is(piped.stderr.toString(), '', `${args.join(' ')} into a pipe`);
    if (args[0] === 'batch') continue;
    const out = join(c.repo.root, 'out.txt');
    const fd = openSync(out, 'w');
    const toFile = spawnSync(process.execPath, [SHADOW_BIN, ...args], {
      cwd: c.repo.dir,
      env: env(c.repo),
      stdio: ['ignore', fd, 'pipe'],
    });
    closeSync(fd);
    assert.is(toFile.status, 0, String(toFile.stderr));
    assert.equal(piped.stdout, readFileSync(out), `${args.join(' ')}: the same bytes into a pipe and a file`);
  }
  assert.equal(
    spawnSync(process.execPath, [SHADOW_BIN, 'cat', 'big.txt'], {
      cwd: c.repo.dir,
      env: env(c.repo),
      maxBuffer: 1 << 26,
    }).stdout,
    c.big,
  );
});

S('into /dev/null, --version, a batch and status load neither net nor tty, and the batch lands', (c) => {
  const ref = () =>
    spawnSync('git', ['rev-parse', '-q', '--verify', 'refs/shadow/drafts/devnull'], {
      cwd: c.repo.dir,
      encoding: 'utf8',
    }).stdout.trim();
  assert.is(ref(), '', 'no draft yet');
  const doc = join(c.repo.root, 'devnull.json');
  writeFileSync(doc, JSON.stringify({ operations: [{ operation: 'write', path: 'n.txt', content: 'n\n' }] }));
  for (const args of [['--version'], ['batch', '--draft', 'devnull', doc], ['status', '--draft', 'devnull']]) {
    const fd = openSync('/dev/null', 'w');
    const r = spawnSync(process.execPath, ['--require', c.probe, SHADOW_BIN, ...args], {
      cwd: c.repo.dir,
      env: env(c.repo),
      stdio: ['ignore', fd, 'pipe'],
    });
    closeSync(fd);
    assert.is(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.is(String(r.stderr), '', `${args.join(' ')} into /dev/null`);
  }
  const tip = ref();
  assert.match(tip, /^[0-9a-f]{40}$/);
  const shown = spawnSync('git', ['show', `${tip}:n.txt`], { cwd: c.repo.dir, encoding: 'utf8' });
  assert.is(shown.stdout, 'n\n');
});

S(
  'through a descriptor left non-blocking (a full pipe refuses a write), the output is still whole and in order',
  async (c) => {
    const fifo = join(c.repo.root, 'out.fifo');
    assert.is(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
    // A reader first (a FIFO opened for writing without one fails), then the write end, non-blocking:
    // the child inherits its O_NONBLOCK, and its writes meet a full pipe until the test reads.
    const opener = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writeFd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    // The test's own reading end blocks (read on node's thread pool); the child's end stays non-blocking.
    const readFd = openSync(fifo, constants.O_RDONLY);
    closeSync(opener);
    const child = spawn(process.execPath, [SHADOW_BIN, 'cat', 'big.txt'], {
      cwd: c.repo.dir,
      env: env(c.repo),
      stdio: ['ignore', writeFd, 'pipe'],
    });
    closeSync(writeFd);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const chunks: Buffer[] = [];
    const reader = createReadStream('', { fd: readFd });
    const read = new Promise<void>((done, failed) => {
      reader.on('data', (d) => chunks.push(Buffer.from(d)));
      reader.on('end', () => done());
      reader.on('error', failed);
    });
    const exit = await exited(child);
    await read;
    assert.equal(exit, { code: 0, signal: null }, stderr);
    assert.is(stderr, '');
    assert.equal(Buffer.concat(chunks), c.big);
  },
);

S('a reader that stops early ends the command with its status and nothing on stderr', async (c) => {
  const child = spawn(process.execPath, [SHADOW_BIN, 'cat', 'big.txt'], {
    cwd: c.repo.dir,
    env: env(c.repo),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  // `| head -c 100`: the first bytes, then the pipe closes.
  await new Promise<void>((done) => child.stdout!.once('data', () => done()));
  child.stdout!.destroy();
  assert.equal(await exited(child), { code: 0, signal: null });
  assert.is(stderr, '');
});

S.run();
