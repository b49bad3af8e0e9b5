import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Shadow } from '../src/index.js';
import type { MemRepo } from './helpers/mem-repo.js';
import {
  committed,
  draftTip,
  files,
  lines,
  openAs,
  repoWith,
  SESSIONS,
  STRAY,
  thrown,
  writeThrough,
} from './helpers/session-memfs.js';

/*
 * Write sessions on memfs: begin, how content is split into lines and
 * ended (DONE), and when it is saved to content.txt.
 */

/** Cut `b` into chunks of `size` bytes. */
function chunks(b: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
}

// ---------------------------------------------------------------- begin

const Begin = suite<{ repo: MemRepo; sh: Shadow }>('begin');
Begin.before.each(async (c) => {
  c.repo = await repoWith();
  c.sh = await openAs(c.repo);
});
Begin.after.each((c) => c.sh.close());

Begin(
  'begin returns id, stage, directory and instructions; metadata.json, state.json and an empty content.txt are on disk',
  async ({ repo, sh }) => {
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
    assert.equal(
      { bytes: f.state.bytes, lines: f.state.lines, last_save: f.state.last_save },
      { bytes: 0, lines: 0, last_save: null },
    );
    assert.equal(
      {
        intent: f.meta.intent,
        target_file: f.meta.target_file,
        operation: f.meta.operation,
        draft: f.meta.draft,
        status: f.meta.status,
        attempts: f.meta.attempts,
      },
      {
        intent: 'the guide',
        target_file: 'docs/guide.md',
        operation: 'create',
        draft: 'default',
        status: 'awaiting_content',
        attempts: 0,
      },
    );
    assert.is(f.meta.created_at, new Date(repo.ctx.clock.now()).toISOString());
    const s = sh.sessions.status(r.session_id);
    assert.equal([s.stage, s.bytes, s.lines, s.attempts], ['awaiting_content', 0, 0, 0]);
  },
);

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
  assert.is(
    repo.fs.existsSync(SESSIONS)
      ? (repo.fs.readdirSync(SESSIONS) as string[]).filter((n) => n.length === 36).length
      : 0,
    0,
  );
});

// ---------------------------------------------------------------- splitting

const Split = suite<{ repo: MemRepo; sh: Shadow }>('splitting content into lines');
Split.before.each(async (c) => {
  c.repo = await repoWith();
  c.sh = await openAs(c.repo);
});
Split.after.each((c) => c.sh.close());

const TEXT = Buffer.from(
  '# Title\n\nnaïve café ☕ 𝄞 — ünïcödé\r\nthe job is DONE, or not\nDONEDONE\n\nlast line, no newline',
);

Split(
  'any chunking gives the same bytes: every byte alone, odd sizes, cuts inside UTF-8 characters',
  async ({ repo, sh }) => {
    for (const size of [1, 2, 3, 5, 7, 13, 64, TEXT.length]) {
      const { id, result } = await writeThrough(sh, `split/${size}.md`, 'create', chunks(TEXT, size));
      assert.is(result.success, true, `chunks of ${size}: ${result.error?.message}`);
      assert.equal(await committed(repo, `split/${size}.md`), TEXT, `chunks of ${size}`);
      assert.is(files(repo, id), undefined, 'success removes the session directory');
    }
  },
);

Split('a DONE line cut anywhere ends the content on the chunk that completes it', async ({ repo, sh }) => {
  const body = 'alpha\nbeta DONE\n';
  const all = Buffer.from(`${body}DONE\nnot content\n`);
  const doneEnd = body.length + 'DONE\n'.length;
  for (const size of [1, 2, 3, 4, 6, 9]) {
    const { session_id: id } = await sh.sessions.begin({
      intent: '',
      target_file: `done/${size}.md`,
      operation: 'create',
    });
    let firstDone = -1;
    let fed = 0;
    for (const c of chunks(all, size)) {
      fed += c.length;
      if (sh.sessions.push(id, c) && firstDone === -1) firstDone = fed;
    }
    assert.ok(
      firstDone >= doneEnd && firstDone - size < doneEnd,
      `chunks of ${size}: done at byte ${firstDone}, the DONE line ends at ${doneEnd}`,
    );
    const s = sh.sessions.status(id);
    assert.equal([s.stage, s.bytes, s.lines], ['done', body.length, 2], `chunks of ${size}`);
    assert.is((await sh.sessions.finalize(id)).success, true);
    assert.is(String(await committed(repo, `done/${size}.md`)), body);
  }
});

