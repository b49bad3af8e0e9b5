import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STREAM_BATCH_BYTES } from '../cli/read-input.js';
import { parseJsonStream } from '../src/drafts/batch/batch-stream.js';
import { parseJsonText } from '../src/drafts/batch/batch-schema.js';
import type { BatchResult } from '../src/index.js';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { prng } from './helpers/prng.js';

/**
 * A large batch is parsed as it is read (src/drafts/batch/batch-stream.ts), its whole text
 * never held: what it answers must be what parseJsonText answers for the
 * whole document, value or INVALID_JSON (message, offset, position, line,
 * column), however the bytes are cut into pieces; and a large batch through
 * the library or the CLI commits the same blobs, or is refused the same
 * way, as the whole document is.
 */

type Answer = { value: unknown } | { error: { code: string; message: string; hint?: string; data: unknown } };

function answer(f: () => unknown): Answer {
  try {
    return { value: f() };
  } catch (e) {
    const { code, message, hint, data } = e as { code: string; message: string; hint?: string; data: unknown };
    return { error: { code, message, hint, data } };
  }
}

async function answerOf(f: () => Promise<unknown>): Promise<Answer> {
  try {
    return { value: await f() };
  } catch (e) {
    const { code, message, hint, data } = e as { code: string; message: string; hint?: string; data: unknown };
    return { error: { code, message, hint, data } };
  }
}

/** `bytes` in pieces of 1 to `max` bytes (seeded): pieces end inside strings, escapes and UTF-8 sequences. */
async function* piecesOf(bytes: Buffer, seed: number, max: number): AsyncGenerator<Buffer> {
  const rnd = prng(seed);
  for (let at = 0; at < bytes.length;) {
    const n = 1 + Math.floor(rnd() * max);
    yield bytes.subarray(at, at + n);
    at += n;
  }
}

/** The whole document's answer, and the answer in pieces of several sizes: the same. */
async function same(bytes: Buffer, label: string, seed = 1): Promise<Answer> {
  const whole = answer(() => parseJsonText(bytes));
  for (const max of [1, 7, 64, 4096, bytes.length + 1]) {
    const streamed = await answerOf(() => parseJsonStream(piecesOf(bytes, seed + max, max)));
    assert.equal(streamed, whole, `${label}, in pieces of up to ${max} bytes`);
  }
  return whole;
}

const DOC = {
  intent: 'stream: é 😀',
  actor: 'tester',
  operations: [
    { operation: 'write', path: 'a.txt', content: 'plain\n' },
    { operation: 'write', path: 'é/ü.txt', content: 'naïve 😀 "quoted" back\\slash \\\\ \u2028 \t\r\n' },
    { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, "world"' },
    { operation: 'write', path: 'b.bin', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' },
    { operation: 'delete', path: 'gone.txt' },
    { operation: 'write', path: 'nested.txt', content: '[{"x": [1, 2, {"y": "]}"}]}]', mode: '100755' },
  ],
};

const BASES: Array<[string, string | Buffer]> = [
  ['a compact batch', JSON.stringify(DOC)],
  ['a pretty-printed batch', JSON.stringify(DOC, null, 2)],
  ['CRLF and tabs between the tokens', JSON.stringify(DOC, null, '\t').replace(/\n/g, '\r\n')],
  [
    'a batch after a byte order mark',
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(DOC, null, 1))]),
  ],
  [
    'escapes in the text',
    '{"operations": [{"operation": "write", "path": "q\\"\\\\.txt", "content": "\\u0022]}\\\\\\"\\ud83d\\ude00"}, "\\\\", "]"]}',
  ],
  [
    'two operations keys: the last counts',
    '{"operations": [{"operation": "delete", "path": "x"}, 1], "intent": "i", "operations": [[1, [2]], {"a": {"b": []}}, "s", 3.5e2, true, null]}',
  ],
  ['an operations key spelt with an escape', '{"operation\\u0073": [{"operation": "delete", "path": "y"}, {"n": 1}]}'],
  [
    "operations deeper down are not the batch's",
    '{"meta": {"operations": [{"a": 1}, {"b": 2}]}, "operations": [{"c": 3}]}',
  ],
  ['a top-level array', '[{"operations": [1, 2]}, {"a": [3]}]'],
  ['operations that are not an array', '{"operations": {"0": {"a": 1}}, "x": [1]}'],
  ['an empty operations array', '{"operations": [ ], "intent": "none"}'],
  [
    'newlines inside the elements',
    '{\n"operations": [\n  {\n    "operation": "write",\n    "path": "l.txt",\n    "content": "x"\n  }\n  ,\n  [\n1,\n2\n]\n]\n}\n',
  ],
];

