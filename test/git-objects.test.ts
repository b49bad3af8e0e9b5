import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { prng } from './helpers/prng.js';
import {
  compareTreeEntries,
  compareTreeNames,
  EMPTY_TREE_OID,
  formatSignature,
  hashObject,
  isOid,
  MODE,
  parseCommit,
  parseSignature,
  parseTag,
  parseTree,
  serializeCommit,
  serializeTag,
  serializeTree,
  type Commit,
  type Signature,
  type Tag,
  type TreeEntry,
} from '../src/git/format/git-objects.js';

// Ids below were computed with git 2.39 (`git hash-object`, `git mktree`,
// `git commit-tree`, `git mktag`), so they pin shadow to git's own encoding.
const EMPTY_BLOB = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';
const HELLO_BLOB = 'ce013625030ba8dba906f756967f9e9ca394464a'; // "hello\n"
const SUB_TREE = '5805b676e247eb9a8046ad0c4d249cd2fb2513df'; // 100644 x → empty blob
/** a-b, a.b, a0 (files, "hello\n") and a (a tree): git's order puts the tree "a" after "a.b". */
const ORDER_TREE = 'a0df6b2cf90fc61c96e9327dd0386e36a62bd186';
/** a, a-b, a.b: all files, so "a" comes first. */
const FILES_ORDER_TREE = '52abc2841e3a756e1c36dca9f5118033b00808b5';
/** "café", "z", and the non-UTF-8 name 0xff 0x66. */
const LATIN_TREE = '5817a70681f17d5ca93f9915ad7387859ecbfb21';
const MODES_TREE = '1cbdaa0c121a8925788490426df23c3023445c62'; // hello.txt 100644, run.sh 100755 (empty)
const COMMIT_1 = '9a7125ce5feaa43902511364262827b2ce394d8d';
const COMMIT_2 = '48b03e8e3f43f7d87670b9d492515188132463b1';
const TAG_V1 = '768ad7db1a975835084782e49049edfbde8d2528';

const AUTHOR: Signature = { name: 'A U Thor', email: 'author@example.com', timestamp: 1112911993, tzOffset: -7 * 60 };
const COMMITTER: Signature = {
  name: 'C O Mitter',
  email: 'committer@example.com',
  timestamp: 1112912053,
  tzOffset: 5 * 60 + 30,
};

const file = (name: string, oid = HELLO_BLOB, mode: string = MODE.file): TreeEntry => ({ mode, name, oid });
const dir = (name: string, oid: string): TreeEntry => ({ mode: MODE.tree, name, oid });

function shuffled<T>(items: readonly T[]): T[] {
  // Deterministic: reversed, then odd indices first.
  const r = [...items].reverse();
  return [...r.filter((_, i) => i % 2 === 1), ...r.filter((_, i) => i % 2 === 0)];
}

// ---------------------------------------------------------------- hashing

const Hashing = suite('hashObject');

Hashing('gives the ids git gives', () => {
  const cases: Array<[Parameters<typeof hashObject>[0], Buffer, string]> = [
    ['blob', Buffer.alloc(0), EMPTY_BLOB],
    ['blob', Buffer.from('hello\n'), HELLO_BLOB],
    ['tree', Buffer.alloc(0), EMPTY_TREE_OID],
    ['tree', serializeTree([file('x', EMPTY_BLOB)]), SUB_TREE],
  ];
  for (const [type, content, oid] of cases)
    assert.is(hashObject(type, content), oid, `${type} ${JSON.stringify(content.toString())}`);
  assert.is(EMPTY_TREE_OID, '4b825dc642cb6eb9a060e54bf8d69288fbee4904');
});

Hashing('hashes bytes, not characters', () => {
  const bytes = Buffer.from([0xff, 0x00, 0xfe]);
  assert.is.not(hashObject('blob', bytes), hashObject('blob', Buffer.from(bytes.toString('latin1'), 'utf8')));
  // The length in the header is the byte length.
  assert.is(hashObject('blob', Buffer.from('é')), hashObject('blob', new Uint8Array([0xc3, 0xa9])));
});