Split(
  'status counts the bytes and the complete lines received; a held-back partial line is not on disk yet',
  async ({ repo, sh }) => {
    const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'count.md', operation: 'create' });
    sh.sessions.push(id, Buffer.from(lines(60)));
    sh.sessions.push(id, Buffer.from('partial li'));
    const s = sh.sessions.status(id);
    assert.equal([s.bytes, s.lines], [Buffer.byteLength(lines(60)), 60]);
    assert.is(String(files(repo, id)!.content), lines(60), 'complete lines only');
    sh.sessions.push(id, Buffer.from('ne\n'));
    sh.sessions.end(id);
    assert.is(String(files(repo, id)!.content), `${lines(60)}partial line\n`);
  },
);

// ---------------------------------------------------------------- DONE rules

const Done = suite<{ repo: MemRepo; sh: Shadow }>('the DONE line');
Done.before.each(async (c) => {
  c.repo = await repoWith();
  c.sh = await openAs(c.repo);
});
Done.after.each((c) => c.sh.close());

const DONE_CASES: Array<{ name: string; chunks: string[]; endsByDone: boolean; content?: string; errors?: string[] }> =
  [
    {
      name: 'DONE alone ends it; what follows is dropped',
      chunks: ['a\nb\nDONE\nafter\n'],
      endsByDone: true,
      content: 'a\nb\n',
    },
    { name: 'DONE in its own chunk', chunks: ['a\n', 'DONE\n', 'more\n'], endsByDone: true, content: 'a\n' },
    { name: 'DONE with CRLF', chunks: ['a\r\nDONE\r\n'], endsByDone: true, content: 'a\r\n' },
    { name: 'DONE at the end of the stream without a newline', chunks: ['a\nDONE'], endsByDone: false, content: 'a\n' },
    {
      name: 'DONE inside a line is content',
      chunks: ['the job is DONE now\nDONE is a word\n', 'DONE\n'],
      endsByDone: true,
      content: 'the job is DONE now\nDONE is a word\n',
    },
    {
      name: 'DONE inside the last line is content',
      chunks: ['I am DONE with it\n'],
      endsByDone: false,
      content: 'I am DONE with it\n',
    },
    { name: 'lower-case done is content', chunks: ['a\ndone\n'], endsByDone: false, content: 'a\ndone\n' },
    { name: 'DONEDONE is content', chunks: ['a\nDONEDONE\n'], endsByDone: false, content: 'a\nDONEDONE\n' },
    {
      name: '"DONE." in the middle is content',
      chunks: ['a\nDONE.\nb\n'],
      endsByDone: false,
      content: 'a\nDONE.\nb\n',
    },
    {
      name: 'DONE with a trailing space is a stray marker',
      chunks: ['a\nDONE \n'],
      endsByDone: false,
      errors: [STRAY(2)],
    },
    { name: 'indented DONE is a stray marker', chunks: ['a\n  DONE\n\n'], endsByDone: false, errors: [STRAY(2)] },
    { name: 'bold **DONE** is a stray marker', chunks: ['a\n**DONE**'], endsByDone: false, errors: [STRAY(2)] },
    { name: 'only DONE: empty content', chunks: ['DONE\n'], endsByDone: true, errors: ['the content is empty'] },
  ];

Done('DONE rules', async ({ repo, sh }) => {
  for (const [i, c] of DONE_CASES.entries()) {
    const before = await draftTip(repo);
    const { session_id: id } = await sh.sessions.begin({
      intent: c.name,
      target_file: `done/${i}.md`,
      operation: 'create',
    });
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
  assert.equal(
    [sh.sessions.settings().saveLines, sh.sessions.settings().saveMs, sh.sessions.settings().promptMs],
    [50, 5000, 2000],
  );
  const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'save.md', operation: 'create' });
  const t0 = repo.ctx.clock.now();
  sh.sessions.push(id, Buffer.from(lines(49)));
  assert.is(files(repo, id)!.content.length, 0, '49 lines: not yet');
  assert.is(files(repo, id)!.state.last_save, null);
  repo.ctx.advance(10);
  sh.sessions.push(id, Buffer.from(lines(1, 50)));
  let f = files(repo, id)!;
  assert.is(String(f.content), lines(50), 'the 50th line saves');
  assert.equal(
    [f.state.bytes, f.state.lines, f.state.last_save],
    [Buffer.byteLength(lines(50)), 50, new Date(t0 + 10).toISOString()],
  );
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

Begin.run();
Split.run();
Done.run();
Save.run();
