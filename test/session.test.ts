import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import { parse as parseYaml } from 'yaml';
import { IDLE_PROMPT, isShadowError, openShadow, type FileSystem, type Processes, type Shadow } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { FsSeam } from './helpers/fs-seam.js';
import { withReplacingRename } from './helpers/memfs-rename.js';

/*
 * Write sessions through the library, on memfs with a clock that moves only
 * when told: how content is split and ended (DONE), when it is saved, how it
 * is validated and committed, the limits, expiry, the resend attempts,
 * recovery of a session a crash left, and a full disk.
 */

const ROOT = '/repo';
const SESSIONS = `${ROOT}/.git/shadow/sessions`;
const HOST = 'memhost';
const DRAFT_REF = 'refs/shadow/drafts/default';
const MiB = 1024 * 1024;

const BASE_FILES = { 'README.md': 'Hello\n', 'notes.txt': 'one\n', 'conf/app.json': '{"a": 1}\n' };

// ---------------------------------------------------------------- helpers

/** A process table in which only `self` (and `alsoAlive`) is alive. */
function processes(self: number, alsoAlive: number[] = []): Processes {
  return { self, host: HOST, isAlive: (pid) => pid === self || alsoAlive.includes(pid) };
}

/** A fresh repository with `config` (git config keys, e.g. shadow.sessionSaveLines) set. */
async function repoWith(config: Record<string, string | number> = {}): Promise<MemRepo> {
  const repo = await memRepo(BASE_FILES);
  for (const [path, value] of Object.entries(config)) await git.setConfig({ fs: repo.fs, dir: ROOT, path, value: String(value) });
  return repo;
}

/** Open shadow as process `pid` (on `fs`, default the repository's own). */
function openAs(repo: MemRepo, pid = 100, options: { fs?: FileSystem; alive?: number[] } = {}): Promise<Shadow> {
  const { clock, ids, env } = repo.ctx;
  return openShadow({ dir: ROOT, fs: withReplacingRename(options.fs ?? repo.fs), clock, ids, env, processes: processes(pid, options.alive) });
}

/** `n` numbered lines, each ending in a newline. */
function lines(n: number, from = 1, tag = 'line'): string {
  let s = '';
  for (let i = from; i < from + n; i++) s += `${tag} ${String(i).padStart(4, '0')}\n`;
  return s;
}

/** The files of a session on disk (undefined when gone). */
function files(repo: MemRepo, id: string): { content: Buffer; state: any; meta: any } | undefined {
  const dir = `${SESSIONS}/${id}`;
  if (!repo.fs.existsSync(dir)) return undefined;
  return {
    content: repo.fs.readFileSync(`${dir}/content.txt`) as Buffer,
    state: JSON.parse(String(repo.fs.readFileSync(`${dir}/state.json`, 'utf8'))),
    meta: JSON.parse(String(repo.fs.readFileSync(`${dir}/metadata.json`, 'utf8'))),
  };
}

async function draftTip(repo: MemRepo, ref = DRAFT_REF): Promise<string | undefined> {
  try {
    return await git.resolveRef({ fs: repo.fs, dir: ROOT, ref });
  } catch {
    return undefined;
  }
}

/** A file of the draft's tip commit, read with isomorphic-git (undefined when absent). */
async function committed(repo: MemRepo, path: string, ref = DRAFT_REF): Promise<Buffer | undefined> {
  const oid = await draftTip(repo, ref);
  if (!oid) return undefined;
  try {
    const { blob } = await git.readBlob({ fs: repo.fs, dir: ROOT, oid, filepath: path });
    return Buffer.from(blob);
  } catch {
    return undefined;
  }
}

async function tipMessage(repo: MemRepo): Promise<string> {
  const oid = await draftTip(repo);
  assert.ok(oid, 'the draft exists');
  return (await git.readCommit({ fs: repo.fs, dir: ROOT, oid: oid! })).commit.message;
}

/** The error code and message a call throws (fails when it does not throw a ShadowError). */
async function thrown(fn: () => unknown): Promise<{ code: string; message: string }> {
  try {
    await fn();
  } catch (e) {
    assert.ok(isShadowError(e), `a ShadowError, not ${String(e)}`);
    return { code: (e as { code: string }).code, message: (e as Error).message };
  }
  assert.unreachable('it should have thrown');
  throw new Error('unreachable');
}

const NOT_FOUND = { code: 'SESSION_NOT_FOUND', message: 'Session not found or expired' };
const ACTIVE = { code: 'SESSION_ACTIVE', message: 'Another write session is already active' };

/** Cut `b` into chunks of `size` bytes. */
function chunks(b: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
}

/** Begin a session on `target`, feed `parts`, end the stream and finalize. */
async function writeThrough(sh: Shadow, target: string, op: 'create' | 'overwrite' | 'append', parts: Array<string | Buffer>, binary = false) {
  const { session_id } = await sh.sessions.begin({ intent: `write ${target}`, target_file: target, operation: op, binary });
  let done = false;
  for (const p of parts) done = sh.sessions.push(session_id, typeof p === 'string' ? Buffer.from(p) : p);
  if (!done) sh.sessions.end(session_id);
  return { id: session_id, result: await sh.sessions.finalize(session_id) };
}

