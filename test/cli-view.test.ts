import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { SHADOW_BIN } from './helpers/disk-repo.js';
import { DRAFT, failsJson, failsText, fresh, hashOf, ok, seed, type Ctx } from './helpers/cli-repo.js';

/**
 * `shadow cat` and `ls` on a real repository: paths the draft changed come
 * from the draft, all others from the live working tree.
 */

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
  failsText(
    repo.shadow(['cat', 'nope.txt']),
    /^error: nope\.txt does not exist in the view of draft "default"$/m,
    'cat nope.txt',
  );
  failsJson(repo.shadow(['cat', 'src', '--json']), 'IS_A_DIRECTORY', 'cat of a directory');

  let r = repo.shadow(['ls']);
  ok(r, 'ls');
  assert.is(r.stdout, ['  file      README.md', '* file      pic.bin', '* dir       src/'].join('\n') + '\n');
  const root = ok(repo.shadow(['ls', '--json']), 'ls --json');
  assert.is(root.dir, '');
  assert.equal(
    root.entries.map((e: any) => [e.name, e.type, e.source]),
    [
      ['README.md', 'file', 'lower'],
      ['pic.bin', 'file', 'draft'],
      ['src', 'dir', 'draft'],
    ],
  );
  r = repo.shadow(['ls', 'src']);
  ok(r, 'ls src');
  assert.is(r.stdout, ['* file      app.ts', '* file      new.ts', '  file      untracked.ts'].join('\n') + '\n');

  // A draft that does not exist yet shows the working tree as it is.
  assert.is(repo.shadow(['cat', 'src/app.ts', '--draft', 'other']).stdout, 'the user changed it too\n');
  assert.equal(
    ok(repo.shadow(['ls', 'src', '--draft', 'other', '--json']), 'ls other').entries.map((e: any) => [
      e.name,
      e.source,
    ]),
    [
      ['app.ts', 'lower'],
      ['untracked.ts', 'lower'],
    ],
  );
  failsJson(repo.shadow(['ls', 'nowhere', '--json']), 'NOT_FOUND', 'ls of a missing directory');
});

View('ls and cat of a dot-directory', ({ repo }) => {
  repo.write('.github/workflows/ci.yml', 'on: push\n');
  const r = repo.shadow(['ls', '.github', '--json']);
  const out = ok(r, 'ls .github');
  assert.is(out.dir, '.github');
  assert.equal(
    out.entries.map((e: any) => [e.name, e.type]),
    [['workflows', 'dir']],
  );
  assert.is(repo.shadow(['cat', '.github/workflows/ci.yml']).stdout, 'on: push\n');
});

View.run();
