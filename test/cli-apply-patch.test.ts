import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { DRAFT, failsJson, failsText, fresh, ok, type Ctx } from './helpers/cli-repo.js';

/*
 * `shadow apply-patch [file|-]` on a real repository: a patch in Codex's
 * apply_patch format from stdin or a file, one batch, its paths read from
 * the current directory as Codex and the other commands read them; what it
 * prints, and what native git sees in the draft.
 */

const Cli = suite<Ctx>('cli: apply-patch');
Cli.before.each(fresh);
Cli.after.each((ctx) => ctx.repo.cleanup());

const PATCH = [
  '*** Begin Patch',
  '*** Update File: src/app.ts',
  '@@',
  '-export const app = 1',
  '+export const app = 2',
  '*** Add File: docs/notes.md',
  '+# Notes',
  '*** Delete File: old.txt',
  '*** Update File: README.md',
  '*** Move to: docs/README.md',
  '@@',
  '-Hello',
  '+Hello, world',
  '*** End Patch',
  '',
].join('\n');

Cli('from stdin: one batch, a line per file; the draft holds the bytes, the working tree is untouched', ({ repo }) => {
  const r = repo.shadow(['apply-patch', '-m', 'bump the app'], { input: PATCH });
  ok(r, 'apply-patch');
  assert.match(r.stdout, /^created draft default from HEAD$/m);
  assert.match(r.stdout, /^batch 1 on draft default: [0-9a-f]{12}$/m);
  assert.match(r.stdout, /^ {2}updated {9}src\/app\.ts$/m);
  assert.match(r.stdout, /^ {2}created {9}docs\/notes\.md$/m);
  assert.match(r.stdout, /^ {2}deleted {9}old\.txt$/m);
  assert.match(r.stdout, /^ {2}renamed {9}README\.md -> docs\/README\.md$/m);
  assert.is(repo.git('show', `${DRAFT}:src/app.ts`), 'export const app = 2\n');
  assert.is(repo.git('show', `${DRAFT}:docs/README.md`), 'Hello, world\n');
  assert.is(repo.git('log', '-1', '--format=%s', DRAFT).trim(), 'bump the app');
  assert.is(repo.git('rev-list', '--count', `HEAD..${DRAFT}`).trim(), '1');
  assert.match(
    repo.git('log', '-1', '--format=%b', DRAFT),
    /^apply_patch\tREADME\.md\tdocs\/README\.md\t\(renamed\)$/m,
  );
  assert.match(repo.shadow(['log']).stdout, /apply_patch README\.md -> docs\/README\.md \(renamed\)/);
  assert.is(repo.read('README.md'), 'Hello\n');
  assert.is(repo.exists('old.txt'), true);
});

Cli('from a file, in a subdirectory: the paths of the patch are relative to it; --json gives each file', ({ repo }) => {
  repo.write(
    '../fix.patch',
    '*** Begin Patch\n*** Update File: app.ts\n@@\n-export const app = 1\n+export const app = 3\n*** Add File: ../docs/new.md\n+new\n*** End Patch\n',
  );
  const out = ok(
    repo.shadow(['apply-patch', join(repo.root, 'fix.patch'), '--json'], { cwd: repo.path('src') }),
    'apply-patch <file> in src/',
  );
  assert.equal(out.results[0].files, [
    { path: 'src/app.ts', status: 'updated', section: 'update' },
    { path: 'docs/new.md', status: 'created', section: 'add' },
  ]);
  assert.is(repo.git('show', `${DRAFT}:src/app.ts`), 'export const app = 3\n');
  assert.is(repo.git('show', `${DRAFT}:docs/new.md`), 'new\n');
});

Cli('a patch that does not apply: exit 1, the file and the change named, a hint; nothing committed', ({ repo }) => {
  const bad =
    '*** Begin Patch\n*** Update File: src/app.ts\n@@\n-export const app = 9\n+export const app = 2\n*** End Patch\n';
  const r = repo.shadow(['apply-patch'], { input: bad });
  assert.is(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^batch rejected on draft default, nothing was written: 1 of 1 operation failed$/m);
  assert.match(r.stdout, /change 1 of 1 of src\/app\.ts \(patch line 3\) does not apply/);
  assert.match(r.stderr, /^hint: read the file again/m);
  assert.is(repo.ref(DRAFT), undefined);
  const json = repo.shadow(['apply-patch', '--json'], {
    input: '*** Begin Patch\n*** Frobnicate File: x\n*** End Patch\n',
  });
  assert.is(json.status, 1);
  const doc = json.json();
  assert.is(doc.success, false);
  assert.is(doc.error.code, 'INVALID_PATCH');
  assert.is(doc.results[0].error.data.line, 2);
});

Cli('bytes that are not UTF-8, and a path that leaves the repository: refused before anything runs', ({ repo }) => {
  failsText(
    repo.shadow(['apply-patch'], { input: Buffer.from([0x2a, 0xff, 0x0a]) }),
    /^error: the patch is not UTF-8 text$/m,
    'not UTF-8',
  );
  failsJson(
    repo.shadow(['apply-patch', '--json'], {
      input: '*** Begin Patch\n*** Add File: ../../outside.txt\n+x\n*** End Patch\n',
      cwd: repo.path('src'),
    }),
    'INVALID_PATH',
    'outside',
  );
  assert.is(repo.ref(DRAFT), undefined);
});

Cli(
  'a change that fits two places goes to the first, as under Codex, and the output says so; Add File over a file replaces it',
  ({ repo }) => {
    repo.write('twice.txt', 'x\ny\nx\n');
    const r = repo.shadow(['apply-patch', '-'], {
      input: '*** Begin Patch\n*** Update File: twice.txt\n@@\n-x\n+X\n*** Add File: old.txt\n+new\n*** End Patch\n',
    });
    ok(r, 'apply-patch');
    assert.match(r.stdout, /^note: twice\.txt: the change matched the first of 2 places \(lines 1, 3\)$/m);
    assert.match(r.stdout, /^note: old\.txt: Add File replaced the file that was there$/m);
    assert.is(repo.git('show', `${DRAFT}:twice.txt`), 'X\ny\nx\n');
    assert.is(repo.git('show', `${DRAFT}:old.txt`), 'new\n');
    assert.is(repo.read('twice.txt'), 'x\ny\nx\n', 'the working tree is untouched');
    // The person deciding sees it too: shadow review lists each note with its batch.
    const review = repo.shadow(['review', '--json']);
    ok(review, 'review');
    const placements = review
      .json()
      .placements.map((n: { batch: number; path: string; note: string }) => `${n.batch} ${n.path}: ${n.note}`);
    assert.equal(placements, [
      '1 twice.txt: the change matched the first of 2 places (lines 1, 3)',
      '1 old.txt: Add File replaced the file that was there',
    ]);
    assert.match(
      repo.shadow(['review', '--stat']).stdout,
      /^ {2}batch 1 {2}twice\.txt: the change matched the first of 2 places \(lines 1, 3\)$/m,
    );
  },
);

Cli.run();