// ---------------------------------------------------------------- begin

const Begin = suite<{ repo: MemRepo; sh: Shadow }>('begin');
Begin.before.each(async (c) => {
  c.repo = await repoWith();
  c.sh = await openAs(c.repo);
});
Begin.after.each((c) => c.sh.close());

Begin('begin returns id, stage, directory and instructions; metadata.json, state.json and an empty content.txt are on disk', async ({ repo, sh }) => {
  const r = await sh.sessions.begin({ intent: 'the guide', target_file: 'docs/guide.md', operation: 'create' });
  assert.equal(Object.keys(r).sort(), ['instructions', 'session_dir', 'session_id', 'stage']);
  assert.match(r.session_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is(r.stage, 'awaiting_content');
  assert.is(r.session_dir, `${SESSIONS}/${r.session_id}`);
  assert.match(r.instructions, /plain text/);
  assert.match(r.instructions, /End with DONE on its own line/);
  assert.match(r.instructions, /docs\/guide\.md/);
  const f = files(repo, r.session_id)!;
  assert.is(f.content.length, 0);
  assert.equal({ bytes: f.state.bytes, lines: f.state.lines, last_save: f.state.last_save }, { bytes: 0, lines: 0, last_save: null });
  assert.equal(
    { intent: f.meta.intent, target_file: f.meta.target_file, operation: f.meta.operation, draft: f.meta.draft, status: f.meta.status, attempts: f.meta.attempts },
    { intent: 'the guide', target_file: 'docs/guide.md', operation: 'create', draft: 'default', status: 'awaiting_content', attempts: 0 },
  );
  assert.is(f.meta.created_at, new Date(repo.ctx.clock.now()).toISOString());
  const s = sh.sessions.status(r.session_id);
  assert.equal([s.stage, s.bytes, s.lines, s.attempts], ['awaiting_content', 0, 0, 0]);
});

Begin('bad begin input is refused before anything is written', async ({ repo, sh }) => {
  const cases: Array<[string, unknown, string]> = [
    ['an operation that does not exist', { intent: '', target_file: 'a.md', operation: 'delete' }, 'INVALID_ARGUMENT'],
    ['no target', { intent: '', operation: 'create' }, 'INVALID_ARGUMENT'],
    ['an empty target', { intent: '', target_file: '', operation: 'create' }, 'INVALID_ARGUMENT'],
    ['an unknown field', { intent: '', target_file: 'a.md', operation: 'create', colour: 'red' }, 'INVALID_ARGUMENT'],
    ['a path out of the repository', { intent: '', target_file: '../etc/passwd', operation: 'create' }, 'INVALID_PATH'],
    ['a path into .git', { intent: '', target_file: '.git/config', operation: 'overwrite' }, 'INVALID_PATH'],
  ];
  for (const [name, input, code] of cases) {
    const e = await thrown(() => sh.sessions.begin(input as never));
    assert.is(e.code, code, name);
  }
  assert.equal(sh.sessions.list(), []);
  assert.is(repo.fs.existsSync(SESSIONS) ? (repo.fs.readdirSync(SESSIONS) as string[]).filter((n) => n.length === 36).length : 0, 0);
});

// ---------------------------------------------------------------- splitting

const Split = suite<{ repo: MemRepo; sh: Shadow }>('splitting content into lines');
Split.before.each(async (c) => {
  c.repo = await repoWith();
  c.sh = await openAs(c.repo);
});
Split.after.each((c) => c.sh.close());

const TEXT = Buffer.from('# Title\n\nnaïve café ☕ 𝄞 — ünïcödé\r\nthe job is DONE, or not\nDONEDONE\n\nlast line, no newline');

Split('any chunking gives the same bytes: every byte alone, odd sizes, cuts inside UTF-8 characters', async ({ repo, sh }) => {
  for (const size of [1, 2, 3, 5, 7, 13, 64, TEXT.length]) {
    const { id, result } = await writeThrough(sh, `split/${size}.md`, 'create', chunks(TEXT, size));
    assert.is(result.success, true, `chunks of ${size}: ${result.error?.message}`);
    assert.equal(await committed(repo, `split/${size}.md`), TEXT, `chunks of ${size}`);
    assert.is(files(repo, id), undefined, 'success removes the session directory');
  }
});

Split('a DONE line cut anywhere ends the content on the chunk that completes it', async ({ repo, sh }) => {
  const body = 'alpha\nbeta DONE\n';
  const all = Buffer.from(`${body}DONE\nnot content\n`);
  const doneEnd = body.length + 'DONE\n'.length;
  for (const size of [1, 2, 3, 4, 6, 9]) {
    const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: `done/${size}.md`, operation: 'create' });
    let firstDone = -1;
    let fed = 0;
    for (const c of chunks(all, size)) {
      fed += c.length;
      if (sh.sessions.push(id, c) && firstDone === -1) firstDone = fed;
    }
    assert.ok(firstDone >= doneEnd && firstDone - size < doneEnd, `chunks of ${size}: done at byte ${firstDone}, the DONE line ends at ${doneEnd}`);
    const s = sh.sessions.status(id);
    assert.equal([s.stage, s.bytes, s.lines], ['done', body.length, 2], `chunks of ${size}`);
    assert.is((await sh.sessions.finalize(id)).success, true);
    assert.is(String(await committed(repo, `done/${size}.md`)), body);
  }
});

