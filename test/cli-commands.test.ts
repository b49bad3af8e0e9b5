import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { DiskRepo, SHADOW_BIN, withShadow, type CliResult } from './helpers/disk-repo.js';

/**
 * Every command of the CLI on a real repository, in text and with --json,
 * checked against what native git sees: refs, commits, trailers, blobs.
 */

const DRAFT = 'refs/shadow/drafts/default';
const OID = /^[0-9a-f]{40}$/;

type Ctx = { repo: DiskRepo };

function fresh(ctx: Ctx): void {
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n', 'src/app.ts': 'export const app = 1\n', 'old.txt': 'old\n' });
}


/** Commit one batch as a fixture; its commit. */
async function seed(repo: DiskRepo, operations: unknown[], options: { draft?: string; intent?: string } = {}): Promise<string> {
  return withShadow(repo, async (sh) => {
    const r = await sh.batch({ intent: options.intent, operations }, { draft: options.draft });
    if (!r.success || !r.commit) throw new Error(`fixture batch failed: ${JSON.stringify(r.error)}`);
    return r.commit;
  });
}

function batchText(operations: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...extra, operations });
}

/** A successful command: exit 0, nothing on stderr; its parsed JSON document. */
function ok(r: CliResult, what: string): any {
  assert.is(r.status, 0, `${what}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  assert.is(r.stderr, '', `${what}: stderr should be empty`);
  return r.stdout.trimStart().startsWith('{') ? r.json() : undefined;
}

/** A failed --json command: exit 1 and exactly one {"error": {...}} document with `code`. */
function failsJson(r: CliResult, code: string, what: string): any {
  assert.is(r.status, 1, `${what}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  const doc = r.json();
  const error = doc.error;
  assert.ok(error, `${what}: no error document in ${r.stdout}`);
  assert.is(error.code, code, `${what}: ${error.message}`);
  assert.type(error.message, 'string');
  assert.type(error.hint, 'string', `${what}: every error carries a hint`);
  return error;
}

/** A failed text-mode command: exit 1, the error and a `hint:` line on stderr. */
function failsText(r: CliResult, message: RegExp, what: string): void {
  assert.is(r.status, 1, `${what}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  assert.match(r.stderr, message, what);
  assert.match(r.stderr, /^hint: /m, `${what}: a hint says what to do`);
}

function trailers(repo: DiskRepo, commit: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of repo.git('log', '-1', '--format=%(trailers:only,unfold)', commit).split('\n')) {
    const m = /^(Shadow-[A-Za-z-]+): (.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

// ---------------------------------------------------------------- drafts

const Drafts = suite<Ctx>('cli: draft new, list, show, drop');
Drafts.before.each(fresh);
Drafts.after.each((ctx) => ctx.repo.cleanup());

Drafts('draft new, list and show in text and --json; a taken name is refused', ({ repo }) => {
  const head = repo.ref('HEAD')!;
  let r = repo.shadow(['draft', 'list']);
  ok(r, 'draft list (none)');
  assert.match(r.stdout, /^no drafts/);
  assert.equal(ok(repo.shadow(['draft', 'list', '--json']), 'draft list --json'), { drafts: [] });

  r = repo.shadow(['draft', 'new', 'feature']);
  ok(r, 'draft new feature');
  assert.match(r.stdout, new RegExp(`^created draft feature at ${head.slice(0, 12)} \\(from HEAD\\)\\n$`));
  assert.is(repo.ref('refs/shadow/drafts/feature'), head);

  // The name: the argument, else --draft, else SHADOW_DRAFT, else "default".
  assert.is(ok(repo.shadow(['draft', 'new', '--json']), 'draft new').name, 'default');
  assert.is(ok(repo.shadow(['draft', 'new', '--json'], { env: { SHADOW_DRAFT: 'from-env' } }), 'draft new $SHADOW_DRAFT').name, 'from-env');
  assert.is(ok(repo.shadow(['draft', 'new', '--draft', 'from-flag', '--json'], { env: { SHADOW_DRAFT: 'from-env2' } }), 'draft new --draft').name, 'from-flag');
  assert.is(repo.ref('refs/shadow/drafts/from-env2'), undefined);

  // --from any commit-ish.
  repo.write('README.md', 'Hello again\n');
  repo.git('commit', '-qam', 'second');
  const older = ok(repo.shadow(['draft', 'new', 'older', '--from', 'HEAD~1', '--json']), 'draft new --from');
  assert.is(older.root, head);
  assert.is(older.tip, head);
  assert.is(older.from, 'HEAD~1');
  assert.is(older.batches, 0);
  assert.is(repo.ref('refs/shadow/drafts/older'), head);

  failsJson(repo.shadow(['draft', 'new', 'feature', '--json']), 'DRAFT_EXISTS', 'draft new --json (taken)');
  assert.is(repo.ref('refs/shadow/drafts/feature'), head);

  const list = ok(repo.shadow(['draft', 'list', '--json']), 'draft list --json').drafts;
  assert.equal(list.map((d: any) => d.name), ['default', 'feature', 'from-env', 'from-flag', 'older']);
  for (const d of list) {
    assert.match(d.tip, OID);
    assert.is(d.status, 'open');
    assert.is(d.batches, 0);
  }
  r = repo.shadow(['draft', 'list']);
  ok(r, 'draft list');
  assert.is(r.stdout.trimEnd().split('\n').length, 5);
  assert.match(r.stdout, /^older\s+[0-9a-f]{12}\s+0 batches\s+0 paths\s+open\s+created \d{4}-\d\d-\d\d \d\d:\d\d$/m);

  const shown = ok(repo.shadow(['draft', 'show', 'older', '--json']), 'draft show --json');
  assert.is(shown.name, 'older');
  assert.is(shown.root, head);
  assert.is(shown.created_by, 'Test User');
  assert.equal(shown.checkpoints, []);
  r = repo.shadow(['draft', 'show'], { env: { SHADOW_DRAFT: 'feature' } });
  ok(r, 'draft show ($SHADOW_DRAFT)');
  assert.match(r.stdout, /^draft {5}feature$/m);
  assert.match(r.stdout, /^ref {7}refs\/shadow\/drafts\/feature$/m);
  assert.match(r.stdout, new RegExp(`^tip {7}${head}$`, 'm'));
  assert.match(r.stdout, /^created .* by Test User$/m);
  failsText(repo.shadow(['draft', 'show', 'nope']), /^error: there is no draft "nope"$/m, 'draft show nope (text)');
});

Drafts('draft drop keeps the tip and checkpoints under refs/shadow/archive/; --purge deletes for good', async ({ repo }) => {
  const tip = await seed(repo, [
    { operation: 'write', path: 'a.txt', content: 'a\n' },
    { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hi' },
  ], { draft: 'w' });
  const cpTag = await withShadow(repo, async (sh) => (await sh.checkpoint('c1', { draft: 'w' })).tag);

  const r = repo.shadow(['draft', 'drop', 'w']);
  ok(r, 'draft drop');
  const m = /^dropped draft w; its work is kept at (refs\/shadow\/archive\/w\/\d{8}T\d{6}\.\d{3}Z)\/tip \(shadow draft new <name> --from refs\/shadow\/archive\/w\/\d{8}T\d{6}\.\d{3}Z\/tip brings it back\)\n$/.exec(r.stdout);
  assert.ok(m, `draft drop says where the work is kept: ${r.stdout}`);
  const archiveDir = m![1]!;
  assert.is(repo.ref(`${archiveDir}/tip`), tip);
  assert.is(repo.git('rev-parse', `${archiveDir}/checkpoints/c1`).trim(), cpTag);
  assert.is(repo.ref('refs/shadow/drafts/w'), undefined);
  assert.is(repo.ref('refs/shadow/checkpoints/w/c1'), undefined);
  assert.equal(ok(repo.shadow(['draft', 'list', '--json']), 'draft list').drafts, []);
  assert.is(repo.git('show', `${archiveDir}/tip:a.txt`), 'a\n');
  // The working tree never saw any of it.
  assert.is(repo.read('README.md'), 'Hello\n');
  assert.is(repo.exists('a.txt'), false);

  // --purge: nothing is kept.
  await seed(repo, [{ operation: 'write', path: 'g.txt', content: 'g' }], { draft: 'gone' });
  await withShadow(repo, (sh) => sh.checkpoint('cg', { draft: 'gone' }));
  assert.equal(ok(repo.shadow(['draft', 'drop', 'gone', '--purge', '--json']), 'draft drop --purge'), { draft: 'gone' });
  assert.is(repo.git('for-each-ref', 'refs/shadow/drafts/gone', 'refs/shadow/checkpoints/gone', 'refs/shadow/archive/gone'), '');

  failsJson(repo.shadow(['draft', 'drop', 'never', '--json']), 'DRAFT_NOT_FOUND', 'draft drop never');
});

Drafts('draft new --from an archive brings the dropped work back into the view', async ({ repo }) => {
  const tip = await seed(repo, [
    { operation: 'write', path: 'a.txt', content: 'a\n' },
    { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hi' },
  ], { draft: 'w' });
  const dropped = ok(repo.shadow(['draft', 'drop', 'w', '--json']), 'draft drop --json');
  assert.is(dropped.draft, 'w');
  assert.match(dropped.archive, /^refs\/shadow\/archive\/w\/\d{8}T\d{6}\.\d{3}Z\/tip$/);
  const archive: string = dropped.archive;
  const back = ok(repo.shadow(['draft', 'new', 'x', '--from', archive, '--json']), 'draft new --from archive');
  assert.is(back.tip, tip);
  assert.is(repo.ref('refs/shadow/drafts/x'), tip);
  assert.is(repo.git('show', 'refs/shadow/drafts/x:a.txt'), 'a\n');
  // What the draft did is what `shadow` shows of it again, not the working tree.
  const cat = repo.shadow(['cat', 'a.txt', '--draft', 'x']);
  assert.is(cat.status, 0, `cat a.txt --draft x: ${cat.stderr}`);
  assert.is(cat.stdout, 'a\n');
  assert.is(repo.shadow(['cat', 'README.md', '--draft', 'x']).stdout, 'Hi\n');
  const diff = repo.shadow(['diff', '--name-status', '--draft', 'x']);
  ok(diff, 'diff --draft x');
  assert.is(diff.stdout, 'M\tREADME.md\nA\ta.txt\n');
});

Drafts('dropping a draft whose name was archived in the same second keeps both archives', async ({ repo }) => {
  const head = repo.ref('HEAD')!;
  const tip = await seed(repo, [{ operation: 'write', path: 't.txt', content: 't' }], { draft: 'tmp' });
  // An earlier drop of a draft "tmp" left archives stamped with these seconds.
  const stamp = (ms: number): string => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const now = Date.now();
  const earlier = [0, 1, 2, 3, 4, 5].map((s) => `refs/shadow/archive/tmp/${stamp(now + s * 1000)}/tip`);
  for (const ref of earlier) repo.git('update-ref', ref, head);
  const dropped = ok(repo.shadow(['draft', 'drop', 'tmp', '--json']), 'draft drop tmp');
  assert.not.ok(earlier.includes(dropped.archive), 'a new archive ref, not an earlier one');
  assert.is(repo.ref(dropped.archive), tip);
  for (const ref of earlier) assert.is(repo.ref(ref), head, `${ref} is untouched`);
  assert.is(repo.ref('refs/shadow/drafts/tmp'), undefined);
});

Drafts.run();

// ---------------------------------------------------------------- batches

const Batches = suite<Ctx>('cli: batch, write, edit, rm, mv');
Batches.before.each(fresh);
Batches.after.each((ctx) => ctx.repo.cleanup());

Batches('batch from a file and from stdin: every operation, expect, base64 and modes', ({ repo }) => {
  repo.write('../batch1.json', batchText(
    [
      { operation: 'write', path: 'bin/run.sh', content: '#!/bin/sh\necho hi\n', mode: '100755' },
      { operation: 'write', path: 'img.bin', content: Buffer.from([0, 1, 2, 0xff, 0xfe]).toString('base64'), encoding: 'base64' },
      { operation: 'write', path: 'notes.md', content: 'line 1\nline 2\nline 3\n', encoding: 'utf8' },
    ],
    { intent: 'first batch\n\nwith a body' },
  ));
  let r = repo.shadow(['batch', join(repo.root, 'batch1.json')]);
  ok(r, 'batch <file>');
  assert.match(r.stdout, /^created draft default from HEAD$/m);
  assert.match(r.stdout, /^batch 1 on draft default: [0-9a-f]{12}$/m);
  assert.match(r.stdout, /^ {2}created {9}bin\/run\.sh$/m);
  assert.match(r.stdout, /^ {2}created {9}img\.bin$/m);
  const tip1 = repo.ref(DRAFT)!;
  assert.is(repo.git('ls-tree', tip1, 'bin/run.sh').split(' ')[0], '100755');
  assert.is(repo.git('rev-parse', `${tip1}:img.bin`).trim(), hashOf(repo, Buffer.from([0, 1, 2, 0xff, 0xfe])), 'base64 content is stored byte for byte');
  assert.is(repo.git('log', '-1', '--format=%B', tip1).split('\n').slice(0, 3).join('\n'), 'first batch\n\nwith a body');

  const notesBlob = repo.git('rev-parse', `${tip1}:notes.md`).trim();
  const readmeSha = sha256(Buffer.from('Hello\n'));
  const stdinBatch = batchText(
    [
      { operation: 'edit', path: 'notes.md', old_content: 'line 2', content: 'line two', expect: notesBlob },
      { operation: 'patch', path: 'README.md', diff: '--- a/README.md\n+++ b/README.md\n@@ -1 +1,2 @@\n Hello\n+World\n', expect: `sha256:${readmeSha}` },
      { operation: 'delete', path: 'old.txt' },
      { operation: 'rename', path: 'src/app.ts', to: 'src/main.ts' },
      { operation: 'chmod', path: 'bin/run.sh', mode: '100644' },
    ],
    { intent: 'second batch' },
  );
  const out = ok(repo.shadow(['batch', '-', '--json'], { input: stdinBatch }), 'batch - --json');
  assert.is(out.success, true);
  assert.is(out.batch, 2);
  assert.is(out.draft, 'default');
  assert.is(out.created_draft, undefined);
  assert.equal(out.results.map((x: any) => [x.operation, x.path, x.status]), [
    ['edit', 'notes.md', 'updated'],
    ['patch', 'README.md', 'updated'],
    ['delete', 'old.txt', 'deleted'],
    ['rename', 'src/app.ts', 'renamed'],
    ['chmod', 'bin/run.sh', 'mode_changed'],
  ]);
  assert.is(out.results[3].to, 'src/main.ts');
  assert.is(repo.ref(DRAFT), out.commit);
  assert.is(repo.git('rev-parse', `${out.commit}^`).trim(), tip1, 'one commit per batch');
  assert.is(repo.git('show', `${out.commit}:notes.md`), 'line 1\nline two\nline 3\n');
  assert.is(repo.git('show', `${out.commit}:README.md`), 'Hello\nWorld\n');
  assert.is(repo.git('show', `${out.commit}:src/main.ts`), 'export const app = 1\n');
  assert.is(repo.git('ls-tree', '--name-only', out.commit, 'old.txt', 'src/app.ts'), '');
  assert.is(repo.git('ls-tree', out.commit, 'bin/run.sh').split(' ')[0], '100644');
  const { 'Shadow-Ops': fingerprint, ...named } = trailers(repo, out.commit);
  assert.equal(named, { 'Shadow-Draft': 'default', 'Shadow-Batch': '2', 'Shadow-Actor': 'Test User' });
  assert.match(fingerprint!, /^[0-9a-f]{64}$/, 'the batch is known by its fingerprint when it is sent again');

  // The same batch again (a retry) is already applied: success, no commit.
  r = repo.shadow(['batch', '-'], { input: stdinBatch });
  ok(r, 'batch (already applied)');
  assert.match(r.stdout, /^nothing to change on draft default: every operation was already in place\n {2}already_applied notes\.md\n/);
  assert.is(repo.ref(DRAFT), out.commit);
  // Its edit alone is another batch: old_content is gone, and that is no match, not a success.
  r = repo.shadow(['batch', '-'], { input: batchText([{ operation: 'edit', path: 'notes.md', old_content: 'line 2', content: 'line two' }]) });
  assert.is(r.status, 1, r.stdout);
  assert.match(r.stdout, /old_content was not found in notes\.md \(0 matches\)/);
  assert.is(repo.ref(DRAFT), out.commit);

  // The working tree is never touched.
  assert.is(repo.read('README.md'), 'Hello\n');
  assert.is(repo.read('old.txt'), 'old\n');
  assert.is(repo.exists('notes.md'), false);
  repo.git('fsck', '--strict', '--no-progress');
});

Batches('write (stdin), edit, rm and mv: one batch each, in text and --json', ({ repo }) => {
  let r = repo.shadow(['write', 'docs/guide.md', '-m', 'add the guide'], { input: '# Guide\n' });
  ok(r, 'write');
  assert.match(r.stdout, /^batch 1 on draft default: [0-9a-f]{12}\n {2}created {9}docs\/guide\.md$/m);
  assert.is(repo.git('show', `${DRAFT}:docs/guide.md`), '# Guide\n');
  assert.is(repo.git('log', '-1', '--format=%s', DRAFT).trim(), 'add the guide');

  const w = ok(repo.shadow(['write', 'blob.bin', '--base64', '--json'], { input: Buffer.from([0, 0xff, 10, 13, 0x80]).toString('base64') }), 'write --base64');
  assert.is(w.batch, 2);
  assert.is(repo.git('rev-parse', `${DRAFT}:blob.bin`).trim(), hashOf(repo, Buffer.from([0, 0xff, 10, 13, 0x80])));

  r = repo.shadow(['edit', 'docs/guide.md', '--old', '# Guide', '--new', '# The guide']);
  ok(r, 'edit');
  assert.match(r.stdout, /^batch 3 on draft default: [0-9a-f]{12}\n {2}updated {9}docs\/guide\.md$/m);
  assert.is(repo.git('show', `${DRAFT}:docs/guide.md`), '# The guide\n');
  assert.is(repo.git('log', '-1', '--format=%s', DRAFT).trim(), 'edit docs/guide.md');

  const e4 = ok(repo.shadow(['edit', 'docs/guide.md', '--old', 'The', '--new', 'A', '-m', 'shorter title', '--json']), 'edit --json');
  assert.equal([e4.batch, e4.results[0].status], [4, 'updated']);
  assert.is(repo.git('log', '-1', '--format=%s', DRAFT).trim(), 'shorter title');

  const rm = ok(repo.shadow(['rm', 'old.txt', 'blob.bin', '--json']), 'rm two paths');
  assert.is(rm.batch, 5);
  assert.equal(rm.results.map((x: any) => [x.path, x.status]), [['old.txt', 'deleted'], ['blob.bin', 'deleted']]);
  assert.is(repo.git('ls-tree', '--name-only', DRAFT, 'old.txt', 'blob.bin'), '');
  assert.is(repo.git('rev-list', '--count', `${repo.ref('HEAD')}..${DRAFT}`).trim(), '5', 'one commit per command');
  r = repo.shadow(['rm', 'docs/guide.md']);
  ok(r, 'rm');
  assert.match(r.stdout, /^batch 6 on draft default: [0-9a-f]{12}\n {2}deleted {9}docs\/guide\.md\n$/);

  r = repo.shadow(['mv', 'src/app.ts', 'lib/app.ts']);
  ok(r, 'mv');
  assert.match(r.stdout, /^ {2}renamed {9}src\/app\.ts -> lib\/app\.ts$/m);
  assert.is(repo.git('show', `${DRAFT}:lib/app.ts`), 'export const app = 1\n');
  assert.is(repo.git('log', '-1', '--format=%s', DRAFT).trim(), 'rename src/app.ts to lib/app.ts');
  const mv = ok(repo.shadow(['mv', 'lib/app.ts', 'src/app.ts', '--json']), 'mv --json');
  assert.is(mv.results[0].to, 'src/app.ts');
  assert.is(mv.batch, 8);

  // Failures of the convenience commands: exit 1, the batch's error.
  const e = repo.shadow(['edit', 'README.md', '--old', 'Goodbye', '--new', 'Bye']);
  failsText(e, /^hint: read the file again/m, 'edit (no match)');
  assert.match(e.stdout, /^batch rejected on draft default, nothing was written: 1 of 1 operation failed$/m);
  assert.is(repo.ref(DRAFT), mv.commit);
  assert.is(repo.read('README.md'), 'Hello\n');
  assert.is(repo.exists('docs'), false);
});

Batches('write --mode 100755 makes an executable file', ({ repo }) => {
  const r = repo.shadow(['write', 'run.sh', '--mode', '100755', '--json'], { input: '#!/bin/sh\n' });
  const out = ok(r, 'write --mode 100755');
  assert.is(out.success, true);
  assert.is(repo.git('ls-tree', DRAFT, 'run.sh').split(' ')[0], '100755');
});

Batches('the draft: --draft, else SHADOW_DRAFT, else "default", created by its first successful batch', ({ repo }) => {
  const failed = repo.shadow(['rm', 'missing.txt', '--json']);
  assert.is(failed.status, 1);
  assert.is(failed.json().error.code, 'NOT_FOUND');
  assert.is(repo.ref(DRAFT), undefined, 'a rejected batch does not create the draft');
  assert.is(repo.git('for-each-ref', 'refs/shadow'), '');

  const first = ok(repo.shadow(['write', 'a.txt', '--json'], { input: 'a' }), 'write (default)');
  assert.is(first.created_draft, true);
  assert.is(first.draft, 'default');
  assert.is(repo.ref(DRAFT), first.commit);
  assert.is(repo.git('rev-parse', `${first.commit}^`).trim(), repo.ref('HEAD'), 'the draft starts at HEAD');

  const env = ok(repo.shadow(['write', 'b.txt', '--json'], { input: 'b', env: { SHADOW_DRAFT: 'envd' } }), 'write ($SHADOW_DRAFT)');
  assert.is(env.draft, 'envd');
  assert.is(repo.ref('refs/shadow/drafts/envd'), env.commit);

  const flag = ok(repo.shadow(['write', 'c.txt', '--draft', 'flagd', '--json'], { input: 'c', env: { SHADOW_DRAFT: 'envd' } }), 'write --draft');
  assert.is(flag.draft, 'flagd');
  assert.is(repo.ref('refs/shadow/drafts/flagd'), flag.commit);
  assert.is(repo.ref('refs/shadow/drafts/envd'), env.commit, '--draft wins over SHADOW_DRAFT');
  assert.is(repo.ref(DRAFT), first.commit);
  assert.equal(trailers(repo, flag.commit)['Shadow-Draft'], 'flagd');

  // Reads follow the same rule.
  assert.is(repo.shadow(['cat', 'b.txt'], { env: { SHADOW_DRAFT: 'envd' } }).stdout, 'b');
  assert.is(repo.shadow(['cat', 'c.txt', '--draft', 'flagd'], { env: { SHADOW_DRAFT: 'envd' } }).stdout, 'c');
  failsJson(repo.shadow(['cat', 'c.txt', '--json']), 'NOT_FOUND', 'cat c.txt on default');
  const log = ok(repo.shadow(['log', '--json'], { env: { SHADOW_DRAFT: 'envd' } }), 'log ($SHADOW_DRAFT)');
  assert.is(log.draft, 'envd');
  assert.equal(log.batches.map((b: any) => b.ops[0].path), ['b.txt']);
});

Batches('the actor: --actor, else SHADOW_ACTOR, else git user.name; author and Shadow-Actor agree', ({ repo }) => {
  const byUser = ok(repo.shadow(['write', 'a.txt', '--json'], { input: 'a' }), 'write as user');
  const byEnv = ok(repo.shadow(['write', 'b.txt', '--json'], { input: 'b', env: { SHADOW_ACTOR: 'env-agent' } }), 'write as $SHADOW_ACTOR');
  const byFlag = ok(repo.shadow(['write', 'c.txt', '--actor', 'flag-agent', '--json'], { input: 'c', env: { SHADOW_ACTOR: 'env-agent' } }), 'write --actor');
  const byBatch = ok(
    repo.shadow(['batch', '-', '--actor', 'flag-agent', '--json'], { input: batchText([{ operation: 'write', path: 'd.txt', content: 'd' }], { actor: 'batch-agent' }) }),
    'batch --actor over the batch actor',
  );
  const expected: Array<[string, string, string]> = [
    [byUser.commit, 'Test User', 'test@example.com'],
    [byEnv.commit, 'env-agent', 'env-agent@shadow.invalid'],
    [byFlag.commit, 'flag-agent', 'flag-agent@shadow.invalid'],
    [byBatch.commit, 'flag-agent', 'flag-agent@shadow.invalid'],
  ];
  for (const [commit, name, email] of expected) {
    assert.is(repo.git('log', '-1', '--format=%an <%ae>', commit).trim(), `${name} <${email}>`);
    assert.is(repo.git('log', '-1', '--format=%cn <%ce>', commit).trim(), 'Test User <test@example.com>', 'the committer is the repository identity');
    assert.is(trailers(repo, commit)['Shadow-Actor'], name);
  }
  const log = ok(repo.shadow(['log', '--json']), 'log').batches;
  assert.equal(log.map((b: any) => b.actor), ['flag-agent', 'flag-agent', 'env-agent', 'Test User']);
  const text = repo.shadow(['log']).stdout;
  assert.match(text, /^batch 2 · env-agent · \d{4}-\d\d-\d\d \d\d:\d\d · write b\.txt · 1 op {2}[0-9a-f]{12}$/m);

  // No user.name and no SHADOW_ACTOR: the actor is recorded as unknown.
  repo.git('config', '--unset', 'user.name');
  const anon = ok(repo.shadow(['write', 'e.txt', '--json'], { input: 'e' }), 'write without user.name');
  assert.is(trailers(repo, anon.commit)['Shadow-Actor'], 'unknown');
});

Batches.run();

// ---------------------------------------------------------------- view

const View = suite<Ctx>('cli: cat, ls');
View.before.each(fresh);
View.after.each((ctx) => ctx.repo.cleanup());

View('cat and ls read draft-changed paths from the draft, all others from the live working tree', async ({ repo }) => {
  const pic = Buffer.from([0xff, 0, 0xfe, 10]);
  await seed(repo, [
    { operation: 'write', path: 'src/new.ts', content: 'export const n = 1\n' },
    { operation: 'edit', path: 'src/app.ts', old_content: '= 1', content: '= 2' },
    { operation: 'delete', path: 'old.txt' },
    { operation: 'write', path: 'pic.bin', content: pic.toString('base64'), encoding: 'base64' },
  ]);
  // The user keeps working: untouched paths show the live working tree.
  repo.write('README.md', 'Hello, edited by the user\n');
  repo.write('src/untracked.ts', 'u\n');
  repo.write('src/app.ts', 'the user changed it too\n');

  assert.is(repo.shadow(['cat', 'src/untracked.ts']).stdout, 'u\n');
  assert.is(repo.shadow(['cat', 'src/new.ts']).stdout, 'export const n = 1\n');
  const raw = spawnSync(process.execPath, [SHADOW_BIN, 'cat', 'pic.bin'], { cwd: repo.dir, env: repo.env });
  assert.is(raw.status, 0);
  assert.equal([...raw.stdout], [...pic], 'cat prints the bytes as they are');

  const fromDraft = ok(repo.shadow(['cat', 'src/app.ts', '--json']), 'cat --json (draft)');
  assert.equal(fromDraft, {
    path: 'src/app.ts',
    source: 'draft',
    type: 'file',
    mode: '100644',
    oid: repo.git('rev-parse', `${DRAFT}:src/app.ts`).trim(),
    encoding: 'utf8',
    content: 'export const app = 2\n',
  });
  const fromLower = ok(repo.shadow(['cat', 'README.md', '--json']), 'cat --json (lower)');
  assert.is(fromLower.source, 'lower');
  assert.is(fromLower.content, 'Hello, edited by the user\n');
  assert.is(fromLower.oid, hashOf(repo, Buffer.from('Hello, edited by the user\n')));
  const binary = ok(repo.shadow(['cat', 'pic.bin', '--json']), 'cat --json (binary)');
  assert.is(binary.encoding, 'base64');
  assert.is(binary.content, pic.toString('base64'));

  failsJson(repo.shadow(['cat', 'old.txt', '--json']), 'NOT_FOUND', 'cat of a path the draft deleted');
  assert.is(repo.read('old.txt'), 'old\n');
  failsText(repo.shadow(['cat', 'nope.txt']), /^error: nope\.txt does not exist in the view of draft "default"$/m, 'cat nope.txt');
  failsJson(repo.shadow(['cat', 'src', '--json']), 'IS_A_DIRECTORY', 'cat of a directory');

  let r = repo.shadow(['ls']);
  ok(r, 'ls');
  assert.is(r.stdout, ['  file      README.md', '* file      pic.bin', '* dir       src/'].join('\n') + '\n');
  const root = ok(repo.shadow(['ls', '--json']), 'ls --json');
  assert.is(root.dir, '');
  assert.equal(root.entries.map((e: any) => [e.name, e.type, e.source]), [
    ['README.md', 'file', 'lower'],
    ['pic.bin', 'file', 'draft'],
    ['src', 'dir', 'draft'],
  ]);
  r = repo.shadow(['ls', 'src']);
  ok(r, 'ls src');
  assert.is(r.stdout, ['* file      app.ts', '* file      new.ts', '  file      untracked.ts'].join('\n') + '\n');

  // A draft that does not exist yet shows the working tree as it is.
  assert.is(repo.shadow(['cat', 'src/app.ts', '--draft', 'other']).stdout, 'the user changed it too\n');
  assert.equal(ok(repo.shadow(['ls', 'src', '--draft', 'other', '--json']), 'ls other').entries.map((e: any) => [e.name, e.source]), [
    ['app.ts', 'lower'],
    ['untracked.ts', 'lower'],
  ]);
  failsJson(repo.shadow(['ls', 'nowhere', '--json']), 'NOT_FOUND', 'ls of a missing directory');
});

View('ls and cat of a dot-directory', ({ repo }) => {
  repo.write('.github/workflows/ci.yml', 'on: push\n');
  const r = repo.shadow(['ls', '.github', '--json']);
  const out = ok(r, 'ls .github');
  assert.is(out.dir, '.github');
  assert.equal(out.entries.map((e: any) => [e.name, e.type]), [['workflows', 'dir']]);
  assert.is(repo.shadow(['cat', '.github/workflows/ci.yml']).stdout, 'on: push\n');
});

View.run();

// ---------------------------------------------------------------- history

const History = suite<Ctx & { commits: string[] }>('cli: checkpoint, rollback, undo, log, diff, status');
History.before.each(async (ctx) => {
  fresh(ctx);
  // Four batches, each writing f<i>.txt; before batch 3 the user edits README.md,
  // which batch 3 edits too: its state is captured in a commit of its own first.
  ctx.commits = [];
  for (let i = 1; i <= 4; i++) {
    const ops: unknown[] = [{ operation: 'write', path: `f${i}.txt`, content: `${i}\n` }];
    if (i === 3) {
      ctx.repo.write('README.md', 'Hello user\n');
      ops.push({ operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello three' });
    }
    ctx.commits.push(await seed(ctx.repo, ops, { intent: `step ${i}` }));
  }
});
History.after.each((ctx) => ctx.repo.cleanup());

History('checkpoint and checkpoints in text and --json; names that would be ambiguous are refused', ({ repo, commits }) => {
  let r = repo.shadow(['checkpoints']);
  ok(r, 'checkpoints (none)');
  assert.is(r.stdout, 'no checkpoints\n');
  r = repo.shadow(['checkpoint', 'four', '-m', 'all four steps']);
  ok(r, 'checkpoint -m');
  assert.is(r.stdout, `checkpoint four at batch 4 (${commits[3]!.slice(0, 12)})\n`);
  const cp = ok(repo.shadow(['checkpoint', 'again', '--json']), 'checkpoint --json');
  assert.match(cp.tag, OID);
  assert.match(cp.time, /^\d{4}-\d\d-\d\dT/);
  assert.equal({ ...cp, tag: 0, time: 0 }, { name: 'again', commit: commits[3], tag: 0, batch: 4, time: 0, message: 'checkpoint again of draft default', auto: false });

  // An annotated tag object, kept out of refs/tags.
  const tag = repo.git('rev-parse', 'refs/shadow/checkpoints/default/four').trim();
  assert.is(repo.git('cat-file', '-t', tag).trim(), 'tag');
  assert.is(repo.git('rev-parse', 'refs/shadow/checkpoints/default/four^{commit}').trim(), commits[3]);
  assert.match(repo.git('cat-file', 'tag', tag), /\n\nall four steps\n$/);
  assert.is(repo.git('tag', '--list'), '');

  const list = ok(repo.shadow(['checkpoints', '--json']), 'checkpoints --json').checkpoints;
  assert.equal(list.map((c: any) => [c.name, c.commit, c.batch, c.auto, c.message]).sort(), [
    ['again', commits[3], 4, false, 'checkpoint again of draft default'],
    ['four', commits[3], 4, false, 'all four steps'],
  ]);
  r = repo.shadow(['checkpoints']);
  ok(r, 'checkpoints');
  assert.match(r.stdout, new RegExp(`^four\\s+${commits[3]!.slice(0, 12)}  batch 4  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  all four steps$`, 'm'));

  for (const bad of ['12', 'auto-1']) {
    failsJson(repo.shadow(['checkpoint', bad, '--json']), 'INVALID_CHECKPOINT_NAME', `checkpoint ${bad}`);
  }
  failsJson(repo.shadow(['checkpoint', 'four', '--json']), 'CHECKPOINT_EXISTS', 'checkpoint four again');
  assert.is(repo.git('rev-parse', 'refs/shadow/checkpoints/default/four').trim(), tag);
  failsJson(repo.shadow(['checkpoints', '--draft', 'nope', '--json']), 'DRAFT_NOT_FOUND', 'checkpoints of a missing draft');
  failsJson(repo.shadow(['checkpoint', 'x', '--draft', 'nope', '--json']), 'DRAFT_NOT_FOUND', 'checkpoint on a missing draft');
});

History('rollback by ~N, batch number, checkpoint and commit; every tip it leaves stays reachable', ({ repo, commits }) => {
  const [c1, c2, c3, c4] = commits as [string, string, string, string];
  const root = repo.ref('HEAD')!;
  ok(repo.shadow(['checkpoint', 'four']), 'checkpoint four');

  let r = repo.shadow(['rollback', '~2']);
  ok(r, 'rollback ~2');
  assert.is(r.stdout, `draft default: ${c4.slice(0, 12)} -> ${c2.slice(0, 12)} (rollback to ~2); the tip it left is kept as checkpoint four\nundo it with \`shadow undo\`\n`);
  assert.is(repo.ref(DRAFT), c2, '~2 takes batch 3 back together with its capture commit');

  const byNumber = ok(repo.shadow(['rollback', '1', '--json']), 'rollback 1');
  assert.equal(byNumber, { draft: 'default', from: c2, to: c1, target: '1', kept: 'auto-1' });
  assert.is(repo.ref(DRAFT), c1);

  // A batch the draft left is still reachable by number, through the checkpoint that keeps it.
  const forward = ok(repo.shadow(['rollback', '3', '--json']), 'rollback 3');
  assert.is(forward.to, c3);
  assert.is(forward.kept, undefined, 'forward along the history: nothing to keep');

  const toCheckpoint = ok(repo.shadow(['rollback', 'four', '--json']), 'rollback <checkpoint>');
  assert.is(toCheckpoint.to, c4);

  const byCommit = ok(repo.shadow(['rollback', c1.slice(0, 10), '--json']), 'rollback <abbreviated commit>');
  assert.is(byCommit.to, c1);
  assert.is(byCommit.kept, 'four', 'the tip it left already had a checkpoint');
  assert.is(ok(repo.shadow(['rollback', c2, '--json']), 'rollback <commit>').to, c2);

  const toRoot = ok(repo.shadow(['rollback', 'HEAD', '--json']), 'rollback to the root');
  assert.is(toRoot.to, root);
  assert.is(toRoot.kept, 'auto-1');
  assert.equal(ok(repo.shadow(['log', '--json']), 'log').batches, []);
  assert.is(repo.shadow(['rollback', 'HEAD']).stdout, `draft default is already at ${root.slice(0, 12)}\n`);

  // Batch numbers are never reused.
  const c5 = ok(repo.shadow(['write', 'f5.txt', '--json'], { input: '5' }), 'write after the rollback');
  assert.is(c5.batch, 5);
  assert.is(ok(repo.shadow(['rollback', '~1', '--json']), 'rollback ~1').kept, 'auto-2');

  const cps = ok(repo.shadow(['checkpoints', '--json']), 'checkpoints').checkpoints;
  assert.equal(cps.filter((c: any) => c.auto).map((c: any) => [c.name, c.commit, c.batch]).sort(), [
    ['auto-1', c2, 2],
    ['auto-2', c5.commit, 5],
  ]);
  assert.is(cps.find((c: any) => c.name === 'auto-1').message, 'automatic checkpoint: draft default left this tip (rollback to batch 1)');
  r = repo.shadow(['checkpoints']);
  assert.match(r.stdout, new RegExp(`^auto-1\\s+${c2.slice(0, 12)}  batch 2  .*  automatic checkpoint: draft default left this tip \\(rollback to batch 1\\)$`, 'm'));
  const reachable = repo.git('rev-list', '--glob=refs/shadow/checkpoints/default/*').trim().split('\n');
  for (const c of [c1, c2, c3, c4, c5.commit]) assert.ok(reachable.includes(c), `${c} stays reachable from a checkpoint`);

  failsJson(repo.shadow(['rollback', '~9', '--json']), 'INVALID_TARGET', 'rollback ~9');
  failsText(repo.shadow(['rollback', 'no-such-thing']), /^error: cannot roll back to "no-such-thing": it is no checkpoint, batch or commit$/m, 'rollback (text)');
  failsJson(repo.shadow(['rollback', '1', '--draft', 'nope', '--json']), 'DRAFT_NOT_FOUND', 'rollback of a missing draft');
  assert.is(repo.ref(DRAFT), root);
  // A commit of the user's branch is no commit of the draft, even on top of its root.
  repo.git('commit', '-q', '--allow-empty', '-m', 'the user commits on main');
  failsJson(repo.shadow(['rollback', 'main', '--json']), 'INVALID_TARGET', 'rollback to a commit outside the draft');
  assert.is(repo.ref(DRAFT), root);
});