const Parse = suite('parseJsonStream answers as parseJsonText does for the whole document');

Parse('valid documents: the same value', async () => {
  for (const [label, doc] of BASES) {
    const a = await same(Buffer.from(doc), label);
    assert.ok('value' in a, `${label} is valid`);
  }
  const a = await same(Buffer.from(JSON.stringify(DOC)), 'the batch');
  assert.equal((a as { value: unknown }).value, DOC);
});

Parse('cut off after every byte: the same INVALID_JSON, position, line, column and what it was inside', async () => {
  for (const [label, doc] of BASES) {
    const bytes = Buffer.from(doc);
    for (let n = 0; n < bytes.length; n += label === 'a compact batch' ? 1 : 3)
      await same(bytes.subarray(0, n), `${label} cut at ${n}`, n);
  }
});

Parse('a byte changed, added or taken out anywhere: the same answer, a bad UTF-8 byte at the same offset', async () => {
  const rnd = prng(7);
  const swaps = [
    0xff, 0xc0, 0xed, 0xe2, 0x80, 0x22, 0x5c, 0x2c, 0x5b, 0x5d, 0x7b, 0x7d, 0x3a, 0x0a, 0x20, 0x78, 0x31, 0x00,
  ];
  let invalid = 0;
  for (const [label, doc] of BASES) {
    const bytes = Buffer.from(doc);
    for (let k = 0; k < 150; k++) {
      const at = Math.floor(rnd() * bytes.length);
      const b = swaps[Math.floor(rnd() * swaps.length)]!;
      const kind = Math.floor(rnd() * 3);
      const changed =
        kind === 0
          ? Buffer.concat([bytes.subarray(0, at), Buffer.from([b]), bytes.subarray(at + 1)])
          : kind === 1
            ? Buffer.concat([bytes.subarray(0, at), Buffer.from([b]), bytes.subarray(at)])
            : Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
      const a = await same(changed, `${label}: ${['byte', 'insertion', 'deletion'][kind]} ${b} at ${at}`, k);
      if ('error' in a) invalid++;
    }
  }
  assert.ok(invalid > 500, `most changes break the document (${invalid})`);
});

Parse(
  'a bad byte deep in a long document: its offset, line and what it was inside, though the elements before it were cut out',
  async () => {
    const ops = Array.from({ length: 40 }, (_, i) => ({
      operation: 'write',
      path: `f${i}.txt`,
      content: `é${i}\n😀`.repeat(50),
    }));
    const text = Buffer.from(JSON.stringify({ intent: 'x', operations: ops }, null, 1));
    const at = text.indexOf('f33.txt');
    const bad = Buffer.concat([text.subarray(0, at), Buffer.from([0xff]), text.subarray(at + 1)]);
    const a = await same(bad, 'bad byte in op 33');
    assert.equal((a as { error: { data: unknown } }).error.data, {
      offset: at,
      byte: 0xff,
      line: (text.subarray(0, at).toString().match(/\n/g) ?? []).length + 1,
      inside: 'the string value of operations[33].path',
    });
    const cut = await same(text.subarray(0, text.indexOf('f35.txt') + 3), 'cut in op 35');
    assert.is(
      (cut as { error: { data: { inside: string } } }).error.data.inside,
      'the string value of operations[35].path',
    );
    const junk = Buffer.from(text.toString().replace('"f20.txt",', '"f20.txt" x'));
    const m = await same(junk, 'junk in op 20');
    assert.match(
      (m as { error: { message: string } }).error.message,
      /^the batch JSON is malformed at character \d+ \(line \d+, column \d+\): expected "," or "}" after a property value$/,
    );
  },
);

Parse.run();

// ---------------------------------------------------------------- a large batch

const DRAFTS = 'refs/shadow/drafts/';

type Ctx = { repo: DiskRepo };
const Large = suite<Ctx>('a batch larger than STREAM_BATCH_BYTES, through the library and the CLI');
Large.before.each((ctx) => {
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n' });
});
Large.after.each((ctx) => ctx.repo.cleanup());

