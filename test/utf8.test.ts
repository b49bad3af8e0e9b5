import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { invalidUtf8At } from '../src/core/utf8.js';
import { decodeJsonBytes, parseJsonText } from '../src/drafts/batch/batch-schema.js';
import type { Shadow } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { prng } from './helpers/prng.js';
import { caught } from './helpers/caught.js';

const lenient = new TextDecoder('utf-8', { ignoreBOM: true });
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The oracle: the WHATWG decoder itself. Its first U+FFFD (in bytes that hold
 * none) comes right after the text of the longest valid prefix, so the offset
 * must leave a prefix that decodes strictly to exactly that text.
 */
function oracleAgrees(bytes: Uint8Array, at: number): string | undefined {
  let valid = true;
  try {
    strict.decode(bytes);
  } catch {
    valid = false;
  }
  if (valid) return at === -1 ? undefined : `valid bytes, yet offset ${at}`;
  if (at < 0 || at >= bytes.length) return `invalid bytes, yet offset ${at}`;
  const text = lenient.decode(bytes);
  const prefix = strict.decode(bytes.subarray(0, at));
  return text.indexOf('\uFFFD') === prefix.length
    ? undefined
    : `offset ${at}: the decoder's first U+FFFD is at ${text.indexOf('\uFFFD')}, the prefix is ${prefix.length} long`;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

// ---------------------------------------------------------------- invalidUtf8At

const Scan = suite('invalidUtf8At');

Scan('finds the first byte that does not decode, for every kind of ill-formed sequence', () => {
  const cases: Array<[string, number[], number]> = [
    ['valid text with every length of sequence', [0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80], -1],
    ['empty', [], -1],
    ['a lone 0xff', [0x61, 0x62, 0xff, 0x63], 2],
    ['a stray continuation byte', [0x61, 0x80], 1],
    ['an overlong "/" (0xc0 0xaf)', [0x2f, 0xc0, 0xaf], 1],
    ['an overlong three-byte form (0xe0 0x80 0xaf)', [0xe0, 0x80, 0xaf], 0],
    ['a UTF-16 surrogate (0xed 0xa0 0x80)', [0x41, 0xed, 0xa0, 0x80], 1],
    ['past U+10FFFF (0xf4 0x90 0x80 0x80)', [0xf4, 0x90, 0x80, 0x80], 0],
    ['0xf5 never starts a sequence', [0xf5, 0x80, 0x80, 0x80], 0],
    ['a sequence cut off by a letter', [0x61, 0xe2, 0x82, 0x41], 1],
    ['a sequence cut off by the end', [0x61, 0x62, 0xe2, 0x82], 2],
    ['valid, then bad after a multi-byte character', [0xc3, 0xa9, 0xfe], 2],
  ];
  for (const [what, bytes, at] of cases) {
    const b = Uint8Array.from(bytes);
    assert.is(invalidUtf8At(b), at, what);
    assert.is(oracleAgrees(b, at), undefined, what);
  }
});

Scan('agrees with the WHATWG decoder on 20,000 random byte strings', () => {
  const rnd = prng(0xb17e5);
  // Bytes drawn mostly from the ones that matter at a boundary: leads, continuations, edges of the ranges.
  const interesting = [
    0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef,
    0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff,
  ];
  for (let n = 0; n < 20_000; n++) {
    const len = 1 + Math.floor(rnd() * 10);
    const b = new Uint8Array(len);
    for (let i = 0; i < len; i++)
      b[i] = rnd() < 0.7 ? interesting[Math.floor(rnd() * interesting.length)]! : Math.floor(rnd() * 256);
    if (b.some((_, i) => b[i] === 0xef && b[i + 1] === 0xbf && b[i + 2] === 0xbd)) continue; // a literal U+FFFD would blind the oracle
    const problem = oracleAgrees(b, invalidUtf8At(b));
    assert.is(problem, undefined, `${hex(b)}: ${problem}`);
  }
});

Scan.run();

// ---------------------------------------------------------------- JSON bytes

const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');

const Json = suite('decodeJsonBytes, parseJsonText on bytes');

Json('a byte that is not UTF-8 is INVALID_JSON with its byte offset, line and field, never a U+FFFD', () => {
  const doc = latin1('{"operations": [\n  {"operation": "write", "path": "caf\xe9.txt", "content": "x"}]}');
  const offset = doc.indexOf(0xe9);
  const e = caught(() => parseJsonText(doc));
  assert.is(e.code, 'INVALID_JSON');
  assert.equal(e.data, { offset, byte: 0xe9, line: 2, inside: 'the string value of operations[0].path' });
  assert.is(
    e.message,
    `the batch JSON is not valid UTF-8: byte 0xe9 at byte offset ${offset} (line 2, inside the string value of operations[0].path) does not decode`,
  );
  assert.match(e.hint!, /send the batch as UTF-8/);
  assert.is(
    caught(() => decodeJsonBytes(doc, 'plan')).message.startsWith('the plan JSON is not valid UTF-8'),
    true,
    'says what it read',
  );
});

Json('offsets count bytes, not characters, past multi-byte text before the bad byte', () => {
  const doc = Buffer.concat([
    Buffer.from('{"intent": "héllo → ✓ 😀", "x": "'),
    Buffer.from([0xc0, 0xaf]),
    Buffer.from('"}'),
  ]);
  const e = caught(() => parseJsonText(doc));
  assert.is(e.data.offset, doc.indexOf(0xc0));
  assert.is(e.data.inside, 'the string value of x');
});

Json('a leading byte order mark is skipped; positions of later problems still count it', () => {
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  assert.equal(parseJsonText(Buffer.concat([bom, Buffer.from('{"a": "é"}')])), { a: 'é' });
  assert.equal(parseJsonText('\uFEFF{"a": 1}'), { a: 1 }, 'in text too');
  const cut = caught(() => parseJsonText(Buffer.concat([bom, Buffer.from('{"a": [')])));
  assert.equal([cut.data.position, cut.data.column, cut.data.truncated], [8, 9, true]);
  const bad = caught(() => parseJsonText(Buffer.concat([bom, Buffer.from('{"a": "'), Buffer.from([0xff])])));
  assert.is(bad.data.offset, 10);
  assert.is(caught(() => parseJsonText(Buffer.from('\uFEFF\uFEFF{}'))).code, 'INVALID_JSON', 'only one is skipped');
});

Json('bytes that are valid UTF-8 parse as the same text would', () => {
  const text = '{"operations":[{"operation":"write","path":"ü/✓.txt","content":"😀\\u0000"}]}';
  assert.equal(parseJsonText(Buffer.from(text)), JSON.parse(text));
});

Json.run();

// ---------------------------------------------------------------- library

const Lib = suite<{ repo: MemRepo; sh: Shadow }>('library: batch bytes that are not UTF-8');
Lib.before.each(async (c) => {
  c.repo = await memRepo();
  c.sh = await c.repo.open();
});
Lib.after.each((c) => c.sh.close());

const BAD_PATH = Buffer.concat([
  Buffer.from('{"operations":[{"operation":"write","path":"a'),
  Buffer.from([0xff]),
  Buffer.from('.txt","content":"x"}]}'),
]);

Lib('batchText refuses them as INVALID_JSON with the offset, and creates no draft', async ({ sh }) => {
  const r = await sh.batchText(BAD_PATH);
  assert.is(r.success, false);
  assert.is(r.error?.code, 'INVALID_JSON');
  assert.is(r.error?.data?.offset, BAD_PATH.indexOf(0xff));
  assert.is(await sh.hasDraft({ draft: 'default' }), false);
  const good = await sh.batchText(Buffer.from('{"operations":[{"operation":"write","path":"é.txt","content":"ü"}]}'));
  assert.is(good.success, true);
  assert.is((await sh.cat('é.txt')).content.toString('utf8'), 'ü');
});

Lib('parseBatch throws INVALID_JSON for them', ({ sh }) => {
  const e = caught(() => sh.parseBatch(BAD_PATH));
  assert.is(e.code, 'INVALID_JSON');
  assert.is(e.data.offset, 45);
});

Lib.run();