History('undo reverses the last move; undo twice is a redo; the reflog shows every move', ({ repo, commits }) => {
  const [c1, , c3, c4] = commits as [string, string, string, string];
  let r = repo.shadow(['undo']);
  ok(r, 'undo');
  assert.is(r.stdout, `undid "batch 4: step 4": draft default ${c4.slice(0, 12)} -> ${c3.slice(0, 12)}; the tip it left is kept as checkpoint auto-1\n`);
  assert.is(repo.ref(DRAFT), c3);
  assert.is(repo.shadow(['cat', 'f4.txt']).status, 1);
  const redo = ok(repo.shadow(['undo', '--json']), 'undo --json (a redo)');
  assert.equal(redo, { draft: 'default', from: c3, to: c4, target: 'undo', undid: 'undo batch 4: step 4' });
  assert.is(repo.ref(DRAFT), c4);
  assert.is(repo.shadow(['cat', 'f4.txt']).stdout, '4\n');

  ok(repo.shadow(['rollback', '~3']), 'rollback ~3');
  assert.is(repo.ref(DRAFT), c1);
  assert.is(ok(repo.shadow(['undo', '--json']), 'undo the rollback').to, c4);
  assert.is(ok(repo.shadow(['undo', '--json']), 'undo the undo').to, c1);

  const reflog = repo.git('reflog', 'show', '--format=%H %gs', DRAFT).trim().split('\n');
  assert.equal(reflog, [
    `${c1} shadow: undo undo rollback to ~3`,
    `${c4} shadow: undo rollback to ~3`,
    `${c1} shadow: rollback to ~3`,
    `${c4} shadow: undo undo batch 4: step 4`,
    `${c3} shadow: undo batch 4: step 4`,
    `${c4} shadow: batch 4: step 4`,
    `${c3} shadow: batch 3: step 3`,
    `${commits[1]} shadow: batch 2: step 2`,
    `${c1} shadow: batch 1: step 1`,
    `${repo.ref('HEAD')} shadow: draft new default from HEAD`,
  ]);

  ok(repo.shadow(['draft', 'new', 'blank']), 'draft new blank');
  failsJson(repo.shadow(['undo', '--draft', 'blank', '--json']), 'NOTHING_TO_UNDO', 'undo on a new draft');
  failsText(repo.shadow(['undo', '--draft', 'blank']), /^error: draft "blank" has not moved since it was created$/m, 'undo (text)');
  failsJson(repo.shadow(['undo', '--draft', 'nope', '--json']), 'DRAFT_NOT_FOUND', 'undo on a missing draft');
});

