import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openShadow, startServer } from '../src/index.js';
import { DiskRepo, type CliResult } from './helpers/disk-repo.js';
import { prng } from './helpers/prng.js';
import { Api } from './helpers/session-http.js';

/**
 * Bytes stay bytes: `shadow write` stores stdin as it came, and batch JSON
 * that is not UTF-8 is refused where it breaks, never decoded into U+FFFD.
 * Native git is the oracle for every stored blob.
 */

const DRAFT = 'refs/shadow/drafts/default';

type Ctx = { repo: DiskRepo };

function fresh(ctx: Ctx): void {
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n' });
}

function teardown(ctx: Partial<Ctx>): void {
  ctx.repo?.cleanup();
  delete ctx.repo;
}

/** Native git, bytes in and bytes out. */
function gitBytes(repo: DiskRepo, args: string[], input?: Buffer): Buffer {
  const r = spawnSync('git', args, { cwd: repo.dir, env: repo.env, input });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.toString()}`);
  return r.stdout;
}

const hashObject = (repo: DiskRepo, bytes: Buffer): string =>
  gitBytes(repo, ['hash-object', '--stdin'], bytes).toString().trim();

function ok(r: CliResult, what: string): any {
  assert.is(r.status, 0, `${what}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  return r.stdout.trimStart().startsWith('{') ? r.json() : undefined;
}

/** Exit 1 with one JSON document whose error has `code`; that error. */
function fails(r: CliResult, code: string, what: string): any {
  assert.is(r.status, 1, `${what}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  const error = r.json().error;
  assert.is(error?.code, code, `${what}: ${r.stdout}`);
  assert.type(error.hint, 'string', `${what}: the error says what to do`);
  return error;
}

/** Every ref and the draft's reflog: what must not move when input is refused. */
function refState(repo: DiskRepo): string {
  return (
    repo.git('for-each-ref', '--format=%(refname) %(objectname)') +
    (repo.gitResult('reflog', 'show', DRAFT).stdout ?? '')
  );
}

/** base64 as base64(1) prints it: 76 columns, a final newline. */
function wrapped(bytes: Buffer): string {
  return `${bytes.toString('base64').replace(/.{76}/g, '$&\n').replace(/\n$/, '')}\n`;
}

function randomBytes(n: number, seed: number): Buffer {
  const rnd = prng(seed);
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(rnd() * 256);
  return b;
}

const ALL_BYTES = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));
const INVALID_UTF8 = Buffer.from([
  0xff, 0xfe, 0x00, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80, 0x80, 0x41, 0xe2, 0x82,
]);

// ---------------------------------------------------------------- shadow write

const Write = suite<Ctx>('cli: shadow write stores stdin byte for byte');
Write.before.each(fresh);
Write.after.each(teardown);

Write(
  'every byte value, NUL, invalid UTF-8, random bytes, CR: the blob is what git hash-object makes of the same bytes, and apply writes them',
  ({ repo }) => {
    const inputs: Record<string, Buffer> = {
      'all-bytes.bin': ALL_BYTES,
      'invalid-utf8.bin': INVALID_UTF8,
      'nul.bin': Buffer.from([0, 0, 0]),
      'random.bin': randomBytes(200_000, 42),
      'crlf.txt': Buffer.from('a\r\nb\rc\n\xe9 latin-1\n', 'latin1'),
      'empty.txt': Buffer.alloc(0),
    };
    for (const [path, bytes] of Object.entries(inputs)) {
      ok(repo.shadow(['write', path, '--json'], { input: bytes }), `write ${path}`);
      assert.is(repo.git('rev-parse', `${DRAFT}:${path}`).trim(), hashObject(repo, bytes), `${path}: the blob id`);
      assert.ok(gitBytes(repo, ['cat-file', 'blob', `${DRAFT}:${path}`]).equals(bytes), `${path}: the blob's bytes`);
    }
    ok(repo.shadow(['apply', '--json']), 'apply');
    for (const [path, bytes] of Object.entries(inputs))
      assert.ok(readFileSync(repo.path(path)).equals(bytes), `${path}: the working tree after apply`);
  },
);

