import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withShadow } from './helpers/disk-repo.js';
import { bareRemote } from './helpers/remotes.js';
import { withRemote } from './helpers/remote-repos.js';

/*
 * `shadow apply --draft origin/refactor`: a fetched draft published here,
 * guarded as always. It is continued under its own name first (as git
 * switch makes a branch of origin/<name>), so the apply and its approvals
 * are recorded on a draft of this machine.
 */

const A = suite('apply of a fetched draft');

A(
  'apply --draft origin/refactor: a dry run reads it; the apply makes refactor here at the fetched tip and publishes it; a refactor elsewhere is refused',
  () =>
    withRemote(bareRemote, async ({ a, clone }) => {
      const b = clone();
      await withShadow(a, async (sh) => {
        await sh.batch(
          { operations: [{ operation: 'write', path: 'src/app.ts', content: 'export const x = 2;\n' }] },
          { draft: 'refactor' },
        );
      });
      const pushed = a.shadow(['push', 'origin', 'refactor']);
      assert.is(pushed.status, 0, pushed.stderr);
      assert.is(b.shadow(['fetch', 'origin']).status, 0);
      const tip = b.ref('refs/shadow/remotes/origin/drafts/refactor')!;

      const dry = b.shadow(['apply', '--draft', 'origin/refactor', '--dry-run', '--json']);
      assert.is(dry.status, 0, dry.stderr + dry.stdout);
      assert.equal(
        dry.json().paths.map((p: { path: string }) => p.path),
        ['src/app.ts'],
      );
      assert.is(b.ref('refs/shadow/drafts/refactor'), undefined, 'a dry run makes no draft');
      assert.is(b.read('src/app.ts'), 'export const x = 1;\n');

      const applied = b.shadow(['apply', '--draft', 'origin/refactor', '--json']);
      assert.is(applied.status, 0, applied.stderr + applied.stdout);
      assert.is(applied.json().draft, 'refactor');
      assert.is(b.read('src/app.ts'), 'export const x = 2;\n');
      assert.is(b.ref('refs/shadow/drafts/refactor'), tip, 'refactor here, at the fetched tip');
      const types = b
        .shadow(['events', '--draft', 'refactor', '--json'])
        .stdout.trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { type: string }).type);
      assert.ok(types.includes('draft/import') && types.includes('apply/complete'), types.join(' '));
      assert.is(b.shadow(['events', '--verify', '--draft', 'refactor']).status, 0);

      // A moves on; B's refactor stays where it was: applying the newer origin/refactor is refused, nothing written.
      b.git('checkout', '-q', '--', '.');
      await withShadow(a, async (sh) => {
        await sh.batch(
          { operations: [{ operation: 'write', path: 'src/more.ts', content: 'more\n' }] },
          { draft: 'refactor' },
        );
      });
      assert.is(a.shadow(['push', 'origin', 'refactor']).status, 0);
      assert.is(b.shadow(['fetch', 'origin']).status, 0);
      const refused = b.shadow(['apply', '--draft', 'origin/refactor', '--json']);
      assert.is(refused.status, 1);
      assert.is(refused.json().error.code, 'DRAFT_EXISTS');
      assert.match(refused.json().error.hint, /shadow pull origin refactor/);
      assert.is(b.exists('src/more.ts'), false);
      assert.is(b.ref('refs/shadow/drafts/refactor'), tip);
    }),
);

A(
  'a fetched draft that needs an approval: the apply stops at it, and the approval is given on the draft made here',
  () =>
    withRemote(bareRemote, async ({ a, clone }) => {
      const b = clone();
      await withShadow(a, async (sh) => {
        await sh.batch(
          { operations: [{ operation: 'write', path: '.github/workflows/ci.yml', content: 'on: push\n' }] },
          { draft: 'ci' },
        );
      });
      assert.is(a.shadow(['push', 'origin', 'ci']).status, 0);
      assert.is(b.shadow(['fetch', 'origin']).status, 0);
      const pending = b.shadow(['apply', '--draft', 'origin/ci', '--json']);
      assert.is(pending.status, 3, pending.stderr + pending.stdout);
      assert.is(b.exists('.github/workflows/ci.yml'), false);
      const id = b.shadow(['review', '--draft', 'ci', '--json']).json().approvals[0].id;
      assert.is(b.shadow(['approve', id, '--draft', 'ci']).status, 0);
      const applied = b.shadow(['apply', '--draft', 'origin/ci', '--json']);
      assert.is(applied.status, 0, applied.stderr + applied.stdout);
      assert.is(b.read('.github/workflows/ci.yml'), 'on: push\n');
    }),
);

A.run();
