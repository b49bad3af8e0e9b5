import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import { parse as parseYaml } from 'yaml';
import type { Shadow } from '../src/index.js';
import type { MemRepo } from './helpers/mem-repo.js';
import {
  committed,
  draftTip,
  files,
  NOT_FOUND,
  openAs,
  repoWith,
  ROOT,
  STRAY,
  thrown,
  writeThrough,
} from './helpers/session-memfs.js';

/*
 * Finalizing a write session on memfs: validation, the commit, and
 * corrected resends.
 */

async function tipMessage(repo: MemRepo): Promise<string> {
  const oid = await draftTip(repo);
  assert.ok(oid, 'the draft exists');
  return (await git.readCommit({ fs: repo.fs, dir: ROOT, oid: oid! })).commit.message;
}

// ---------------------------------------------------------------- validation and commit

const Validate = suite<{ repo: MemRepo; sh: Shadow }>('finalize: validation and the commit');
Validate.before.each(async (c) => {
  c.repo = await repoWith();
  c.sh = await openAs(c.repo);
});
Validate.after.each((c) => c.sh.close());

Validate(
  'a finalized session is one batch commit with a Shadow-Session trailer, and its directory is gone',
  async ({ repo, sh }) => {
    const { id, result } = await writeThrough(sh, 'docs/guide.md', 'create', ['# Guide\n', 'Step one.\n', 'DONE\n']);
    assert.is(result.success, true);
    assert.is(result.session_id, id);
    assert.is(result.batch, 1);
    assert.equal(
      result.results.map((r) => [r.path, r.status]),
      [['docs/guide.md', 'created']],
    );
    assert.is(result.commit, await draftTip(repo));
    const msg = await tipMessage(repo);
    assert.ok(msg.split('\n').includes(`Shadow-Session: ${id}`), msg);
    assert.ok(msg.startsWith('write docs/guide.md'), 'the intent is the summary');
    assert.is(String(await committed(repo, 'docs/guide.md')), '# Guide\nStep one.\n');
    const log = await sh.log();
    assert.equal([log.length, log[0]!.session], [1, id]);
    assert.is(files(repo, id), undefined);
    assert.equal(sh.sessions.list(), []);
    assert.equal(await thrown(() => sh.sessions.status(id)), NOT_FOUND);
  },
);

/** JSON.parse's message for `text` (shadow quotes it). */
function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    return (e as Error).message.split('\n')[0]!;
  }
  throw new Error('valid JSON');
}

function yamlError(text: string): string {
  try {
    parseYaml(text);
  } catch (e) {
    return (e as Error).message.split('\n')[0]!;
  }
  throw new Error('valid YAML');
}

const INVALID: Array<{
  name: string;
  target: string;
  op: 'create' | 'overwrite' | 'append';
  content: string | Buffer;
  binary?: boolean;
  errors: string[];
}> = [
  {
    name: 'invalid UTF-8',
    target: 'bad.txt',
    op: 'create',
    content: Buffer.from([0x6f, 0x6b, 0x0a, 0xc3, 0x28, 0x0a]),
    errors: ['the content is not valid UTF-8 (byte 3); declare the session binary for non-text content'],
  },
  {
    name: 'a lone continuation byte',
    target: 'bad2.txt',
    op: 'create',
    content: Buffer.from([0x80]),
    errors: ['the content is not valid UTF-8 (byte 0); declare the session binary for non-text content'],
  },
  { name: 'empty content for create', target: 'empty.md', op: 'create', content: '', errors: ['the content is empty'] },
  {
    name: 'create of an existing path',
    target: 'README.md',
    op: 'create',
    content: 'x\n',
    errors: ['README.md already exists; use operation "overwrite" or "append"'],
  },
  {
    name: 'overwrite of a missing path',
    target: 'missing.md',
    op: 'overwrite',
    content: 'x\n',
    errors: ['missing.md does not exist; use operation "create"'],
  },
  {
    name: 'append to a missing path',
    target: 'missing.md',
    op: 'append',
    content: 'x\n',
    errors: ['missing.md does not exist; use operation "create"'],
  },
  {
    name: 'JSON that does not parse',
    target: 'conf/new.json',
    op: 'create',
    content: '{"a": 1,\n',
    errors: [`the content is not valid JSON: ${jsonError('{"a": 1,\n')}`],
  },
  {
    name: 'YAML that does not parse',
    target: 'ci.yml',
    op: 'create',
    content: 'a: [1, 2\nb: c\n',
    errors: [`the content is not valid YAML: ${yamlError('a: [1, 2\nb: c\n')}`],
  },
  {
    name: 'an unterminated code fence',
    target: 'f.md',
    op: 'create',
    content: 'text\n```ts\nconst a = 1;\n',
    errors: ['the content ends inside an unterminated code fence (```)'],
  },
  { name: 'a stray DONE marker', target: 's.md', op: 'create', content: 'text\nDONE!\n', errors: [STRAY(2)] },
  {
    name: 'every error at once',
    target: 'conf/app.json',
    op: 'create',
    content: '{\n```\nDONE.\n',
    errors: [
      'conf/app.json already exists; use operation "overwrite" or "append"',
      STRAY(3),
      'the content ends inside an unterminated code fence (```)',
      `the content is not valid JSON: ${jsonError('{\n```\nDONE.\n')}`,
    ],
  },
];

