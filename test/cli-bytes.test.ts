import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openShadow, startServer } from '../src/index.js';
import { DiskRepo, type CliResult } from './helpers/disk-repo.js';
import { Api } from './helpers/session-http.js';

/**
 * Bytes stay bytes: batch JSON that is not UTF-8 is refused where it
 * breaks, never decoded into U+FFFD. Native git is the oracle for every
 * stored blob.
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
  return repo.git('for-each-ref', '--format=%(refname) %(objectname)') + (repo.gitResult('reflog', 'show', DRAFT).stdout ?? '');
}

// ---------------------------------------------------------------- batch JSON

const Batch = suite<Ctx>('cli: batch JSON that is not UTF-8');
Batch.before.each(fresh);
Batch.after.each(teardown);

/** A one-write batch with `bad` inside its path (or its content); the offset of `bad`. */
function badBatch(bad: number[], where: 'path' | 'content'): { doc: Buffer; offset: number } {
  const head = Buffer.from(`{"intent": "bytes → text", "operations": [{"operation": "write", "path": "${where === 'path' ? 'a' : 'ok.txt'}`);
  const mid = where === 'path' ? Buffer.from('.txt", "content": "x"}]}') : Buffer.from('", "content": "x');
  const doc = Buffer.concat([head, ...(where === 'path' ? [Buffer.from(bad), mid] : [mid, Buffer.from(bad), Buffer.from('"}]}')])]);
  return { doc, offset: head.length + (where === 'path' ? 0 : mid.length) };
}

const BAD_SEQUENCES: Array<[string, number[]]> = [
  ['0xff', [0xff]],
  ['an overlong "/"', [0xc0, 0xaf]],
  ['a surrogate', [0xed, 0xa0, 0x80]],
  ['a cut sequence', [0xe2, 0x82]],
];

Batch('from a file and from stdin: INVALID_JSON with the byte offset of the first bad byte, in data and in the message; no ref moves, no draft is made', ({ repo }) => {
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
});

Batch('an existing draft does not move either; the text output names the offset and the hint says what to do', ({ repo }) => {
  ok(repo.shadow(['write', 'seed.txt'], { input: 'seed\n' }), 'seed the draft');
  const before = refState(repo);
  const { doc, offset } = badBatch([0xff], 'path');
  const r = repo.shadow(['batch', '-'], { input: doc });
  assert.is(r.status, 1);
  assert.match(r.stdout, `batch rejected on draft default, nothing was written: the batch JSON is not valid UTF-8: byte 0xff at byte offset ${offset}`);
  assert.match(r.stderr, /^hint: send the batch as UTF-8 text/m);
  assert.is(refState(repo), before);
});

Batch('a plan that is not UTF-8 is refused the same way before any batch runs', ({ repo }) => {
  const plan = Buffer.concat([Buffer.from('{"batches": [{"id": 1, "operations": [{"operation": "write", "path": "p'), Buffer.from([0xff]), Buffer.from('", "content": "x"}]}]}')]);
  writeFileSync(join(repo.dir, 'plan.json'), plan);
  const e = fails(repo.shadow(['run', 'plan.json', '--json']), 'INVALID_JSON', 'run');
  assert.is(e.data.offset, plan.indexOf(0xff));
  assert.match(e.message, /^the plan JSON is not valid UTF-8/);
  assert.is(repo.ref(DRAFT), undefined);
});

Batch('a UTF-8 byte order mark before the batch is skipped, as git skips it', ({ repo }) => {
  const doc = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"operations": [{"operation": "write", "path": "bom.txt", "content": "é\\n"}]}')]);
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
    const good = await api.call('POST', '/api/batch', { text: Buffer.from('{"operations": [{"operation": "write", "path": "é.txt", "content": "ü"}]}'), type: 'application/json' });
    assert.is(good.status, 200, JSON.stringify(good.body));
    assert.ok(gitBytes(repo, ['cat-file', 'blob', `${DRAFT}:é.txt`]).equals(Buffer.from('ü')));
  } finally {
    await server.close();
    sh.close();
  }
});

Http.run();