Hashing('isOid accepts only 40 lowercase hex digits', () => {
  const cases: Array<[string, boolean]> = [
    [EMPTY_BLOB, true],
    [EMPTY_BLOB.toUpperCase(), false],
    [EMPTY_BLOB.slice(1), false],
    [`${EMPTY_BLOB}0`, false],
    ['g'.repeat(40), false],
    ['', false],
  ];
  for (const [s, expected] of cases) assert.is(isOid(s), expected, s);
});

Hashing.run();

// ---------------------------------------------------------------- trees

const Trees = suite('trees: parse, serialize, order');

Trees('git tree order: a tree sorts as if its name ended in "/"', () => {
  const entries = [file('a.b'), dir('a', SUB_TREE), file('a-b'), file('a0')];
  const sorted = shuffled(entries).sort(compareTreeEntries);
  assert.equal(
    sorted.map((e) => e.name),
    ['a-b', 'a.b', 'a', 'a0'],
  );
  assert.is(hashObject('tree', serializeTree(sorted)), ORDER_TREE);

  const files = shuffled([file('a.b'), file('a'), file('a-b')]).sort(compareTreeEntries);
  assert.equal(
    files.map((e) => e.name),
    ['a', 'a-b', 'a.b'],
  );
  assert.is(hashObject('tree', serializeTree(files)), FILES_ORDER_TREE);
});

Trees('compareTreeNames: file/tree suffix, prefixes, bytes not UTF-16 units', () => {
  const cases: Array<[string, boolean, string, boolean, -1 | 0 | 1]> = [
    ['a', true, 'a.b', false, 1], // "a/" > "a."
    ['a', false, 'a.b', false, -1],
    ['a', true, 'a0', false, -1], // "a/" < "a0"
    ['a', false, 'a', false, 0],
    ['a', true, 'a', true, 0],
    ['a', false, 'a', true, -1], // a file and a tree of one name differ
    ['abc', false, 'ab', false, 1],
    ['B', false, 'a', false, -1], // bytes: uppercase first
    ['z', false, 'é', false, -1],
    ['\uffff', false, '😀', false, -1], // UTF-8: ef bf bf < f0 9f 98 80, though UTF-16 says otherwise
    ['é', true, 'é.txt', false, 1],
    ['é', false, 'é.txt', false, -1],
  ];
  for (const [a, at, b, bt, sign] of cases) {
    const d = Math.sign(compareTreeNames(a, at, b, bt));
    assert.is(d, sign, `${a}${at ? '/' : ''} vs ${b}${bt ? '/' : ''}`);
    assert.is(Math.sign(compareTreeNames(b, bt, a, at)), -sign || 0, `reversed: ${b} vs ${a}`);
  }
});

Trees(
  "compareTreeNames agrees with git's byte order on 20,000 seeded names mixing ASCII, Latin, CJK, U+FFFF and emoji",
  () => {
    const rnd = prng(31);
    const alphabet = ['a', 'b', 'B', '.', '-', '0', 'é', 'ß', '中', '\uffff', '\ue000', '😀', '🦀'];
    const name = (): string =>
      Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => alphabet[Math.floor(rnd() * alphabet.length)]!).join('');
    const key = (s: string, tree: boolean): Buffer =>
      Buffer.concat([Buffer.from(s, 'utf8'), Buffer.from([tree ? 0x2f : 0])]);
    const wrong: string[] = [];
    for (let i = 0; i < 20000; i++) {
      const [a, b] = [name(), rnd() < 0.3 ? name() : ''];
      const other = b === '' ? a + name() : b;
      const [at, bt] = [rnd() < 0.5, rnd() < 0.5];
      const want = Math.sign(Buffer.compare(key(a, at), key(other, bt)));
      if (Math.sign(compareTreeNames(a, at, other, bt)) !== want)
        wrong.push(`${JSON.stringify(a)}${at ? '/' : ''} vs ${JSON.stringify(other)}${bt ? '/' : ''}`);
    }
    assert.equal(wrong.slice(0, 5), []);
  },
);