Split('status counts the bytes and the complete lines received; a held-back partial line is not on disk yet', async ({ repo, sh }) => {
  const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'count.md', operation: 'create' });
  sh.sessions.push(id, Buffer.from(lines(60)));
  sh.sessions.push(id, Buffer.from('partial li'));
  const s = sh.sessions.status(id);
  assert.equal([s.bytes, s.lines], [Buffer.byteLength(lines(60)), 60]);
  assert.is(String(files(repo, id)!.content), lines(60), 'complete lines only');
  sh.sessions.push(id, Buffer.from('ne\n'));
  sh.sessions.end(id);
  assert.is(String(files(repo, id)!.content), `${lines(60)}partial line\n`);
});

// ---------------------------------------------------------------- DONE rules

const Done = suite<{ repo: MemRepo; sh: Shadow }>('the DONE line');
Done.before.each(async (c) => {
  c.repo = await repoWith();
  c.sh = await openAs(c.repo);
});
Done.after.each((c) => c.sh.close());

const STRAY = (line: number): string => `a stray "DONE" marker ends the content (line ${line}); send DONE alone on its own line to end a session`;

const DONE_CASES: Array<{ name: string; chunks: string[]; endsByDone: boolean; content?: string; errors?: string[] }> = [
  { name: 'DONE alone ends it; what follows is dropped', chunks: ['a\nb\nDONE\nafter\n'], endsByDone: true, content: 'a\nb\n' },
  { name: 'DONE in its own chunk', chunks: ['a\n', 'DONE\n', 'more\n'], endsByDone: true, content: 'a\n' },
  { name: 'DONE with CRLF', chunks: ['a\r\nDONE\r\n'], endsByDone: true, content: 'a\r\n' },
  { name: 'DONE at the end of the stream without a newline', chunks: ['a\nDONE'], endsByDone: false, content: 'a\n' },
  { name: 'DONE inside a line is content', chunks: ['the job is DONE now\nDONE is a word\n', 'DONE\n'], endsByDone: true, content: 'the job is DONE now\nDONE is a word\n' },
  { name: 'DONE inside the last line is content', chunks: ['I am DONE with it\n'], endsByDone: false, content: 'I am DONE with it\n' },
  { name: 'lower-case done is content', chunks: ['a\ndone\n'], endsByDone: false, content: 'a\ndone\n' },
  { name: 'DONEDONE is content', chunks: ['a\nDONEDONE\n'], endsByDone: false, content: 'a\nDONEDONE\n' },
  { name: '"DONE." in the middle is content', chunks: ['a\nDONE.\nb\n'], endsByDone: false, content: 'a\nDONE.\nb\n' },
  { name: 'DONE with a trailing space is a stray marker', chunks: ['a\nDONE \n'], endsByDone: false, errors: [STRAY(2)] },
  { name: 'indented DONE is a stray marker', chunks: ['a\n  DONE\n\n'], endsByDone: false, errors: [STRAY(2)] },
  { name: 'bold **DONE** is a stray marker', chunks: ['a\n**DONE**'], endsByDone: false, errors: [STRAY(2)] },
  { name: 'only DONE: empty content', chunks: ['DONE\n'], endsByDone: true, errors: ['the content is empty'] },
];

Done('DONE rules', async ({ repo, sh }) => {
  for (const [i, c] of DONE_CASES.entries()) {
    const before = await draftTip(repo);
    const { session_id: id } = await sh.sessions.begin({ intent: c.name, target_file: `done/${i}.md`, operation: 'create' });
    let done = false;
    for (const ch of c.chunks) done = sh.sessions.push(id, Buffer.from(ch));
    assert.is(done, c.endsByDone, `${c.name}: push says done`);
    if (!done) sh.sessions.end(id);
    const r = await sh.sessions.finalize(id);
    if (c.content !== undefined) {
      assert.is(r.success, true, `${c.name}: ${r.error?.message}`);
      assert.is(String(await committed(repo, `done/${i}.md`)), c.content, c.name);
    } else {
      assert.is(r.success, false, c.name);
      assert.equal(r.validation_errors, c.errors, c.name);
      assert.is(r.error?.message, `Validation failed: ${c.errors!.join('; ')}`, c.name);
      assert.is(await draftTip(repo), before, `${c.name}: nothing committed`);
      sh.sessions.cancel(id);
    }
  }
});

// ---------------------------------------------------------------- save cadence

const Save = suite('saving to content.txt');

