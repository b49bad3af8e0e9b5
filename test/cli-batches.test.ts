import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { DiskRepo } from './helpers/disk-repo.js';
import { batchText, DRAFT, failsJson, failsText, fresh, hashOf, ok, type Ctx } from './helpers/cli-repo.js';

/**
 * `shadow batch, write, edit, rm, mv` on a real repository, in text and
 * with --json, checked against what native git sees: commits, trailers,
 * blobs, modes.
 */

// ---------------------------------------------------------------- batches

const Batches = suite<Ctx>('cli: batch, write, edit, rm, mv');
Batches.before.each(fresh);
Batches.after.each((ctx) => ctx.repo.cleanup());

Batches('batch from a file and from stdin: every operation, expect, base64 and modes', ({ repo }) => {
  repo.write(
    '../batch1.json',
    batchText(
      [
        { operation: 'write', path: 'bin/run.sh', content: '#!/bin/sh\necho hi\n', mode: '100755' },
        {
          operation: 'write',
          path: 'img.bin',
          content: Buffer.from([0, 1, 2, 0xff, 0xfe]).toString('base64'),
          encoding: 'base64',
        },
        { operation: 'write', path: 'notes.md', content: 'line 1\nline 2\nline 3\n', encoding: 'utf8' },
      ],
      { intent: 'first batch\n\nwith a body' },
    ),
  );
  let r = repo.shadow(['batch', join(repo.root, 'batch1.json')]);
  ok(r, 'batch <file>');
  assert.match(r.stdout, /^created draft default from HEAD$/m);
  assert.match(r.stdout, /^batch 1 on draft default: [0-9a-f]{12}$/m);
  assert.match(r.stdout, /^ {2}created {9}bin\/run\.sh$/m);
  assert.match(r.stdout, /^ {2}created {9}img\.bin$/m);
  const tip1 = repo.ref(DRAFT)!;
  assert.is(repo.git('ls-tree', tip1, 'bin/run.sh').split(' ')[0], '100755');
  assert.is(
    repo.git('rev-parse', `${tip1}:img.bin`).trim(),
    hashOf(repo, Buffer.from([0, 1, 2, 0xff, 0xfe])),
    'base64 content is stored byte for byte',
  );
  assert.is(
    repo.git('log', '-1', '--format=%B', tip1).split('\n').slice(0, 3).join('\n'),
    'first batch\n\nwith a body',
  );

  const notesBlob = repo.git('rev-parse', `${tip1}:notes.md`).trim();
  const readmeSha = sha256(Buffer.from('Hello\n'));
  const stdinBatch = batchText(
    [
      { operation: 'edit', path: 'notes.md', old_content: 'line 2', content: 'line two', expect: notesBlob },
      {
        operation: 'patch',
        path: 'README.md',
        diff: '--- a/README.md\n+++ b/README.md\n@@ -1 +1,2 @@\n Hello\n+World\n',
        expect: `sha256:${readmeSha}`,
      },
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
  assert.equal(
    out.results.map((x: any) => [x.operation, x.path, x.status]),
    [
      ['edit', 'notes.md', 'updated'],
      ['patch', 'README.md', 'updated'],
      ['delete', 'old.txt', 'deleted'],
      ['rename', 'src/app.ts', 'renamed'],
      ['chmod', 'bin/run.sh', 'mode_changed'],
    ],
  );
  assert.is(out.results[3].to, 'src/main.ts');
  assert.is(repo.ref(DRAFT), out.commit);
  assert.is(repo.git('rev-parse', `${out.commit}^`).trim(), tip1, 'one commit per batch');
  assert.is(repo.git('show', `${out.commit}:notes.md`), 'line 1\nline two\nline 3\n');
  assert.is(repo.git('show', `${out.commit}:README.md`), 'Hello\nWorld\n');
  assert.is(repo.git('show', `${out.commit}:src/main.ts`), 'export const app = 1\n');
  assert.is(repo.git('ls-tree', '--name-only', out.commit, 'old.txt', 'src/app.ts'), '');
  assert.is(repo.git('ls-tree', out.commit, 'bin/run.sh').split(' ')[0], '100644');
  const { 'Shadow-Ops': fingerprint, ...named } = trailers(repo, out.commit);
  assert.equal(named, {
    'Shadow-Draft': 'default',
    'Shadow-Batch': '2',
    'Shadow-Actor': 'Test User',
    'Shadow-Actor-Type': 'human',
  });
  assert.match(fingerprint!, /^[0-9a-f]{64}$/, 'the batch is known by its fingerprint when it is sent again');

  // The same batch again (a retry) is already applied: success, no commit.
  r = repo.shadow(['batch', '-'], { input: stdinBatch });
  ok(r, 'batch (already applied)');
  assert.match(
    r.stdout,
    /^nothing to change on draft default: every operation was already in place\n {2}already_applied notes\.md\n/,
  );
  assert.is(repo.ref(DRAFT), out.commit);
  // Its edit alone is another batch: old_content is gone, and that is no match, not a success.
  r = repo.shadow(['batch', '-'], {
    input: batchText([{ operation: 'edit', path: 'notes.md', old_content: 'line 2', content: 'line two' }]),
  });
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

  const w = ok(
    repo.shadow(['write', 'blob.bin', '--base64', '--json'], {
      input: Buffer.from([0, 0xff, 10, 13, 0x80]).toString('base64'),
    }),
    'write --base64',
  );
  assert.is(w.batch, 2);
  assert.is(repo.git('rev-parse', `${DRAFT}:blob.bin`).trim(), hashOf(repo, Buffer.from([0, 0xff, 10, 13, 0x80])));

  r = repo.shadow(['edit', 'docs/guide.md', '--old', '# Guide', '--new', '# The guide']);
  ok(r, 'edit');
  assert.match(r.stdout, /^batch 3 on draft default: [0-9a-f]{12}\n {2}updated {9}docs\/guide\.md$/m);
  assert.is(repo.git('show', `${DRAFT}:docs/guide.md`), '# The guide\n');
  assert.is(repo.git('log', '-1', '--format=%s', DRAFT).trim(), 'edit docs/guide.md');

  const e4 = ok(
    repo.shadow(['edit', 'docs/guide.md', '--old', 'The', '--new', 'A', '-m', 'shorter title', '--json']),
    'edit --json',
  );
  assert.equal([e4.batch, e4.results[0].status], [4, 'updated']);
  assert.is(repo.git('log', '-1', '--format=%s', DRAFT).trim(), 'shorter title');

  const rm = ok(repo.shadow(['rm', 'old.txt', 'blob.bin', '--json']), 'rm two paths');
  assert.is(rm.batch, 5);
  assert.equal(
    rm.results.map((x: any) => [x.path, x.status]),
    [
      ['old.txt', 'deleted'],
      ['blob.bin', 'deleted'],
    ],
  );
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

  const env = ok(
    repo.shadow(['write', 'b.txt', '--json'], { input: 'b', env: { SHADOW_DRAFT: 'envd' } }),
    'write ($SHADOW_DRAFT)',
  );
  assert.is(env.draft, 'envd');
  assert.is(repo.ref('refs/shadow/drafts/envd'), env.commit);

  const flag = ok(
    repo.shadow(['write', 'c.txt', '--draft', 'flagd', '--json'], { input: 'c', env: { SHADOW_DRAFT: 'envd' } }),
    'write --draft',
  );
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
  assert.equal(
    log.batches.map((b: any) => b.ops[0].path),
    ['b.txt'],
  );
});

Batches('the actor: --actor, else SHADOW_ACTOR, else git user.name; author and Shadow-Actor agree', ({ repo }) => {
  const byUser = ok(repo.shadow(['write', 'a.txt', '--json'], { input: 'a' }), 'write as user');
  const byEnv = ok(
    repo.shadow(['write', 'b.txt', '--json'], { input: 'b', env: { SHADOW_ACTOR: 'env-agent' } }),
    'write as $SHADOW_ACTOR',
  );
  const byFlag = ok(
    repo.shadow(['write', 'c.txt', '--actor', 'flag-agent', '--json'], {
      input: 'c',
      env: { SHADOW_ACTOR: 'env-agent' },
    }),
    'write --actor',
  );
  const byBatch = ok(
    repo.shadow(['batch', '-', '--actor', 'flag-agent', '--json'], {
      input: batchText([{ operation: 'write', path: 'd.txt', content: 'd' }], { actor: 'batch-agent' }),
    }),
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
    assert.is(
      repo.git('log', '-1', '--format=%cn <%ce>', commit).trim(),
      'Test User <test@example.com>',
      'the committer is the repository identity',
    );
    assert.is(trailers(repo, commit)['Shadow-Actor'], name);
  }
  const log = ok(repo.shadow(['log', '--json']), 'log').batches;
  assert.equal(
    log.map((b: any) => b.actor),
    ['flag-agent', 'flag-agent', 'env-agent', 'Test User'],
  );
  const text = repo.shadow(['log']).stdout;
  assert.match(text, /^batch 2 · env-agent · \d{4}-\d\d-\d\d \d\d:\d\d · write b\.txt · 1 op {2}[0-9a-f]{12}$/m);

  // No user.name and no SHADOW_ACTOR: the actor is recorded as unknown.
  repo.git('config', '--unset', 'user.name');
  const anon = ok(repo.shadow(['write', 'e.txt', '--json'], { input: 'e' }), 'write without user.name');
  assert.is(trailers(repo, anon.commit)['Shadow-Actor'], 'unknown');
});

Batches.run();

// ---------------------------------------------------------------- local helpers

function trailers(repo: DiskRepo, commit: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of repo.git('log', '-1', '--format=%(trailers:only,unfold)', commit).split('\n')) {
    const m = /^(Shadow-[A-Za-z-]+): (.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