Trees(
  'serializeTree writes byte for byte what git would, for 2,000 seeded trees of ASCII, UTF-8 and raw names; a bad id is CORRUPT_OBJECT',
  () => {
    const rnd = prng(47);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const modes = [MODE.file, MODE.executable, MODE.symlink, MODE.tree, MODE.gitlink, '040000'];
    for (let t = 0; t < 2000; t++) {
      const entries: TreeEntry[] = Array.from({ length: Math.floor(rnd() * 12) }, (_, i) => {
        const oid = hashObject('blob', Buffer.from(`${t}.${i}`));
        const kind = rnd();
        if (kind < 0.1)
          return {
            mode: pick(modes),
            name: `raw${i}\ufffd`,
            oid,
            nameBytes: Buffer.from([0x72, 0x61, 0x77, 0x30 + (i % 10), 0xff]),
          };
        return { mode: pick(modes), name: `${pick(['a', 'é', '中', '😀', 'x.y'])}${i}`, oid };
      });
      const want = Buffer.concat(
        entries.flatMap((e) => [
          Buffer.from(`${e.mode === '040000' ? '40000' : e.mode} `),
          e.nameBytes ?? Buffer.from(e.name, 'utf8'),
          Buffer.from([0]),
          Buffer.from(e.oid, 'hex'),
        ]),
      );
      const got = serializeTree(entries);
      if (!got.equals(want)) assert.unreachable(`tree ${t}: ${got.toString('hex')} != ${want.toString('hex')}`);
    }
    for (const oid of ['A'.repeat(40), 'g'.repeat(40), 'ab', `${'a'.repeat(39)}é`]) {
      try {
        serializeTree([{ mode: MODE.file, name: 'x', oid }]);
        assert.unreachable(`${oid} was written`);
      } catch (e) {
        assert.is((e as { code?: string }).code, 'CORRUPT_OBJECT', oid);
      }
    }
  },
);

Trees('parse and serialize round-trip, also with a non-UTF-8 name kept byte-exact', () => {
  const raw = Buffer.concat([
    Buffer.from('100644 caf\xc3\xa9\0', 'latin1'),
    Buffer.from(HELLO_BLOB, 'hex'),
    Buffer.from('100644 z\0', 'latin1'),
    Buffer.from(HELLO_BLOB, 'hex'),
    Buffer.from([...Buffer.from('100644 ', 'latin1'), 0xff, 0x66, 0]),
    Buffer.from(HELLO_BLOB, 'hex'),
  ]);
  assert.is(hashObject('tree', raw), LATIN_TREE);
  const entries = parseTree(raw, LATIN_TREE);
  assert.equal(
    entries.map((e) => [e.mode, e.name, e.oid]),
    [
      ['100644', 'café', HELLO_BLOB],
      ['100644', 'z', HELLO_BLOB],
      ['100644', '\xff\x66', HELLO_BLOB],
    ],
  );
  assert.is(entries[0]!.nameBytes, undefined);
  assert.equal([...entries[2]!.nameBytes!], [0xff, 0x66]);
  const again = serializeTree(entries);
  assert.ok(again.equals(raw), 'serialized bytes differ from the original');
  assert.is(hashObject('tree', again), LATIN_TREE);
  // Sorting keeps git's byte order with the raw name.
  assert.equal(
    shuffled(entries)
      .sort(compareTreeEntries)
      .map((e) => e.name),
    ['café', 'z', '\xff\x66'],
  );
});