const PIECES = [
  'const x = 1;',
  ' ',
  'é',
  'naïve',
  '😀',
  '\t',
  '"quoted"',
  'back\\slash',
  '\\\\',
  '\r\n',
  '\n',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '</script>',
  '\u2028',
  'word',
];

/** A batch of text writes of about 60 KB each, past the streaming size, and a few other operations. */
function largeOps(seed: number): Array<Record<string, string>> {
  const rnd = prng(seed);
  const ops: Array<Record<string, string>> = [];
  let size = 0;
  for (let i = 0; size < STREAM_BATCH_BYTES + 256 * 1024; i++) {
    const parts: string[] = [];
    let n = 0;
    while (n < 60_000) {
      const p = PIECES[Math.floor(rnd() * PIECES.length)]!;
      parts.push(p);
      n += p.length;
    }
    const content = parts.join('');
    ops.push({ operation: 'write', path: `d${i % 7}/file-${i}.txt`, content });
    size += Buffer.byteLength(content);
  }
  const binary = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256));
  ops.push({ operation: 'write', path: 'bin/data.bin', content: binary.toString('base64'), encoding: 'base64' });
  ops.push({ operation: 'write', path: 'run.sh', content: '#!/bin/sh\necho hi\n', mode: '100755' });
  ops.push({ operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, large batch' });
  return ops;
}

function largeDoc(ops: unknown[]): Buffer {
  const bytes = Buffer.from(JSON.stringify({ intent: 'a large batch', operations: ops }, null, 1));
  assert.ok(bytes.length >= STREAM_BATCH_BYTES, `${bytes.length} bytes: read in pieces`);
  return bytes;
}

/** Every ref and the drafts' reflogs. */
function refState(repo: DiskRepo): string {
  return repo.git('for-each-ref', '--format=%(refname) %(objectname)') + repo.git('reflog', '--all');
}

const tree = (repo: DiskRepo, draft: string): string => repo.git('rev-parse', `${DRAFTS}${draft}^{tree}`).trim();

/** The library's answer for the whole document and for it read in pieces, on one draft: the same, as the CLI's from a file and from stdin. */
async function refusedAlike(repo: DiskRepo, bytes: Buffer, code: string): Promise<BatchResult> {
  const before = refState(repo);
  const [whole, pieces] = await withShadow(repo, async (sh) => [
    await sh.batchText(bytes, { draft: 'd' }),
    await sh.batchText(piecesOf(bytes, 3, 100_000), { draft: 'd' }),
  ]);
  assert.is(whole.success, false);
  assert.is(whole.error?.code, code, JSON.stringify(whole.error));
  assert.equal(pieces, whole);
  writeFileSync(join(repo.root, 'large.json'), bytes);
  for (const [source, args, input] of [
    ['file', ['batch', join(repo.root, 'large.json'), '--json', '--draft', 'd'], undefined],
    ['stdin', ['batch', '-', '--json', '--draft', 'd'], bytes],
  ] as const) {
    const r = repo.shadow([...args], { input });
    assert.is(r.status, 1, `${source}: ${r.stdout.slice(0, 500)}${r.stderr}`);
    assert.equal(r.json(), JSON.parse(JSON.stringify(whole)), source);
  }
  assert.is(refState(repo), before, 'nothing moved');
  return whole;
}

Large('the same blobs as the whole document: from the library, a file and stdin', async ({ repo }) => {
  const ops = largeOps(11);
  const bytes = largeDoc(ops);
  const [whole, pieces] = await withShadow(repo, async (sh) => [
    await sh.batchText(bytes, { draft: 'whole' }),
    await sh.batchText(piecesOf(bytes, 5, 200_000), { draft: 'pieces' }),
  ]);
  assert.ok(whole.success, JSON.stringify(whole.error));
  assert.ok(pieces.success, JSON.stringify(pieces.error));
  assert.equal(pieces.results, whole.results);
  writeFileSync(join(repo.root, 'large.json'), bytes);
  const file = repo.shadow(['batch', join(repo.root, 'large.json'), '--json', '--draft', 'file']);
  assert.is(file.status, 0, file.stdout.slice(0, 500) + file.stderr);
  const stdin = repo.shadow(['batch', '-', '--json', '--draft', 'stdin'], { input: bytes });
  assert.is(stdin.status, 0, stdin.stdout.slice(0, 500) + stdin.stderr);
  assert.equal(file.json().results, whole.results);
  for (const d of ['pieces', 'file', 'stdin']) assert.is(tree(repo, d), tree(repo, 'whole'), d);
  // Native git reads back the bytes that were sent.
  for (const op of [ops[0]!, ops[1]!, ops[ops.length - 3]!]) {
    const r = spawnSync('git', ['cat-file', 'blob', `${DRAFTS}file:${op.path}`], { cwd: repo.dir, env: repo.env });
    const want = op.encoding === 'base64' ? Buffer.from(op.content!, 'base64') : Buffer.from(op.content!);
    assert.ok(r.stdout.equals(want), op.path);
  }
  assert.is(repo.git('cat-file', 'blob', `${DRAFTS}stdin:README.md`), 'Hello, large batch\n');
  assert.match(repo.git('ls-tree', `${DRAFTS}stdin`, 'run.sh'), /^100755 /);
});

Large(
  'a bad UTF-8 byte deep in it: INVALID_JSON with its byte offset, as for the whole document; nothing is written',
  async ({ repo }) => {
    const bytes = largeDoc(largeOps(12));
    const at = bytes.indexOf('naïve', Math.floor(bytes.length * 0.7)) + 2;
    bytes[at] = 0xff;
    const r = await refusedAlike(repo, bytes, 'INVALID_JSON');
    assert.is(r.error?.data?.offset, at);
    assert.match(r.error!.message, `byte 0xff at byte offset ${at} (line `);
  },
);

Large('cut off, or malformed, deep in it: INVALID_JSON at the same position, line and column', async ({ repo }) => {
  const bytes = largeDoc(largeOps(13));
  const cut = await refusedAlike(
    repo,
    bytes.subarray(0, bytes.indexOf('word', Math.floor(bytes.length * 0.6)) + 2),
    'INVALID_JSON',
  );
  assert.is(cut.error?.data?.truncated, true);
  assert.match(String(cut.error?.data?.inside), /^the string value of operations\[\d+\]\.content$/);
  const at = bytes.indexOf('"operation"', Math.floor(bytes.length * 0.8));
  const malformed = await refusedAlike(
    repo,
    Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]),
    'INVALID_JSON',
  );
  assert.match(malformed.error!.message, /^the batch JSON is malformed at character \d+ \(line \d+, column \d+\)/);
});