Validate(
  'a failed validation returns every error, commits nothing and keeps the session open',
  async ({ repo, sh }) => {
    for (const c of INVALID) {
      const before = await draftTip(repo);
      const { id, result: r } = await writeThrough(sh, c.target, c.op, [c.content], c.binary);
      assert.is(r.success, false, c.name);
      assert.equal(r.validation_errors, c.errors, c.name);
      assert.is(r.error?.code, 'VALIDATION_FAILED', c.name);
      assert.is(r.error?.message, `Validation failed: ${c.errors.join('; ')}`, c.name);
      assert.is(r.attempts_left, 2, c.name);
      assert.is(r.commit, null, c.name);
      assert.is(await draftTip(repo), before, `${c.name}: nothing committed`);
      const s = sh.sessions.status(id);
      assert.equal([s.stage, s.attempts, s.errors], ['done', 1, c.errors], `${c.name}: the session stays`);
      assert.equal(files(repo, id)!.content, Buffer.from(c.content), `${c.name}: content.txt holds what was sent`);
      sh.sessions.cancel(id);
    }
  },
);

const VALID: Array<{
  name: string;
  target: string;
  op: 'create' | 'overwrite' | 'append';
  content: string | Buffer;
  binary?: boolean;
  result: string | Buffer;
}> = [
  { name: 'create markdown', target: 'docs/new.md', op: 'create', content: '# New\n', result: '# New\n' },
  { name: 'overwrite', target: 'notes.txt', op: 'overwrite', content: 'two\nthree\n', result: 'two\nthree\n' },
  {
    name: 'append to the current content',
    target: 'README.md',
    op: 'append',
    content: 'two\n',
    result: 'Hello\ntwo\n',
  },
  {
    name: 'append to what the draft already holds',
    target: 'README.md',
    op: 'append',
    content: 'three',
    result: 'Hello\ntwo\nthree',
  },
  { name: 'append nothing', target: 'conf/app.json', op: 'append', content: '', result: '{"a": 1}\n' },
  { name: 'overwrite with empty content', target: 'notes.txt', op: 'overwrite', content: '', result: '' },
  {
    name: 'valid JSON',
    target: 'conf/app.json',
    op: 'overwrite',
    content: '{"a": 2, "b": [true]}\n',
    result: '{"a": 2, "b": [true]}\n',
  },
  {
    name: 'valid YAML',
    target: 'ci.yaml',
    op: 'create',
    content: 'on: push\njobs:\n  test: {}\n',
    result: 'on: push\njobs:\n  test: {}\n',
  },
  {
    name: 'closed code fences',
    target: 'f.md',
    op: 'create',
    content: '```sh\nls\n```\n~~~\nx\n~~~\n',
    result: '```sh\nls\n```\n~~~\nx\n~~~\n',
  },
  { name: 'no newline at the end', target: 'n.txt', op: 'create', content: 'no newline', result: 'no newline' },
  {
    name: 'binary: any bytes, a DONE line is content',
    target: 'img.bin',
    op: 'create',
    binary: true,
    content: Buffer.from([0xff, 0x00, 0x0a, 0x44, 0x4f, 0x4e, 0x45, 0x0a, 0xc3]),
    result: Buffer.from([0xff, 0x00, 0x0a, 0x44, 0x4f, 0x4e, 0x45, 0x0a, 0xc3]),
  },
];