Write(
  '--base64 takes base64 text (wrapped or not) and stores the bytes it stands for; cat --json gives the same base64 back',
  ({ repo }) => {
    const bytes = Buffer.concat([ALL_BYTES, INVALID_UTF8, randomBytes(3000, 7)]);
    const w = ok(repo.shadow(['write', 'img.bin', '--base64', '--json'], { input: wrapped(bytes) }), 'write --base64');
    assert.is(w.results[0].status, 'created');
    assert.is(repo.git('rev-parse', `${DRAFT}:img.bin`).trim(), hashObject(repo, bytes));
    const cat = ok(repo.shadow(['cat', 'img.bin', '--json']), 'cat');
    assert.equal([cat.encoding, cat.content], ['base64', bytes.toString('base64')]);

    ok(repo.shadow(['write', 'hi.txt', '--base64'], { input: 'aGkK' }), 'unwrapped, no newline');
    assert.ok(gitBytes(repo, ['cat-file', 'blob', `${DRAFT}:hi.txt`]).equals(Buffer.from('hi\n')));
  },
);

Write('--base64 with text that is not base64 (raw bytes included) is INVALID_BASE64 and moves nothing', ({ repo }) => {
  ok(repo.shadow(['write', 'seed.txt'], { input: 'seed\n' }), 'seed the draft');
  const before = refState(repo);
  for (const input of [Buffer.from('aGk!\n'), Buffer.from([0x00, 0xff, 0x0a])]) {
    const e = fails(
      repo.shadow(['write', 'x.bin', '--base64', '--json'], { input }),
      'INVALID_BASE64',
      `--base64 of ${input.toString('hex')}`,
    );
    assert.match(e.message, /not valid base64/);
    assert.is(refState(repo), before, 'no ref moved');
  }
});

Write(
  'shadow.maxContentBytes holds for raw stdin and for --base64, where line breaks do not count against it',
  ({ repo }) => {
    repo.git('config', 'shadow.maxContentBytes', '3000');
    const atLimit = randomBytes(3000, 1);
    ok(repo.shadow(['write', 'raw.bin'], { input: atLimit }), 'raw, exactly the limit');
    ok(
      repo.shadow(['write', 'b64.bin', '--base64'], { input: wrapped(atLimit) }),
      '--base64 wrapped at 76, exactly the limit',
    );
    assert.is(repo.git('rev-parse', `${DRAFT}:b64.bin`).trim(), hashObject(repo, atLimit));
    const before = refState(repo);
    const over = randomBytes(3001, 2);
    for (const [what, args, input] of [
      ['raw, one byte over', ['write', 'o.bin'], over],
      ['raw, far over', ['write', 'o.bin'], randomBytes(4 * 1024 * 1024, 3)],
      ['--base64, one byte over', ['write', 'o.bin', '--base64'], Buffer.from(wrapped(over))],
    ] as const) {
      const e = fails(repo.shadow([...args, '--json'], { input }), 'CONTENT_TOO_LARGE', what);
      assert.match(e.message, /Content exceeds 3000 bytes limit$/, what);
      assert.is(refState(repo), before, `${what}: no ref moved`);
    }
  },
);

Write.run();

// ---------------------------------------------------------------- batch JSON

const Batch = suite<Ctx>('cli: batch JSON that is not UTF-8');
Batch.before.each(fresh);
Batch.after.each(teardown);

/** A one-write batch with `bad` inside its path (or its content); the offset of `bad`. */
function badBatch(bad: number[], where: 'path' | 'content'): { doc: Buffer; offset: number } {
  const head = Buffer.from(
    `{"intent": "bytes → text", "operations": [{"operation": "write", "path": "${where === 'path' ? 'a' : 'ok.txt'}`,
  );
  const mid = where === 'path' ? Buffer.from('.txt", "content": "x"}]}') : Buffer.from('", "content": "x');
  const doc = Buffer.concat([
    head,
    ...(where === 'path' ? [Buffer.from(bad), mid] : [mid, Buffer.from(bad), Buffer.from('"}]}')]),
  ]);
  return { doc, offset: head.length + (where === 'path' ? 0 : mid.length) };
}

const BAD_SEQUENCES: Array<[string, number[]]> = [
  ['0xff', [0xff]],
  ['an overlong "/"', [0xc0, 0xaf]],
  ['a surrogate', [0xed, 0xa0, 0x80]],
  ['a cut sequence', [0xe2, 0x82]],
];

