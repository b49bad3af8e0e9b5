import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseJsonStream } from '../src/json-stream.js';
import { parseJsonText } from '../src/schema.js';
import { prng } from './helpers/prng.js';

/**
 * A large batch can be parsed as it is read (src/json-stream.ts), its whole
 * text never held: what it answers must be what parseJsonText answers for the
 * whole document, value or INVALID_JSON (message, offset, position, line,
 * column), however the bytes are cut into pieces.
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
  for (let at = 0; at < bytes.length; ) {
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
  ['a batch after a byte order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(DOC, null, 1))])],
  ['escapes in the text', '{"operations": [{"operation": "write", "path": "q\\"\\\\.txt", "content": "\\u0022]}\\\\\\"\\ud83d\\ude00"}, "\\\\", "]"]}'],
  ['two operations keys: the last counts', '{"operations": [{"operation": "delete", "path": "x"}, 1], "intent": "i", "operations": [[1, [2]], {"a": {"b": []}}, "s", 3.5e2, true, null]}'],
  ['an operations key spelt with an escape', '{"operation\\u0073": [{"operation": "delete", "path": "y"}, {"n": 1}]}'],
  ['operations deeper down are not the batch\'s', '{"meta": {"operations": [{"a": 1}, {"b": 2}]}, "operations": [{"c": 3}]}'],
  ['a top-level array', '[{"operations": [1, 2]}, {"a": [3]}]'],
  ['operations that are not an array', '{"operations": {"0": {"a": 1}}, "x": [1]}'],
  ['an empty operations array', '{"operations": [ ], "intent": "none"}'],
  ['newlines inside the elements', '{\n"operations": [\n  {\n    "operation": "write",\n    "path": "l.txt",\n    "content": "x"\n  }\n  ,\n  [\n1,\n2\n]\n]\n}\n'],
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
    for (let n = 0; n < bytes.length; n += label === 'a compact batch' ? 1 : 3) await same(bytes.subarray(0, n), `${label} cut at ${n}`, n);
  }
});

Parse('a byte changed, added or taken out anywhere: the same answer, a bad UTF-8 byte at the same offset', async () => {
  const rnd = prng(7);
  const swaps = [0xff, 0xc0, 0xed, 0xe2, 0x80, 0x22, 0x5c, 0x2c, 0x5b, 0x5d, 0x7b, 0x7d, 0x3a, 0x0a, 0x20, 0x78, 0x31, 0x00];
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

Parse('a bad byte deep in a long document: its offset, line and what it was inside, though the elements before it were cut out', async () => {
  const ops = Array.from({ length: 40 }, (_, i) => ({ operation: 'write', path: `f${i}.txt`, content: `é${i}\n😀`.repeat(50) }));
  const text = Buffer.from(JSON.stringify({ intent: 'x', operations: ops }, null, 1));
  const at = text.indexOf('f33.txt');
  const bad = Buffer.concat([text.subarray(0, at), Buffer.from([0xff]), text.subarray(at + 1)]);
  const a = await same(bad, 'bad byte in op 33');
  assert.equal((a as { error: { data: unknown } }).error.data, { offset: at, byte: 0xff, line: (text.subarray(0, at).toString().match(/\n/g) ?? []).length + 1, inside: 'the string value of operations[33].path' });
  const cut = await same(text.subarray(0, text.indexOf('f35.txt') + 3), 'cut in op 35');
  assert.is((cut as { error: { data: { inside: string } } }).error.data.inside, 'the string value of operations[35].path');
  const junk = Buffer.from(text.toString().replace('"f20.txt",', '"f20.txt" x'));
  const m = await same(junk, 'junk in op 20');
  assert.match((m as { error: { message: string } }).error.message, /^the batch JSON is malformed at character \d+ \(line \d+, column \d+\): expected "," or "}" after a property value$/);
});

Parse.run();