Save('defaults: every 50 lines, or 5 s after the last save; state.json says bytes, lines, last save', async () => {
  const repo = await repoWith();
  const sh = await openAs(repo);
  assert.equal([sh.sessions.settings().saveLines, sh.sessions.settings().saveMs, sh.sessions.settings().promptMs], [50, 5000, 2000]);
  const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'save.md', operation: 'create' });
  const t0 = repo.ctx.clock.now();
  sh.sessions.push(id, Buffer.from(lines(49)));
  assert.is(files(repo, id)!.content.length, 0, '49 lines: not yet');
  assert.is(files(repo, id)!.state.last_save, null);
  repo.ctx.advance(10);
  sh.sessions.push(id, Buffer.from(lines(1, 50)));
  let f = files(repo, id)!;
  assert.is(String(f.content), lines(50), 'the 50th line saves');
  assert.equal([f.state.bytes, f.state.lines, f.state.last_save], [Buffer.byteLength(lines(50)), 50, new Date(t0 + 10).toISOString()]);
  // Time: a few lines, then the timer (a controller calls save) at 4999 ms and at 5000 ms.
  sh.sessions.push(id, Buffer.from(lines(3, 51)));
  repo.ctx.advance(4999);
  sh.sessions.save(id);
  assert.is(String(files(repo, id)!.content), lines(50), '4999 ms: not yet');
  repo.ctx.advance(1);
  sh.sessions.save(id);
  f = files(repo, id)!;
  assert.is(String(f.content), lines(53), '5000 ms: saved');
  assert.equal([f.state.lines, f.state.last_save], [53, new Date(t0 + 5010).toISOString()]);
  // A push after 5 s saves too, without a timer.
  sh.sessions.push(id, Buffer.from(lines(1, 54)));
  repo.ctx.advance(5000);
  sh.sessions.push(id, Buffer.from(lines(1, 55)));
  assert.is(String(files(repo, id)!.content), lines(55));
  sh.close();
});

const CADENCE: Array<{ lines: number; ms: number }> = [
  { lines: 1, ms: 100 },
  { lines: 3, ms: 100 },
  { lines: 7, ms: 20 },
];

Save('shadow.sessionSaveLines and shadow.sessionSaveMs set the cadence', async () => {
  for (const c of CADENCE) {
    const repo = await repoWith({ 'shadow.sessionSaveLines': c.lines, 'shadow.sessionSaveMs': c.ms });
    const sh = await openAs(repo);
    assert.is(sh.sessions.settings().saveLines, c.lines);
    assert.is(sh.sessions.settings().saveMs, c.ms);
    const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'c.md', operation: 'create' });
    for (let i = 1; i <= c.lines; i++) {
      assert.is(files(repo, id)!.content.length, 0, `${JSON.stringify(c)}: ${i - 1} lines unsaved`);
      sh.sessions.push(id, Buffer.from(lines(1, i)));
    }
    assert.is(String(files(repo, id)!.content), lines(c.lines), `${JSON.stringify(c)}: saved at line ${c.lines}`);
    if (c.lines > 1) {
      sh.sessions.push(id, Buffer.from(lines(1, c.lines + 1)));
      repo.ctx.advance(c.ms - 1);
      sh.sessions.save(id);
      assert.is(String(files(repo, id)!.content), lines(c.lines));
      repo.ctx.advance(1);
      sh.sessions.save(id);
      assert.is(String(files(repo, id)!.content), lines(c.lines + 1), `${JSON.stringify(c)}: saved after ${c.ms} ms`);
    }
    sh.close();
  }
});

// ---------------------------------------------------------------- validation and commit

const Validate = suite<{ repo: MemRepo; sh: Shadow }>('finalize: validation and the commit');
Validate.before.each(async (c) => {
  c.repo = await repoWith();
  c.sh = await openAs(c.repo);
});
Validate.after.each((c) => c.sh.close());

Validate('a finalized session is one batch commit with a Shadow-Session trailer, and its directory is gone', async ({ repo, sh }) => {
  const { id, result } = await writeThrough(sh, 'docs/guide.md', 'create', ['# Guide\n', 'Step one.\n', 'DONE\n']);
  assert.is(result.success, true);
  assert.is(result.session_id, id);
  assert.is(result.batch, 1);
  assert.equal(result.results.map((r) => [r.path, r.status]), [['docs/guide.md', 'created']]);
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
});

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

