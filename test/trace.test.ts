import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import AjvModule from 'ajv/dist/2020.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { contributorOf, TOOL_VERSION } from '../src/publish/trace-record.js';

/*
 * Agent Trace records as git notes: what `apply --commit` and `--squash`
 * write (held to the specification's own JSON schema, test/fixtures/
 * agent-trace/, see SOURCE.md there), read back by git log, carried by git's
 * amend and rebase, and `shadow blame --published` after a squash merge made
 * with git alone. Real repositories, real git.
 */

const FIXTURE = fileURLToPath(new URL('../../test/fixtures/agent-trace/trace-record.schema.json', import.meta.url));
const Ajv2020 = AjvModule.default;
const ajv = new Ajv2020({ strict: false, allErrors: true });
// The schema's formats, as RFC 3339 and RFC 4122 (and RFC 3986's scheme) define them.
ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i);
ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i);
ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:\S*$/i);
const validate = ajv.compile(JSON.parse(readFileSync(FIXTURE, 'utf8')));
const valid = (rec: unknown): void => assert.ok(validate(rec), JSON.stringify(validate.errors));

const test = suite('agent trace notes');
const batch = (repo: DiskRepo, path: string, content: string, who: string[]): void => {
  const r = repo.shadow(['batch', '-', ...who], {
    input: JSON.stringify({ intent: `edit ${path}`, operations: [{ operation: 'write', path, content }] }),
  });
  assert.is(r.status, 0, r.stderr);
};
const CLAUDE = ['--actor', 'claude', '--model', 'anthropic/claude-x'];
const CODEX = ['--actor', 'codex', '--model', 'openai/gpt-5'];
const PERSON = ['--actor', 'ana', '--actor-type', 'human'];
const lines = (n: number, tag: string): string[] =>
  Array.from({ length: n }, (_, i) => `${tag} line ${i + 1} = ${(i * 7919) % 1000};`);

test('the record of a tool names shadow at its package version', () => {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8'));
  assert.is(TOOL_VERSION, pkg.version);
});