History('log, diff (patch, --stat, --name-status, ranges) and status in text and --json', ({ repo, commits }) => {
  const log = ok(repo.shadow(['log', '--json']), 'log --json');
  assert.is(log.draft, 'default');
  assert.equal(log.batches.map((b: any) => [b.batch, b.commit, b.intent, b.actor, b.captured]), [
    [4, commits[3], 'step 4', 'Test User', []],
    [3, commits[2], 'step 3', 'Test User', ['README.md']],
    [2, commits[1], 'step 2', 'Test User', []],
    [1, commits[0], 'step 1', 'Test User', []],
  ]);
  assert.equal(log.batches[1].ops, [{ operation: 'write', path: 'f3.txt' }, { operation: 'edit', path: 'README.md' }]);
  assert.equal(ok(repo.shadow(['log', '-n', '2', '--json']), 'log -n 2').batches.map((b: any) => b.batch), [4, 3]);
  let r = repo.shadow(['log', '-n', '1']);
  ok(r, 'log -n 1');
  assert.match(r.stdout, new RegExp(`^batch 4 · Test User · \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d · step 4 · 1 op  ${commits[3]!.slice(0, 12)}\\n {4}write   f4\\.txt\\n$`));
  r = repo.shadow(['log']);
  assert.match(r.stdout, /^ {4}edit    README\.md\n {4}\(captured first from the working tree: README\.md\)\nbatch 2 /m);

  r = repo.shadow(['diff', '--name-status']);
  ok(r, 'diff --name-status');
  assert.is(r.stdout, 'M\tREADME.md\nA\tf1.txt\nA\tf2.txt\nA\tf3.txt\nA\tf4.txt\n');
  r = repo.shadow(['diff', '--stat']);
  ok(r, 'diff --stat');
  assert.match(r.stdout, /^ README\.md \| 2 \+-$/m);
  assert.match(r.stdout, /^ 5 files changed, 5 insertions\(\+\), 1 deletion\(-\)$/m);
  r = repo.shadow(['diff']);
  ok(r, 'diff');
  assert.match(r.stdout, /^diff --git a\/README\.md b\/README\.md\n/m);
  assert.match(r.stdout, /^-Hello user\n\+Hello three user$/m, 'against the captured base, not HEAD');
  const d = ok(repo.shadow(['diff', '--json']), 'diff --json');
  assert.is(d.to, commits[3]);
  assert.equal(d.files.map((f: any) => [f.path, f.status, f.insertions, f.deletions]), [
    ['README.md', 'M', 1, 1],
    ['f1.txt', 'A', 1, 0],
    ['f2.txt', 'A', 1, 0],
    ['f3.txt', 'A', 1, 0],
    ['f4.txt', 'A', 1, 0],
  ]);
  assert.match(d.files[0].patch, /^diff --git a\/README\.md b\/README\.md/);
  const ns = ok(repo.shadow(['diff', '--name-status', '--json']), 'diff --name-status --json');
  assert.is(ns.files[0].patch, undefined);
  assert.is(ns.files[0].old.oid, hashOf(repo, Buffer.from('Hello user\n')));

  // Ranges: checkpoints, batch numbers, ~N, commits; an open end is the tip (or the root).
  ok(repo.shadow(['checkpoint', 'four']), 'checkpoint');
  assert.is(repo.shadow(['diff', '--name-status', '1..3']).stdout, 'M\tREADME.md\nA\tf2.txt\nA\tf3.txt\n');
  assert.is(repo.shadow(['diff', '--name-status', `..${commits[0]}`]).stdout, 'A\tf1.txt\n');
  assert.is(repo.shadow(['diff', '--name-status', `${commits[2]}..four`]).stdout, 'A\tf4.txt\n');
  const range = ok(repo.shadow(['diff', '--stat', '--json', '2..4']), 'diff --stat --json 2..4');
  assert.is(range.from, commits[1]);
  assert.is(range.to, commits[3]);
  assert.equal(range.files.map((f: any) => f.path), ['README.md', 'f3.txt', 'f4.txt']);
  failsJson(repo.shadow(['diff', '9..', '--json']), 'INVALID_TARGET', 'diff 9..');

  const s = ok(repo.shadow(['status', '--json']), 'status --json');
  assert.is(s.exists, true);
  assert.is(s.tip, commits[3]);
  assert.is(s.root, repo.ref('HEAD'));
  assert.is(s.batches, 4);
  assert.is(s.checkpoints, 1);
  assert.equal(s.changed.map((c: any) => `${c.status} ${c.path}`), ['M README.md', 'A f1.txt', 'A f2.txt', 'A f3.txt', 'A f4.txt']);
  assert.equal(s.drifted, []);
  // The user changes a path the draft captured: status says the working tree moved.
  repo.write('README.md', 'Hello from the user\n');
  r = repo.shadow(['status']);
  ok(r, 'status');
  assert.match(r.stdout, new RegExp(`^draft default at ${commits[3]!.slice(0, 12)} · 4 batches · 1 checkpoint\\nchanges \\(5\\):\\n  M README\\.md\\n`));
  assert.match(r.stdout, /^working tree moved away from the base \(1\):\n {2}README\.md \(modified\)$/m);
  const drifted = ok(repo.shadow(['status', '--json']), 'status --json (drift)').drifted;
  assert.equal(drifted, [{ path: 'README.md', expected: hashOf(repo, Buffer.from('Hello user\n')), found: hashOf(repo, Buffer.from('Hello from the user\n')) }]);
  const none = ok(repo.shadow(['status', '--draft', 'nope', '--json']), 'status of a missing draft');
  assert.equal(none, { draft: 'nope', exists: false, batches: 0, checkpoints: 0, changed: [], drifted: [] });
  assert.is(repo.shadow(['status', '--draft', 'nope']).stdout, 'draft nope does not exist yet; its first batch creates it from HEAD\n');
});