const INVALID: Array<{ name: string; target: string; op: 'create' | 'overwrite' | 'append'; content: string | Buffer; binary?: boolean; errors: string[] }> = [
  { name: 'invalid UTF-8', target: 'bad.txt', op: 'create', content: Buffer.from([0x6f, 0x6b, 0x0a, 0xc3, 0x28, 0x0a]), errors: ['the content is not valid UTF-8 (byte 3); declare the session binary for non-text content'] },
  { name: 'a lone continuation byte', target: 'bad2.txt', op: 'create', content: Buffer.from([0x80]), errors: ['the content is not valid UTF-8 (byte 0); declare the session binary for non-text content'] },
  { name: 'empty content for create', target: 'empty.md', op: 'create', content: '', errors: ['the content is empty'] },
  { name: 'create of an existing path', target: 'README.md', op: 'create', content: 'x\n', errors: ['README.md already exists; use operation "overwrite" or "append"'] },
  { name: 'overwrite of a missing path', target: 'missing.md', op: 'overwrite', content: 'x\n', errors: ['missing.md does not exist; use operation "create"'] },
  { name: 'append to a missing path', target: 'missing.md', op: 'append', content: 'x\n', errors: ['missing.md does not exist; use operation "create"'] },
  { name: 'JSON that does not parse', target: 'conf/new.json', op: 'create', content: '{"a": 1,\n', errors: [`the content is not valid JSON: ${jsonError('{"a": 1,\n')}`] },
  { name: 'YAML that does not parse', target: 'ci.yml', op: 'create', content: 'a: [1, 2\nb: c\n', errors: [`the content is not valid YAML: ${yamlError('a: [1, 2\nb: c\n')}`] },
  { name: 'an unterminated code fence', target: 'f.md', op: 'create', content: 'text\n```ts\nconst a = 1;\n', errors: ['the content ends inside an unterminated code fence (```)'] },
  { name: 'a stray DONE marker', target: 's.md', op: 'create', content: 'text\nDONE!\n', errors: [STRAY(2)] },
  {
    name: 'every error at once',
    target: 'conf/app.json',
    op: 'create',
    content: '{\n```\nDONE.\n',
    errors: ['conf/app.json already exists; use operation "overwrite" or "append"', STRAY(3), 'the content ends inside an unterminated code fence (```)', `the content is not valid JSON: ${jsonError('{\n```\nDONE.\n')}`],
  },
];

Validate('a failed validation returns every error, commits nothing and keeps the session open', async ({ repo, sh }) => {
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
});

const VALID: Array<{ name: string; target: string; op: 'create' | 'overwrite' | 'append'; content: string | Buffer; binary?: boolean; result: string | Buffer }> = [
  { name: 'create markdown', target: 'docs/new.md', op: 'create', content: '# New\n', result: '# New\n' },
  { name: 'overwrite', target: 'notes.txt', op: 'overwrite', content: 'two\nthree\n', result: 'two\nthree\n' },
  { name: 'append to the current content', target: 'README.md', op: 'append', content: 'two\n', result: 'Hello\ntwo\n' },
  { name: 'append to what the draft already holds', target: 'README.md', op: 'append', content: 'three', result: 'Hello\ntwo\nthree' },
  { name: 'append nothing', target: 'conf/app.json', op: 'append', content: '', result: '{"a": 1}\n' },
  { name: 'overwrite with empty content', target: 'notes.txt', op: 'overwrite', content: '', result: '' },
  { name: 'valid JSON', target: 'conf/app.json', op: 'overwrite', content: '{"a": 2, "b": [true]}\n', result: '{"a": 2, "b": [true]}\n' },
  { name: 'valid YAML', target: 'ci.yaml', op: 'create', content: 'on: push\njobs:\n  test: {}\n', result: 'on: push\njobs:\n  test: {}\n' },
  { name: 'closed code fences', target: 'f.md', op: 'create', content: '```sh\nls\n```\n~~~\nx\n~~~\n', result: '```sh\nls\n```\n~~~\nx\n~~~\n' },
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

// ---------------------------------------------------------------- size limit

const Size = suite('the size limit');

Size('10 MiB is accepted; the byte past it is refused at once with "Content exceeds 10MB limit" and the session is gone', async () => {
  const repo = await repoWith();
  const sh = await openAs(repo);
  const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'big.txt', operation: 'create' });
  const line = Buffer.alloc(MiB, 0x61);
  line[MiB - 1] = 0x0a;
  for (let i = 0; i < 10; i++) sh.sessions.push(id, line);
  assert.is(sh.sessions.status(id).bytes, 10 * MiB);
  const e = await thrown(() => sh.sessions.push(id, Buffer.from('\n')));
  assert.equal(e, { code: 'CONTENT_TOO_LARGE', message: 'Content exceeds 10MB limit' });
  assert.is(files(repo, id), undefined, 'its files are gone');
  assert.equal(await thrown(() => sh.sessions.status(id)), NOT_FOUND);
  assert.equal(await thrown(() => sh.sessions.finalize(id)), NOT_FOUND);
  sh.close();
});

Size('shadow.maxContentBytes sets the limit; a line without a newline is refused as soon as it crosses it', async () => {
  const repo = await repoWith({ 'shadow.maxContentBytes': '1k' });
  const sh = await openAs(repo);
  // Complete lines.
  let { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'a.txt', operation: 'create' });
  sh.sessions.push(id, Buffer.from(`${'a'.repeat(1023)}\n`));
  assert.equal(await thrown(() => sh.sessions.push(id, Buffer.from('b\n'))), { code: 'CONTENT_TOO_LARGE', message: 'Content exceeds 1KB limit' });
  assert.is(files(repo, id), undefined);
  // One long line, no newline: the stream must not be buffered past the limit.
  ({ session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'b.txt', operation: 'create' }));
  let refusedAt = -1;
  for (let i = 1; i <= 8 && refusedAt === -1; i++) {
    try {
      sh.sessions.push(id, Buffer.alloc(256, 0x62));
    } catch (e) {
      assert.is((e as Error).message, 'Content exceeds 1KB limit');
      refusedAt = i * 256;
    }
  }
  assert.is(refusedAt, 1280, 'the chunk that crosses 1 KiB is refused, not the end of the stream');
  sh.close();
});

