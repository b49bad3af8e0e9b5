import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { notStrictEqual, strictEqual } from '../cli/yargs-shims/assert.js';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';

/*
 * What a one-shot command run by the caller sets up at start: node makes
 * `process.stdin` a stream on first use (for a pipe, a socket), which only a
 * command that reads its input should pay for. A probe preloaded into the
 * process reports on stderr when `process.stdin` is first touched.
 */

const S = suite<{ repo: DiskRepo; probe: string }>('start-up: standard input is set up only when read');
S.before((c) => {
  c.repo = new DiskRepo({ 'a.txt': 'a\n' });
  c.probe = join(c.repo.root, 'stdin-probe.cjs');
  writeFileSync(
    c.probe,
    [
      "const d = Object.getOwnPropertyDescriptor(process, 'stdin');",
      "Object.defineProperty(process, 'stdin', {",
      '  configurable: true,',
      '  enumerable: d.enumerable,',
      "  get() { process._rawDebug('stdin set up'); Object.defineProperty(process, 'stdin', d); return d.get.call(process); },",
      '});',
    ].join('\n'),
  );
});
S.after((c) => c.repo.cleanup());

const run = (c: { repo: DiskRepo; probe: string }, args: string[], input = '') =>
  spawnSync(process.execPath, ['--require', c.probe, SHADOW_BIN, ...args], {
    cwd: c.repo.dir,
    env: { ...c.repo.env, SHADOW_HANDOFF: '0' },
    input,
    encoding: 'utf8',
  });

S('a batch from a file, status and diff never set up stdin; the batch lands in the draft', (c) => {
  const file = join(c.repo.root, 'batch.json');
  writeFileSync(file, JSON.stringify({ operations: [{ operation: 'write', path: 'b.txt', content: 'b\n' }] }));
  for (const args of [['batch', file], ['status'], ['diff', '--stat']]) {
    const r = run(c, args, 'ignored input');
    assert.is(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.is(r.stderr, '', `${args.join(' ')} set up stdin`);
  }
  assert.is(c.repo.git('show', 'refs/shadow/drafts/default:b.txt'), 'b\n', 'git sees the batch');
});

S('a batch from stdin reads it: stdin is set up, and its content lands', (c) => {
  const doc = JSON.stringify({ operations: [{ operation: 'write', path: 'c.txt', content: 'c\n' }] });
  const r = run(c, ['batch', '-'], doc);
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stderr, 'stdin set up\n');
  assert.is(c.repo.git('show', 'refs/shadow/drafts/default:c.txt'), 'c\n');
});

const P = suite<{ repo: DiskRepo; probe: string }>(
  'start-up: node:child_process loads only when a process is started, node:assert never, node:fs/promises for a large input only',
);
P.before((c) => {
  c.repo = new DiskRepo({ 'a.txt': 'a\n' });
  c.probe = join(c.repo.root, 'modules-probe.cjs');
  writeFileSync(
    c.probe,
    [
      "process.on('exit', () => {",
      "  for (const m of ['child_process', 'assert', 'fs/promises'])",
      "    if (process.moduleLoadList.includes('NativeModule ' + m)) process._rawDebug(m + ' loaded');",
      '});',
    ].join('\n'),
  );
});
P.after((c) => c.repo.cleanup());

P('a batch from a file and status start no process and load none of them; blame runs git, and does', (c) => {
  const file = join(c.repo.root, 'batch.json');
  writeFileSync(file, JSON.stringify({ operations: [{ operation: 'write', path: 'a.txt', content: 'a\nb\n' }] }));
  for (const args of [['batch', file], ['status']]) {
    const r = run(c, args);
    assert.is(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.is(r.stderr, '', `${args.join(' ')} loaded node:child_process, node:assert or node:fs/promises`);
  }
  const blame = run(c, ['blame', 'a.txt', '--porcelain']);
  assert.is(blame.status, 0, blame.stderr);
  assert.is(blame.stderr, 'child_process loaded\n');
  const expected = c.repo.git(
    'blame',
    '--porcelain',
    c.repo.git('rev-parse', 'refs/shadow/drafts/default').trim(),
    '--',
    'a.txt',
  );
  assert.is(blame.stdout, expected, 'the same lines as git blame');
});

const A = suite('yargs-shims/assert: node:assert’s strict checks, for yargs');

A('strictEqual and notStrictEqual compare as Object.is, and throw the message given', () => {
  for (const [a, b] of [
    [1, 1],
    ['x', 'x'],
    [NaN, NaN],
    [undefined, undefined],
  ] as const) {
    strictEqual(a, b);
    assert.throws(() => notStrictEqual(a, b));
  }
  for (const [a, b] of [
    [1, '1'],
    [0, -0],
    [null, undefined],
    [{}, {}],
  ] as const) {
    notStrictEqual(a, b);
    assert.throws(() => strictEqual(a, b));
  }
  assert.throws(() => strictEqual(1, 2, 'one is not two'), /one is not two/);
  const own = new TypeError('its own');
  assert.throws(
    () => notStrictEqual(1, 1, own),
    (e: unknown) => e === own,
  );
});

S.run();
P.run();
A.run();