Validate('valid content commits exactly: create, overwrite, append, JSON, YAML, binary', async ({ repo, sh }) => {
  for (const c of VALID) {
    const { result: r } = await writeThrough(sh, c.target, c.op, [c.content], c.binary);
    assert.is(r.success, true, `${c.name}: ${r.error?.message}`);
    assert.equal(await committed(repo, c.target), Buffer.from(c.result), c.name);
  }
});

// ---------------------------------------------------------------- attempts

const Attempts = suite<{ repo: MemRepo; sh: Shadow }>('corrected resends');
Attempts.before.each(async (c) => {
  c.repo = await repoWith();
  c.sh = await openAs(c.repo);
});
Attempts.after.each((c) => c.sh.close());

Attempts('a failed validation, then a corrected resend commits the corrected content only', async ({ repo, sh }) => {
  const { id, result: first } = await writeThrough(sh, 'conf/new.json', 'create', ['{"a": \n', 'DONE\n']);
  assert.equal(
    [first.success, first.attempts_left, first.error?.hint],
    [false, 2, 'resend the corrected content (2 attempts left)'],
  );
  const second = await sh.sessions.finalize(id, Buffer.from('{"a": 1}\n'));
  assert.is(second.success, true, second.error?.message);
  assert.is(String(await committed(repo, 'conf/new.json')), '{"a": 1}\n');
  assert.ok((await tipMessage(repo)).includes(`Shadow-Session: ${id}`));
  assert.is(files(repo, id), undefined);
  assert.equal(await thrown(() => sh.sessions.finalize(id)), NOT_FOUND, 'a finalized session is gone');
});

Attempts('a resend from another process (after a restart) replaces the content', async ({ repo, sh }) => {
  const { id, result: first } = await writeThrough(sh, 'x.yaml', 'create', ['a: [\n']);
  assert.is(first.success, false);
  const later = await openAs(repo, 200);
  const r = await later.sessions.finalize(id, Buffer.from('a: [1]\n'));
  assert.is(r.success, true, r.error?.message);
  assert.is(String(await committed(repo, 'x.yaml')), 'a: [1]\n');
  later.close();
});

Attempts('three failures fail the session: no fourth try commits, and clean removes it', async ({ repo, sh }) => {
  const { id, result: r1 } = await writeThrough(sh, 'n.json', 'create', ['{\n']);
  const r2 = await sh.sessions.finalize(id, Buffer.from('{"still": \n'));
  const r3 = await sh.sessions.finalize(id, Buffer.from('[1,\n'));
  assert.equal(
    [r1, r2, r3].map((r) => [r.success, r.attempts_left]),
    [
      [false, 2],
      [false, 1],
      [false, 0],
    ],
  );
  assert.is(r3.error?.hint, 'the session has failed; begin a new one');
  assert.match(r3.error!.message, /^Validation failed: /);
  const fresh = await openAs(repo, 200);
  assert.equal([fresh.sessions.status(id).stage, fresh.sessions.status(id).attempts], ['failed', 3]);
  assert.equal(
    await thrown(() => fresh.sessions.finalize(id, Buffer.from('{}\n'))),
    NOT_FOUND,
    'another process cannot revive it',
  );
  // The process that failed it cannot either.
  const fourth = await sh.sessions.finalize(id, Buffer.from('{"ok": true}\n')).then(
    (r) => (r.success ? 'committed' : 'refused'),
    (e: Error) => e.message,
  );
  assert.ok(fourth !== 'committed', 'a failed session never commits');
  assert.is(await draftTip(repo), undefined, 'nothing was ever committed');
  // A failed session blocks nothing, and clean removes it.
  const next = await sh.sessions.begin({ intent: '', target_file: 'n.json', operation: 'create' });
  assert.ok(fresh.sessions.clean().includes(id));
  assert.is(files(repo, id), undefined);
  sh.sessions.cancel(next.session_id);
  fresh.close();
});

Validate.run();

Attempts.run();