// ---------------------------------------------------------------- limits

const Limits = suite<{ repo: MemRepo }>('one session per draft, never two on one target');
Limits.before.each(async (c) => {
  c.repo = await repoWith();
});

Limits('a second begin on the draft is refused with the exact message; another draft, or after cancel, is fine', async ({ repo }) => {
  const sh = await openAs(repo);
  const a = await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' });
  for (const target of ['b.md', 'a.md']) assert.equal(await thrown(() => sh.sessions.begin({ intent: '', target_file: target, operation: 'create' })), ACTIVE);
  // Another handle (another process) sees it too.
  const other = await openAs(repo, 200, { alive: [100] });
  assert.equal(await thrown(() => other.sessions.begin({ intent: '', target_file: 'b.md', operation: 'create' })), ACTIVE);
  const elsewhere = await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create', draft: 'other' });
  assert.is(sh.sessions.status(elsewhere.session_id).draft, 'other');
  sh.sessions.cancel(a.session_id);
  assert.is(files(repo, a.session_id), undefined);
  assert.is((await sh.sessions.begin({ intent: '', target_file: 'b.md', operation: 'create' })).stage, 'awaiting_content');
  other.close();
  sh.close();
});

Limits('shadow.maxSessions raises the count per draft, but two sessions never share a target', async ({ repo }) => {
  await git.setConfig({ fs: repo.fs, dir: ROOT, path: 'shadow.maxSessions', value: '2' });
  const sh = await openAs(repo);
  assert.is(sh.sessions.settings().maxPerDraft, 2);
  const a = await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' });
  assert.equal(await thrown(() => sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' })), ACTIVE);
  const b = await sh.sessions.begin({ intent: '', target_file: 'b.md', operation: 'create' });
  assert.equal(await thrown(() => sh.sessions.begin({ intent: '', target_file: 'c.md', operation: 'create' })), ACTIVE);
  // Both are fed at once and commit separately.
  sh.sessions.push(a.session_id, Buffer.from('A\n'));
  sh.sessions.push(b.session_id, Buffer.from('B\n'));
  assert.is((await sh.sessions.finalize(b.session_id)).success, true);
  assert.is((await sh.sessions.finalize(a.session_id)).success, true);
  assert.equal([String(await committed(repo, 'a.md')), String(await committed(repo, 'b.md'))], ['A\n', 'B\n']);
  sh.close();
});

Limits('two begins at once: exactly one wins, the other gets the message', async ({ repo }) => {
  for (const targets of [['x.md', 'x.md'], ['x.md', 'y.md']]) {
    const sh = await openAs(repo);
    const other = await openAs(repo, 200, { alive: [100] });
    const rs = await Promise.allSettled([sh.sessions.begin({ intent: '', target_file: targets[0]!, operation: 'create' }), other.sessions.begin({ intent: '', target_file: targets[1]!, operation: 'create' })]);
    const won = rs.filter((r) => r.status === 'fulfilled');
    const lost = rs.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.is(won.length, 1, targets.join(' and '));
    assert.is(lost[0]!.reason.message, ACTIVE.message);
    assert.is(sh.sessions.list().length, 1);
    for (const s of sh.sessions.list()) sh.sessions.cancel(s.session_id);
    other.close();
    sh.close();
  }
});

Limits('unknown ids: status, push, end, finalize and cancel say "Session not found or expired"', async ({ repo }) => {
  const sh = await openAs(repo);
  for (const id of ['00000000-0000-4000-8000-00000000abcd', 'not-a-session', '../../../etc/passwd', '']) {
    assert.equal(await thrown(() => sh.sessions.status(id)), NOT_FOUND, id);
    assert.equal(await thrown(() => sh.sessions.push(id, Buffer.from('a\n'))), NOT_FOUND, id);
    assert.equal(await thrown(() => sh.sessions.end(id)), NOT_FOUND, id);
    assert.equal(await thrown(() => sh.sessions.finalize(id)), NOT_FOUND, id);
    assert.equal(await thrown(() => sh.sessions.cancel(id)), NOT_FOUND, id);
  }
  sh.close();
});

// ---------------------------------------------------------------- expiry

const Expire = suite<{ repo: MemRepo }>('expiry after idle minutes');
Expire.before.each(async (c) => {
  c.repo = await repoWith();
});

Expire('a session idle for more than 5 minutes is gone: status, finalize and push say so, and the draft is free', async ({ repo }) => {
  const sh = await openAs(repo);
  assert.is(sh.sessions.settings().expireMs, 5 * 60 * 1000);
  const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' });
  repo.ctx.advance(5 * 60 * 1000);
  assert.is(sh.sessions.status(id).stage, 'awaiting_content', 'exactly 5 minutes: still there');
  repo.ctx.advance(1);
  assert.equal(await thrown(() => sh.sessions.finalize(id)), NOT_FOUND);
  assert.equal(await thrown(() => sh.sessions.status(id)), NOT_FOUND);
  assert.equal(await thrown(() => sh.sessions.push(id, Buffer.from('x\n'))), NOT_FOUND);
  assert.is(files(repo, id), undefined, 'its files are removed');
  assert.is((await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' })).stage, 'awaiting_content');
  sh.close();
});

Expire('a session fed in this process and then left idle expires too', async ({ repo }) => {
  const sh = await openAs(repo);
  const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' });
  sh.sessions.push(id, Buffer.from('first line\n'));
  repo.ctx.advance(5 * 60 * 1000 + 1);
  assert.equal(await thrown(() => sh.sessions.status(id)), NOT_FOUND, 'status of the idle session');
  assert.equal(await thrown(() => sh.sessions.push(id, Buffer.from('late\n'))), NOT_FOUND, 'push to the idle session');
  const again = await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' }).then((r) => r.stage, (e: Error) => e.message);
  assert.is(again, 'awaiting_content', 'the idle session no longer blocks the draft');
  sh.close();
});

Expire('shadow.sessionIdleMs sets the idle time; content that arrives keeps a session alive', async ({ repo }) => {
  await git.setConfig({ fs: repo.fs, dir: ROOT, path: 'shadow.sessionIdleMs', value: '1000' });
  await git.setConfig({ fs: repo.fs, dir: ROOT, path: 'shadow.sessionSaveLines', value: '1' });
  const feeder = await openAs(repo, 100);
  const { session_id: id } = await feeder.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' });
  for (let i = 0; i < 5; i++) {
    repo.ctx.advance(800);
    feeder.sessions.push(id, Buffer.from(`${i}\n`));
  }
  // Another process reads the activity from disk.
  const watcher = await openAs(repo, 200, { alive: [100] });
  assert.is(watcher.sessions.status(id).lines, 5, '4 s old, but never idle for 1 s');
  repo.ctx.advance(1001);
  assert.equal(await thrown(() => watcher.sessions.status(id)), NOT_FOUND);
  assert.equal(watcher.sessions.list(), []);
  watcher.close();
  feeder.close();
});

Expire('status prompts for DONE once the session has been idle for shadow.sessionPromptMs', async ({ repo }) => {
  await git.setConfig({ fs: repo.fs, dir: ROOT, path: 'shadow.sessionPromptMs', value: '300' });
  const sh = await openAs(repo);
  const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' });
  sh.sessions.push(id, Buffer.from('a\n'));
  repo.ctx.advance(299);
  assert.is(sh.sessions.status(id).prompt, undefined);
  repo.ctx.advance(1);
  assert.is(sh.sessions.status(id).prompt, IDLE_PROMPT);
  assert.is(IDLE_PROMPT, "If you're finished, reply DONE on its own line; otherwise continue");
  sh.sessions.push(id, Buffer.from('b\n'));
  assert.is(sh.sessions.status(id).prompt, undefined, 'content ends the idle period');
  sh.close();
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
  assert.equal([first.success, first.attempts_left, first.error?.hint], [false, 2, 'resend the corrected content (2 attempts left)']);
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
  assert.equal([r1, r2, r3].map((r) => [r.success, r.attempts_left]), [[false, 2], [false, 1], [false, 0]]);
  assert.is(r3.error?.hint, 'the session has failed; begin a new one');
  assert.match(r3.error!.message, /^Validation failed: /);
  const fresh = await openAs(repo, 200);
  assert.equal([fresh.sessions.status(id).stage, fresh.sessions.status(id).attempts], ['failed', 3]);
  assert.equal(await thrown(() => fresh.sessions.finalize(id, Buffer.from('{}\n'))), NOT_FOUND, 'another process cannot revive it');
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

// ---------------------------------------------------------------- recovery

const Recover = suite<{ repo: MemRepo }>('sessions a crash left');
Recover.before.each(async (c) => {
  c.repo = await repoWith();
});

Recover('a crash keeps every byte up to the last save; the next process resumes and finalizes it', async ({ repo }) => {
  const crashed = await openAs(repo, 100);
  const { session_id: id } = await crashed.sessions.begin({ intent: 'recover me', target_file: 'long.md', operation: 'create' });
  for (let i = 0; i < 7; i++) crashed.sessions.push(id, Buffer.from(lines(10, i * 10 + 1)));
  // Process 100 dies here: no close, no end. 50 lines were saved, 20 were only in memory.
  const next = await openAs(repo, 200);
  const { resumable, cleaned } = next.sessions.orphans();
  assert.equal(cleaned, []);
  assert.equal(resumable.map((s) => [s.session_id, s.target_file, s.bytes, s.lines, s.orphaned, s.stage]), [[id, 'long.md', Buffer.byteLength(lines(50)), 50, true, 'awaiting_content']]);
  assert.is(String(files(repo, id)!.content), lines(50));
  // Resume: the rest, then DONE.
  assert.is(next.sessions.push(id, Buffer.from(`${lines(20, 51)}DONE\n`)), true);
  const r = await next.sessions.finalize(id);
  assert.is(r.success, true, r.error?.message);
  assert.is(String(await committed(repo, 'long.md')), lines(70));
  assert.equal(next.sessions.orphans(), { resumable: [], cleaned: [] });
  next.close();
});

Recover('finalize an orphan as it is; a session fed by a live process is not an orphan', async ({ repo }) => {
  const feeder = await openAs(repo, 100);
  const { session_id: id } = await feeder.sessions.begin({ intent: '', target_file: 'part.md', operation: 'create' });
  feeder.sessions.push(id, Buffer.from(lines(55)));
  const peer = await openAs(repo, 200, { alive: [100] });
  assert.equal(peer.sessions.orphans().resumable, [], 'process 100 still feeds it');
  assert.is(peer.sessions.status(id).orphaned, false);
  const after = await openAs(repo, 300);
  assert.equal(after.sessions.orphans().resumable.map((s) => s.session_id), [id]);
  const r = await after.sessions.finalize(id);
  assert.is(r.success, true);
  assert.is(String(await committed(repo, 'part.md')), lines(55));
  peer.close();
  after.close();
});

Recover('orphans under an hour old are offered; older ones are cleaned up', async ({ repo }) => {
  await git.setConfig({ fs: repo.fs, dir: ROOT, path: 'shadow.sessionIdleMs', value: String(3 * 60 * 60 * 1000) });
  const crashed = await openAs(repo, 100);
  const old = await crashed.sessions.begin({ intent: '', target_file: 'old.md', operation: 'create' });
  repo.ctx.advance(30 * 60 * 1000);
  const young = await crashed.sessions.begin({ intent: '', target_file: 'young.md', operation: 'create', draft: 'other' });
  repo.ctx.advance(31 * 60 * 1000);
  const next = await openAs(repo, 200);
  const o = next.sessions.orphans();
  assert.equal(o.cleaned, [old.session_id]);
  assert.equal(o.resumable.map((s) => s.session_id), [young.session_id]);
  assert.is(files(repo, old.session_id), undefined);
  assert.ok(files(repo, young.session_id));
  next.close();
});

// ---------------------------------------------------------------- a full disk

const DiskFull = suite<{ repo: MemRepo; seam: FsSeam }>('a full disk while saving');
DiskFull.before.each(async (c) => {
  c.repo = await repoWith();
  c.seam = new FsSeam(c.repo.fs);
});

DiskFull('ENOSPC on content.txt: the session continues in memory with a warning, and finalize commits every byte', async ({ repo, seam }) => {
  const sh = await openAs(repo, 100, { fs: seam.fs });
  const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'full.md', operation: 'create' });
  sh.sessions.push(id, Buffer.from(lines(50)));
  assert.is(String(files(repo, id)!.content), lines(50), 'saved while there was room');
  seam.inject({ op: ['writeSync', 'fsyncSync'], path: /content\.txt$/, code: 'ENOSPC' });
  sh.sessions.push(id, Buffer.from(lines(60, 51)));
  assert.equal(sh.sessions.warnings(id), ['the disk is full: the session continues in memory only, and a crash now would lose what is unsaved']);
  sh.sessions.push(id, Buffer.from(lines(60, 111)));
  assert.is(sh.sessions.push(id, Buffer.from('DONE\n')), true);
  assert.is(sh.sessions.warnings(id).length, 1, 'warned once');
  assert.is(String(files(repo, id)!.content), lines(50), 'content.txt kept what was saved before');
  const r = await sh.sessions.finalize(id);
  assert.is(r.success, true, r.error?.message);
  assert.is(String(await committed(repo, 'full.md')), lines(170));
  sh.close();
});

DiskFull('ENOSPC on state.json as well: no error reaches the feeder', async ({ repo, seam }) => {
  const sh = await openAs(repo, 100, { fs: seam.fs });
  const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'full.md', operation: 'create' });
  seam.inject({ op: ['writeSync', 'openSync'], path: /(content\.txt|state\.json\.tmp-.*)$/, code: 'ENOSPC' });
  for (let i = 0; i < 4; i++) sh.sessions.push(id, Buffer.from(lines(50, i * 50 + 1)));
  assert.is(sh.sessions.warnings(id).length, 1);
  seam.heal();
  const r = await sh.sessions.finalize(id);
  assert.is(r.success, true, r.error?.message);
  assert.is(String(await committed(repo, 'full.md')), lines(200));
  sh.close();
});

DiskFull('ENOSPC in the middle of a save (some chunks written): no byte is lost or doubled', async ({ repo, seam }) => {
  const sh = await openAs(repo, 100, { fs: seam.fs });
  const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'half.md', operation: 'create' });
  // 50 one-line chunks are buffered, then saved: the 3rd write of the save finds the disk full.
  seam.inject({ op: 'writeSync', path: /content\.txt$/, code: 'ENOSPC', after: 2 });
  for (let i = 1; i <= 60; i++) sh.sessions.push(id, Buffer.from(lines(1, i)));
  assert.is(sh.sessions.warnings(id).length, 1);
  sh.sessions.push(id, Buffer.from('DONE\n'));
  const r = await sh.sessions.finalize(id);
  assert.is(r.success, true, r.error?.message);
  assert.is(String(await committed(repo, 'half.md')), lines(60));
  sh.close();
});

Begin.run();
Split.run();
Done.run();
Save.run();
Validate.run();
Size.run();
Limits.run();
Expire.run();
Attempts.run();
Recover.run();
DiskFull.run();