Batch(
  'from a file and from stdin: INVALID_JSON with the byte offset of the first bad byte, in data and in the message; no ref moves, no draft is made',
  ({ repo }) => {
    const noDraft = refState(repo);
    for (const [what, bad] of BAD_SEQUENCES) {
      for (const where of ['path', 'content'] as const) {
        const { doc, offset } = badBatch(bad, where);
        writeFileSync(join(repo.dir, 'batch.json'), doc);
        for (const [source, args, input] of [
          ['file', ['batch', 'batch.json', '--json'], undefined],
          ['stdin', ['batch', '-', '--json'], doc],
        ] as const) {
          const label = `${what} in the ${where}, from ${source}`;
          const e = fails(repo.shadow([...args], { input }), 'INVALID_JSON', label);
          assert.is(e.data.offset, offset, label);
          assert.is(e.data.byte, bad[0], label);
          assert.ok(e.message.includes(`byte offset ${offset} `), `${label}: ${e.message}`);
          assert.is(e.data.inside, `the string value of operations[0].${where}`, label);
          assert.is(refState(repo), noDraft, `${label}: nothing moved`);
        }
      }
    }
    assert.is(repo.ref(DRAFT), undefined, 'no draft was created');
  },
);

Batch(
  'an existing draft does not move either; the text output names the offset and the hint says what to do',
  ({ repo }) => {
    ok(repo.shadow(['write', 'seed.txt'], { input: 'seed\n' }), 'seed the draft');
    const before = refState(repo);
    const { doc, offset } = badBatch([0xff], 'path');
    const r = repo.shadow(['batch', '-'], { input: doc });
    assert.is(r.status, 1);
    assert.match(
      r.stdout,
      `batch rejected on draft default, nothing was written: the batch JSON is not valid UTF-8: byte 0xff at byte offset ${offset}`,
    );
    assert.match(r.stderr, /^hint: send the batch as UTF-8 text/m);
    assert.is(refState(repo), before);
  },
);

Batch('a plan that is not UTF-8 is refused the same way before any batch runs', ({ repo }) => {
  const plan = Buffer.concat([
    Buffer.from('{"batches": [{"id": 1, "operations": [{"operation": "write", "path": "p'),
    Buffer.from([0xff]),
    Buffer.from('", "content": "x"}]}]}'),
  ]);
  writeFileSync(join(repo.dir, 'plan.json'), plan);
  const e = fails(repo.shadow(['run', 'plan.json', '--json']), 'INVALID_JSON', 'run');
  assert.is(e.data.offset, plan.indexOf(0xff));
  assert.match(e.message, /^the plan JSON is not valid UTF-8/);
  assert.is(repo.ref(DRAFT), undefined);
});

Batch('a UTF-8 byte order mark before the batch is skipped, as git skips it', ({ repo }) => {
  const doc = Buffer.concat([
    Buffer.from([0xef, 0xbb, 0xbf]),
    Buffer.from('{"operations": [{"operation": "write", "path": "bom.txt", "content": "é\\n"}]}'),
  ]);
  writeFileSync(join(repo.dir, 'bom.json'), doc);
  ok(repo.shadow(['batch', 'bom.json', '--json']), 'batch with a BOM');
  assert.ok(gitBytes(repo, ['cat-file', 'blob', `${DRAFT}:bom.txt`]).equals(Buffer.from('é\n')));
});

Batch.run();

// ---------------------------------------------------------------- HTTP

const Http = suite<Ctx>('http: a batch body that is not UTF-8');
Http.before.each(fresh);
Http.after.each(teardown);

Http('POST /api/batch refuses it with 400 INVALID_JSON and the byte offset; no draft is made', async ({ repo }) => {
  const sh = await openShadow({ dir: repo.dir, env: repo.env });
  const server = await startServer(sh);
  try {
    const api = new Api(server.url, server.token);
    const { doc, offset } = badBatch([0xff], 'path');
    const r = await api.call('POST', '/api/batch', { text: doc, type: 'application/json' });
    assert.is(r.status, 400, JSON.stringify(r.body));
    assert.is(r.body.error.code, 'INVALID_JSON');
    assert.is(r.body.error.data.offset, offset);
    assert.is(repo.ref(DRAFT), undefined);
    const good = await api.call('POST', '/api/batch', {
      text: Buffer.from('{"operations": [{"operation": "write", "path": "é.txt", "content": "ü"}]}'),
      type: 'application/json',
    });
    assert.is(good.status, 200, JSON.stringify(good.body));
    assert.ok(gitBytes(repo, ['cat-file', 'blob', `${DRAFT}:é.txt`]).equals(Buffer.from('ü')));
  } finally {
    await server.close();
    sh.close();
  }
});

Http.run();