test('apply --commit notes each commit with a valid record; git log shows it; shadow trace prints it; amend and rebase keep it', () => {
  const repo = new DiskRepo({ 'f.txt': 'one\ntwo\n' });
  try {
    batch(repo, 'f.txt', 'one\ntwo\nthree by claude\nfour by claude\n', CLAUDE);
    batch(repo, 'f.txt', 'one\ntwo\nthree by claude\nfour by claude\nfive by ana\n', PERSON);
    const r = repo.shadow(['apply', '--commit', '--json']);
    assert.is(r.status, 0, r.stderr);
    const out = r.json();
    assert.is(out.branch.how, 'fast-forward');
    assert.is(out.notes.ref, 'refs/notes/agent-trace');
    assert.is(out.notes.written.length, 2);
    assert.equal(out.notes.failed, []);
    assert.is(out.notes.rewrite, 'set');
    assert.is(repo.git('config', '--get-all', 'notes.rewriteRef').trim(), 'refs/notes/agent-trace');

    const head = repo.ref('HEAD')!;
    const rec = repo.shadow(['trace', '--json']).json();
    valid(rec);
    assert.equal(rec.vcs, { type: 'git', revision: head });
    assert.equal(rec.tool, { name: 'shadow', version: TOOL_VERSION });
    assert.equal(
      rec.files.map((f: any) => f.path),
      ['f.txt'],
    );
    assert.equal(rec.files[0].conversations, [
      { contributor: { type: 'human' }, ranges: [{ start_line: 5, end_line: 5, content_hash: sha('five by ana\n') }] },
    ]);
    const first = repo.shadow(['trace', 'HEAD~1', '--json']).json();
    valid(first);
    assert.equal(first.files[0].conversations, [
      {
        contributor: { type: 'ai', model_id: 'anthropic/claude-x' },
        ranges: [{ start_line: 3, end_line: 4, content_hash: sha('three by claude\nfour by claude\n') }],
      },
    ]);
    // The note is git's: git log shows it, and git's own notes tree holds it.
    assert.match(repo.git('log', '--notes=agent-trace', '-1'), /Notes \(agent-trace\):\n\s+\{/);
    assert.equal(JSON.parse(repo.git('notes', '--ref=agent-trace', 'show', head)), rec);
    repo.git('fsck', '--strict', '--no-progress');

    // git's amend and rebase carry the note (notes.rewriteRef, set by shadow).
    repo.git('commit', '-q', '--amend', '-m', 'amended by hand');
    const amended = repo.ref('HEAD')!;
    assert.is.not(amended, head);
    assert.equal(JSON.parse(repo.git('notes', '--ref=agent-trace', 'show', amended)), rec);
    // Another committer time, or the rewritten commits would be the same objects.
    repo.env = { ...repo.env, GIT_COMMITTER_DATE: '2030-01-01T00:00:00Z' };
    repo.git('rebase', '-q', '--force-rebase', 'HEAD~2');
    const rebased = repo.ref('HEAD')!;
    assert.is.not(rebased, amended);
    assert.equal(JSON.parse(repo.git('notes', '--ref=agent-trace', 'show', rebased)).files, rec.files);
    assert.equal(JSON.parse(repo.git('notes', '--ref=agent-trace', 'show', 'HEAD~1')).files, first.files);
  } finally {
    repo.cleanup();
  }
});

test('apply --squash: one record covering every contributor, and an Assisted-by trailer per AI', () => {
  const repo = new DiskRepo({ 'f.txt': 'base\n' });
  try {
    batch(repo, 'f.txt', 'base\nclaude 1\nclaude 2\n', CLAUDE);
    batch(repo, 'f.txt', 'base\nclaude 1\nclaude 2\ncodex 1\n', CODEX);
    batch(repo, 'g.txt', 'ana\n', PERSON);
    const r = repo.shadow(['apply', '--squash', '-m', 'all of it', '--json']);
    assert.is(r.status, 0, r.stderr);
    assert.is(r.json().notes.written.length, 1);
    const msg = repo.git('log', '-1', '--format=%B');
    assert.match(msg, /^all of it\n\nAssisted-by: claude:anthropic\/claude-x\nAssisted-by: codex:openai\/gpt-5\n/);
    assert.equal(repo.git('log', '-1', '--format=%(trailers:key=Assisted-by,valueonly)').trim().split('\n'), [
      'claude:anthropic/claude-x',
      'codex:openai/gpt-5',
    ]);
    const rec = repo.shadow(['trace', '--json']).json();
    valid(rec);
    const f = Object.fromEntries(rec.files.map((x: any) => [x.path, x.conversations]));
    assert.equal(f['f.txt'], [
      {
        contributor: { type: 'ai', model_id: 'anthropic/claude-x' },
        ranges: [{ start_line: 2, end_line: 3, content_hash: sha('claude 1\nclaude 2\n') }],
      },
      {
        contributor: { type: 'ai', model_id: 'openai/gpt-5' },
        ranges: [{ start_line: 4, end_line: 4, content_hash: sha('codex 1\n') }],
      },
    ]);
    assert.equal(f['g.txt'], [
      { contributor: { type: 'human' }, ranges: [{ start_line: 1, end_line: 1, content_hash: sha('ana\n') }] },
    ]);
  } finally {
    repo.cleanup();
  }
});

test("a squash merge made with git alone: blame --published attributes >= 95% of the agent's surviving lines, and a person's later edits to them", () => {
  const repo = new DiskRepo({ 'app.ts': '// app\n' });
  try {
    repo.git('switch', '-q', '-c', 'feature');
    let body = ['// app'];
    for (let b = 0; b < 5; b++) {
      body = [...body, ...lines(40, `b${b}`)];
      batch(repo, 'app.ts', `${body.join('\n')}\n`, CLAUDE);
    }
    assert.is(repo.shadow(['apply', '--commit']).status, 0);
    // A person edits three of the agent's lines, by hand.
    const edited = body.map((l, i) => ([10, 50, 150].includes(i) ? `${l} // fixed by a person` : l));
    repo.write('app.ts', `${edited.join('\n')}\n`);
    repo.git('commit', '-qam', 'fix by hand');
    repo.git('switch', '-q', 'main');
    repo.git('merge', '-q', '--squash', 'feature');
    repo.git('commit', '-qm', 'feature, squashed');

    const r = repo.shadow(['blame', '--published', 'app.ts', '--json']);
    assert.is(r.status, 0, r.stderr);
    const out = r.json();
    const agents = out.lines.filter((l: any) => l.line > 1 && !l.content.endsWith('// fixed by a person'));
    assert.is(agents.length, 197);
    const ai = agents.filter(
      (l: any) => l.contributor?.type === 'ai' && l.contributor.model_id === 'anthropic/claude-x',
    );
    assert.ok(ai.length / agents.length >= 0.95, `${ai.length} of ${agents.length}`);
    assert.ok(ai.every((l: any) => l.source === 'content-hash'));
    const persons = out.lines.filter((l: any) => l.content.endsWith('// fixed by a person'));
    assert.is(persons.length, 3);
    for (const l of persons) assert.equal([l.contributor, l.source, l.author], [null, 'git', 'Test User']);
    // On the feature branch itself the notes answer directly.
    const onFeature = repo.shadow(['blame', '--published', 'app.ts', 'feature', '--json']).json();
    assert.is(onFeature.lines.filter((l: any) => l.source === 'trace').length, 197);
  } finally {
    repo.cleanup();
  }
});

test('a notes ref locked by hand: the publish stands and the failure is reported', () => {
  const repo = new DiskRepo({ 'f.txt': 'one\n' });
  try {
    batch(repo, 'f.txt', 'one\ntwo\n', CLAUDE);
    const tip = repo.ref('refs/shadow/drafts/default')!;
    repo.git('update-ref', 'refs/notes/keep', 'HEAD'); // refs/notes/ exists
    writeFileSync(repo.path('.git/refs/notes/agent-trace.lock'), '');
    const r = repo.shadow(['apply', '--commit', '--json']);
    assert.is(r.status, 0, r.stderr);
    const out = r.json();
    assert.is(repo.ref('main'), tip);
    assert.equal(out.notes.written, []);
    assert.is(out.notes.failed.length, 1);
    assert.equal([out.notes.failed[0].commit, out.notes.failed[0].code], [tip, 'WRITE_FAILED']);
    assert.is(repo.ref('refs/notes/agent-trace'), undefined);
    assert.is(repo.shadow(['trace', '--json']).json().error.code, 'NOT_FOUND');
  } finally {
    repo.cleanup();
  }
});

test("another tool's note is left as it is; a corrupt note is CORRUPT_STATE for trace and skipped by blame --published; no note is NOT_FOUND", () => {
  const repo = new DiskRepo({ 'f.txt': 'one\n' });
  try {
    const base = repo.ref('HEAD')!;
    const none = repo.shadow(['trace', '--json']);
    assert.is(none.status, 1);
    assert.is(none.json().error.code, 'NOT_FOUND');
    assert.match(none.json().error.message, /has no Agent Trace note in refs\/notes\/agent-trace/);
    assert.is(repo.shadow(['trace', 'nope', '--json']).json().error.code, 'NOT_FOUND');

    batch(repo, 'f.txt', 'one\ntwo\n', CLAUDE);
    batch(repo, 'f.txt', 'one\ntwo\nthree\n', CLAUDE);
    const tip = repo.ref('refs/shadow/drafts/default')!;
    repo.git('notes', '--ref=agent-trace', 'add', '-m', 'reviewed-by: another tool', tip);
    const r = repo.shadow(['apply', '--commit', '--json']).json();
    assert.is(r.notes.written.length, 1);
    assert.equal(
      r.notes.failed.map((f: any) => [f.commit, f.code]),
      [[tip, 'NOTE_EXISTS']],
    );
    assert.is(repo.git('notes', '--ref=agent-trace', 'show', tip), 'reviewed-by: another tool\n');
    const bad = repo.shadow(['trace', '--json']);
    assert.is(bad.status, 1);
    assert.is(bad.json().error.code, 'CORRUPT_STATE');
    assert.match(bad.json().error.hint, /git notes --ref=agent-trace show/);
    const blame = repo.shadow(['blame', '--published', 'f.txt', '--json']).json();
    assert.equal(
      blame.skipped.map((s: any) => s.commit),
      [tip],
    );
    assert.equal(
      blame.lines.map((l: any) => [l.content, l.source, l.contributor?.type ?? null]),
      [
        ['one', 'git', null],
        ['two', 'trace', 'ai'],
        // The batch commit still says who wrote it in its own trailers.
        ['three', 'trailers', 'ai'],
      ],
    );
    assert.is(base, repo.ref('HEAD~2'));
  } finally {
    repo.cleanup();
  }
});

test('shadow.traceNotes none writes no notes; shadow.traceNotesRewrite=false leaves notes.rewriteRef alone', () => {
  const repo = new DiskRepo({ 'f.txt': 'one\n' });
  try {
    repo.git('config', 'shadow.traceNotes', 'none');
    batch(repo, 'f.txt', 'one\ntwo\n', CLAUDE);
    const r = repo.shadow(['apply', '--commit', '--json']).json();
    assert.is(r.notes, undefined);
    assert.is(repo.ref('refs/notes/agent-trace'), undefined);
    repo.git('config', 'shadow.traceNotes', 'shadow-trace');
    repo.git('config', 'shadow.traceNotesRewrite', 'false');
    batch(repo, 'f.txt', 'one\ntwo\nthree\n', [...CLAUDE, '--draft', 'two']);
    const s = repo.shadow(['apply', '--commit', '--draft', 'two', '--json']).json();
    assert.equal([s.notes.ref, s.notes.written.length, s.notes.rewrite], ['refs/notes/shadow-trace', 1, 'off']);
    assert.is(repo.gitResult('config', '--get-all', 'notes.rewriteRef').status, 1);
    valid(repo.shadow(['trace', '--json']).json());
  } finally {
    repo.cleanup();
  }
});

/** The record's hash of a range, as the README defines it: sha256 of its lines, each ending in "\n". */
test('a replay notes each replayed commit; an unknown actor type is `unknown`; an over-long model is refused at the batch', () => {
  const repo = new DiskRepo({ 'f.txt': 'one\n', 'other.txt': 'x\n' });
  try {
    batch(repo, 'f.txt', 'one\nclaude\n', CLAUDE);
    batch(repo, 'f.txt', 'one\nclaude\nana\n', PERSON);
    repo.write('other.txt', 'y\n');
    repo.git('commit', '-qam', 'HEAD moves');
    const r = repo.shadow(['apply', '--commit', '--json']).json();
    assert.is(r.branch.how, 'replay');
    assert.is(r.notes.written.length, 2);
    const [older, newer] = ['HEAD~1', 'HEAD'].map((c) => repo.shadow(['trace', c, '--json']).json());
    valid(older);
    valid(newer);
    assert.is(older.vcs.revision, repo.ref('HEAD~1'));
    assert.equal(older.files[0].conversations[0], {
      contributor: { type: 'ai', model_id: 'anthropic/claude-x' },
      ranges: [{ start_line: 2, end_line: 2, content_hash: sha('claude\n') }],
    });
    assert.equal(newer.files[0].conversations[0].contributor, { type: 'human' });
    assert.is(repo.shadow(['trace', 'HEAD~2', '--json']).json().error.code, 'NOT_FOUND');

    assert.equal(contributorOf({ draft: 'd', actorType: 'robot', model: 'x/y' }), { type: 'unknown', model_id: 'x/y' });
    assert.equal(contributorOf({ draft: 'd', model: 'm'.repeat(251) }), { type: 'unknown' });
    const long = repo.shadow(['batch', '-', '--model', 'm'.repeat(300), '--json'], {
      input: JSON.stringify({ operations: [{ operation: 'write', path: 'g.txt', content: 'g\n' }] }),
    });
    assert.is(long.json().error.code, 'INVALID_ARGUMENT');
    // The CLI's own choices refuse an actor type it does not know before any batch.
    assert.is(
      repo.shadow(['batch', '-', '--actor-type', 'robot', '--json'], { input: '{"operations":[]}' }).json().error.code,
      'USAGE',
    );
  } finally {
    repo.cleanup();
  }
});

function sha(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

test.run();