History.run();

// ---------------------------------------------------------------- -C

const Dir = suite<Ctx>('cli: -C <dir>');
Dir.before.each(fresh);
Dir.after.each((ctx) => ctx.repo.cleanup());

Dir('-C runs as if shadow was started in <dir>, absolute or relative, and from a subdirectory', ({ repo }) => {
  const w = ok(repo.shadow(['-C', repo.dir, 'write', 'a.txt', '--json'], { input: 'a', cwd: repo.root }), 'write -C <abs>');
  assert.is(repo.ref(DRAFT), w.commit);
  assert.is(repo.shadow(['-C', 'repo', 'cat', 'a.txt'], { cwd: repo.root }).stdout, 'a');
  assert.is(ok(repo.shadow(['status', '--json', '-C', 'repo'], { cwd: repo.root }), 'status -C (after the command)').tip, w.commit);
  assert.is(repo.shadow(['cat', '../README.md'], { cwd: repo.path('src') }).stdout, 'Hello\n', 'from a subdirectory, paths are relative to it');
  assert.is(repo.shadow(['-C', 'src', 'cat', 'app.ts']).stdout, 'export const app = 1\n', 'after -C, paths are relative to <dir>');
  failsJson(repo.shadow(['-C', repo.home, 'status', '--json'], { cwd: repo.dir }), 'NOT_A_REPOSITORY', '-C outside any repository');
  const missing = repo.shadow(['-C', join(repo.root, 'does-not-exist'), 'status', '--json']);
  assert.is(missing.status, 1);
  assert.is(missing.json().error.code, 'NOT_A_REPOSITORY');
});

Dir('-C <dir> batch <file>: a relative batch file is read from <dir>, as git would', ({ repo }) => {
  repo.write('ops.json', batchText([{ operation: 'write', path: 'from-file.txt', content: 'f' }]));
  const r = repo.shadow(['-C', 'repo', 'batch', 'ops.json', '--json'], { cwd: repo.root });
  const out = ok(r, '-C repo batch ops.json');
  assert.is(repo.git('show', `${out.commit}:from-file.txt`), 'f');
});

Dir.run();

// ---------------------------------------------------------------- local helpers

function hashOf(repo: DiskRepo, bytes: Buffer): string {
  const r = spawnGit(repo, ['hash-object', '--stdin'], bytes);
  return r.trim();
}

function spawnGit(repo: DiskRepo, args: string[], input: Buffer): string {
  const r = spawnSync('git', args, { cwd: repo.dir, env: repo.env, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