Trees('round-trips modes, and writes a tree mode "040000" as git does ("40000")', () => {
  const entries = [file('hello.txt'), file('run.sh', EMPTY_BLOB, MODE.executable)];
  const content = serializeTree(entries);
  assert.is(hashObject('tree', content), MODES_TREE);
  assert.equal(parseTree(content), entries);

  const withLongMode = serializeTree([{ mode: '040000', name: 'x', oid: SUB_TREE }]);
  assert.ok(withLongMode.equals(serializeTree([dir('x', SUB_TREE)])));
  assert.is(withLongMode.subarray(0, 6).toString('latin1'), '40000 ');
  assert.equal(
    parseTree(
      serializeTree([
        file('a'),
        dir('d', SUB_TREE),
        file('l', HELLO_BLOB, MODE.symlink),
        file('m', HELLO_BLOB, MODE.gitlink),
      ]),
    ).map((e) => e.mode),
    ['100644', '40000', '120000', '160000'],
  );
});

Trees(
  'a name that starts with U+FEFF keeps it: the bytes round-trip, and it never reads as the name without it',
  () => {
    const raw = Buffer.concat([
      Buffer.from('40000 '),
      Buffer.from('\ufeff.git', 'utf8'),
      Buffer.from([0]),
      Buffer.from(SUB_TREE, 'hex'),
    ]);
    const [entry] = parseTree(raw);
    assert.is(entry!.name, '\ufeff.git');
    assert.ok(serializeTree([entry!]).equals(raw));
  },
);

Trees('parseTree refuses malformed content with CORRUPT_OBJECT', () => {
  const good = serializeTree([file('a')]);
  const cases: Array<[string, Buffer, number]> = [
    ['no space', Buffer.from('garbage'), 0],
    ['no NUL', Buffer.from('100644 name'), 0],
    ['oid cut short', good.subarray(0, good.length - 1), 0],
    ['second entry cut short', Buffer.concat([good, good.subarray(0, 12)]), good.length],
  ];
  for (const [label, content, at] of cases) {
    try {
      parseTree(content, 'deadbeef');
      assert.unreachable(label);
    } catch (e) {
      const err = e as { code: string; message: string; data: Record<string, unknown> };
      assert.is(err.code, 'CORRUPT_OBJECT', label);
      assert.is(err.message, `tree deadbeef is malformed at byte ${at}`, label);
      assert.is(err.data.oid, 'deadbeef', label);
    }
  }
  assert.equal(parseTree(Buffer.alloc(0)), []);
});

Trees.run();

// ---------------------------------------------------------------- signatures, commits, tags

const Objects = suite('signatures, commits and tags');

Objects('signatures with every kind of timezone round-trip', () => {
  const cases: Array<[number, string]> = [
    [0, '+0000'],
    [60, '+0100'],
    [-7 * 60, '-0700'],
    [5 * 60 + 30, '+0530'],
    [5 * 60 + 45, '+0545'],
    [-30, '-0030'], // negative with zero hours: the sign must not be lost
    [-(9 * 60 + 30), '-0930'],
    [14 * 60, '+1400'],
    [-12 * 60, '-1200'],
  ];
  for (const [tzOffset, text] of cases) {
    const sig: Signature = { name: 'Jane Doe', email: 'jane@example.com', timestamp: 1700000000, tzOffset };
    const line = formatSignature(sig);
    assert.is(line, `Jane Doe <jane@example.com> 1700000000 ${text}`);
    assert.equal(parseSignature(line), sig, text);
  }
});

Objects('signatures drop what a git header cannot hold', () => {
  const sig: Signature = { name: ' Evil <root@x>\nInjected ', email: '<a@b>\n', timestamp: 1, tzOffset: 0 };
  const line = formatSignature(sig);
  assert.is(line, 'Evil root@xInjected <a@b> 1 +0000');
  assert.not.match(line, /\n/);
  assert.is(formatSignature({ name: '<>', email: 'x@y', timestamp: 0, tzOffset: 0 }), 'unknown <x@y> 0 +0000');
  assert.equal(parseSignature('Name <> 0 +0000'), { name: 'Name', email: '', timestamp: 0, tzOffset: 0 });
  assert.equal(parseSignature('not a signature'), { name: 'not a signature', email: '', timestamp: 0, tzOffset: 0 });
});