Large(
  'over shadow.maxBatchBytes or shadow.maxBatchOps: BATCH_TOO_LARGE as for the whole document',
  async ({ repo }) => {
    const ops = largeOps(14);
    const bytes = largeDoc(ops);
    const content = ops.reduce(
      (n, op) => n + Buffer.byteLength(op.content ?? '') + Buffer.byteLength(op.old_content ?? ''),
      0,
    );
    repo.git('config', 'shadow.maxBatchBytes', String(content - 1));
    const r = await refusedAlike(repo, bytes, 'BATCH_TOO_LARGE');
    assert.equal(r.error?.data, { bytes_at_least: content, limit: content - 1, setting: 'shadow.maxBatchBytes' });
    repo.git('config', 'shadow.maxBatchBytes', String(content));
    repo.git('config', 'shadow.maxBatchOps', String(ops.length - 1));
    await refusedAlike(repo, bytes, 'BATCH_TOO_LARGE');
  },
);

Large(
  'a content over shadow.maxContentBytes, a lone surrogate, an unknown field: refused as for the whole document',
  async ({ repo }) => {
    const ops: Array<Record<string, unknown>> = largeOps(15);
    repo.git('config', 'shadow.maxContentBytes', String(Buffer.byteLength(String(ops[3]!.content)) - 1));
    const tooLarge = await refusedAlike(repo, largeDoc(ops), 'CONTENT_TOO_LARGE');
    assert.is(tooLarge.results[3]?.status, 'failed');
    repo.git('config', '--unset', 'shadow.maxContentBytes');
    ops[5] = { ...ops[5], content: `${String(ops[5]!.content)}\ud800` };
    const surrogate = await refusedAlike(repo, largeDoc(ops), 'INVALID_CONTENT');
    assert.is(surrogate.results[5]?.status, 'failed');
    ops[5] = { ...ops[5], content: 'fine', colour: 'blue' };
    const unknown = await refusedAlike(repo, largeDoc(ops), 'INVALID_BATCH');
    assert.match(unknown.error!.message, /operations\[5\] has unknown field "colour"/);
  },
);

Large.run();
