import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { batchText, DRAFT, failsJson, fresh, ok, type Ctx } from './helpers/cli-repo.js';

/**
 * `shadow -C <dir>`: commands run as if started in <dir>, as git's -C.
 */

// ---------------------------------------------------------------- -C

const Dir = suite<Ctx>('cli: -C <dir>');
Dir.before.each(fresh);
Dir.after.each((ctx) => ctx.repo.cleanup());

Dir('-C runs as if shadow was started in <dir>, absolute or relative, and from a subdirectory', ({ repo }) => {
  const w = ok(
    repo.shadow(['-C', repo.dir, 'write', 'a.txt', '--json'], { input: 'a', cwd: repo.root }),
    'write -C <abs>',
  );
  assert.is(repo.ref(DRAFT), w.commit);
  assert.is(repo.shadow(['-C', 'repo', 'cat', 'a.txt'], { cwd: repo.root }).stdout, 'a');
  assert.is(
    ok(repo.shadow(['status', '--json', '-C', 'repo'], { cwd: repo.root }), 'status -C (after the command)').tip,
    w.commit,
  );
  assert.is(
    repo.shadow(['cat', '../README.md'], { cwd: repo.path('src') }).stdout,
    'Hello\n',
    'from a subdirectory, paths are relative to it',
  );
  assert.is(
    repo.shadow(['-C', 'src', 'cat', 'app.ts']).stdout,
    'export const app = 1\n',
    'after -C, paths are relative to <dir>',
  );
  failsJson(
    repo.shadow(['-C', repo.home, 'status', '--json'], { cwd: repo.dir }),
    'NOT_A_REPOSITORY',
    '-C outside any repository',
  );
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