Objects('commits serialize to the ids git gives, and parse back', () => {
  const c1: Commit = { tree: EMPTY_TREE_OID, parents: [], author: AUTHOR, committer: COMMITTER, message: 'initial\n' };
  const c2: Commit = {
    tree: ORDER_TREE,
    parents: [COMMIT_1],
    author: AUTHOR,
    committer: COMMITTER,
    message: 'second\n\nbody line\n',
  };
  for (const [commit, oid] of [
    [c1, COMMIT_1],
    [c2, COMMIT_2],
  ] as const) {
    const bytes = serializeCommit(commit);
    assert.is(hashObject('commit', bytes), oid);
    assert.equal(parseCommit(bytes, oid), commit);
  }
  const merge: Commit = { ...c2, parents: [COMMIT_1, COMMIT_2], message: 'merge\n\n\nblank lines kept\n\n' };
  assert.equal(parseCommit(serializeCommit(merge)), merge);
  const unicode: Commit = { ...c1, author: { ...AUTHOR, name: 'Zoë Ünïcode' }, message: 'résumé 😀\n' };
  assert.equal(parseCommit(serializeCommit(unicode)), unicode);
});

Objects('parseCommit skips multi-line and unknown headers', () => {
  const text = [
    `tree ${ORDER_TREE}`,
    `parent ${COMMIT_1}`,
    `author ${formatSignature(AUTHOR)}`,
    `committer ${formatSignature(COMMITTER)}`,
    'encoding ISO-8859-1',
    'gpgsig -----BEGIN PGP SIGNATURE-----',
    ' ',
    ' parent 0000000000000000000000000000000000000000',
    ' tree 0000000000000000000000000000000000000000',
    ' -----END PGP SIGNATURE-----',
    '',
    'signed\n',
  ].join('\n');
  const c = parseCommit(Buffer.from(text));
  assert.is(c.tree, ORDER_TREE);
  assert.equal(c.parents, [COMMIT_1]);
  assert.equal(c.author, AUTHOR);
  assert.equal(c.committer, COMMITTER);
  assert.is(c.message, 'signed\n');
});

Objects('parseCommit without a tree is CORRUPT_OBJECT', () => {
  for (const text of ['', 'parent abc\n\nmsg', `tree ${ORDER_TREE.slice(0, 39)}\n\nmsg`]) {
    try {
      parseCommit(Buffer.from(text), 'c0ffee');
      assert.unreachable(JSON.stringify(text));
    } catch (e) {
      const err = e as { code: string; message: string };
      assert.is(err.code, 'CORRUPT_OBJECT');
      assert.is(err.message, 'commit c0ffee has no tree');
    }
  }
});

Objects('tags serialize to the id git gives, and parse back', () => {
  const tag: Tag = {
    object: COMMIT_2,
    type: 'commit',
    tag: 'v1',
    tagger: { name: 'C O Mitter', email: 'committer@example.com', timestamp: 1112912113, tzOffset: -30 },
    message: 'release v1\n',
  };
  const bytes = serializeTag(tag);
  assert.is(hashObject('tag', bytes), TAG_V1);
  assert.equal(parseTag(bytes, TAG_V1), tag);
  const multi: Tag = { ...tag, tag: 'auto-3', message: 'line one\n\nline three\n' };
  assert.equal(parseTag(serializeTag(multi)), multi);
  try {
    parseTag(Buffer.from('type commit\ntag x\n\nmsg'), 'f00');
    assert.unreachable();
  } catch (e) {
    const err = e as { code: string; message: string };
    assert.is(err.code, 'CORRUPT_OBJECT');
    assert.is(err.message, 'tag f00 has no object');
  }
});

Objects.run();
