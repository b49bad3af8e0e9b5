/**
 * Hunk apply's guards on a real repository: bad input is refused with a
 * stable code and nothing written (no byte of the working tree, no record);
 * approvals and the secret guard see only the chosen hunks; the person's
 * own edit elsewhere in the file is merged beside them and unapply puts it
 * back.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Shadow } from '../src/index.js';
import { DiskRepo, treeHashes, withShadow } from './helpers/disk-repo.js';
import { statusFor } from '../src/http/http-errors.js';

const TOKEN = 'ghp_' + 'k7Q2mZ9xR4tB8wN1vC6yL3pH5sD0fJ2gA9eU'; // made up, shaped like a classic GitHub token
const BASE = Array.from({ length: 40 }, (_, i) => `line ${i + 1}\n`);
const at = (edits: Record<number, string>): string => BASE.map((l, i) => edits[i + 1] ?? l).join('');
const DRAFT = at({ 3: 'three\n', 37: `const token = '${TOKEN}'\n` });
const FILES = { 'code.ts': BASE.join(''), 'keep.txt': 'keep\n', 'img.bin': 'x' };

async function codeOf(f: () => Promise<unknown>): Promise<{ code: string; message: string; hint?: string }> {
  try {
    await f();
  } catch (e) {
    return e as { code: string; message: string };
  }
  assert.unreachable('no error');
  throw new Error('unreachable');
}

const Guards = suite<{ repo: DiskRepo }>('apply --hunks: what is refused, what is guarded');
Guards.before.each((ctx) => {
  ctx.repo = new DiskRepo(null);
  for (const [p, c] of Object.entries(FILES)) ctx.repo.write(p, c);
  ctx.repo.write('img.bin', Buffer.from([0, 1, 2, 3]));
  ctx.repo.git('add', '-A');
  ctx.repo.git('commit', '-q', '-m', 'bases');
});
Guards.after.each((ctx) => ctx.repo.cleanup());

async function drafted(sh: Shadow): Promise<void> {
  const r = await sh.batch({
    intent: 'two hunks and a binary',
    operations: [
      { operation: 'write', path: 'code.ts', content: DRAFT },
      { operation: 'write', path: 'img.bin', content: Buffer.from([0, 9, 9]).toString('base64'), encoding: 'base64' },
    ],
  });
  assert.ok(r.success, JSON.stringify(r));
}

Guards('each bad selection has its code, and writes nothing', async ({ repo }) => {
  await withShadow(repo, async (sh) => {
    await drafted(sh);
    const before = treeHashes(repo.dir);
    const tip = repo.ref('refs/shadow/drafts/default');
    const patchOf = (body: string): string => `diff --git a/code.ts b/code.ts\n--- a/code.ts\n+++ b/code.ts\n${body}`;
    const cases: Array<[string, Parameters<Shadow['apply']>[0], string, RegExp]> = [
      ['an index past the last hunk', { hunks: ['code.ts:3'] }, 'INVALID_ARGUMENT', /code\.ts has 2 hunks/],
      ['hunk 0', { hunks: ['code.ts:0'] }, 'INVALID_ARGUMENT', /count from 1/],
      [
        'an index of a binary file',
        { hunks: ['img.bin:1'] },
        'INVALID_ARGUMENT',
        /img\.bin is binary: whole file only/,
      ],
      ['a path the draft does not change', { hunks: ['keep.txt:1'] }, 'INVALID_ARGUMENT', /does not change/],
      ['an unknown path', { hunks: ['nope.txt'] }, 'INVALID_ARGUMENT', /does not change/],
      ['a mode the draft does not change', { hunks: ['code.ts:mode'] }, 'INVALID_ARGUMENT', /does not change its mode/],
      ['a rename the draft does not make', { hunks: ['code.ts:rename'] }, 'INVALID_ARGUMENT', /does not rename/],
      ['with --commit', { hunks: ['code.ts:1'], commit: true }, 'INVALID_ARGUMENT', /takes no hunks/],
      ['with --squash', { hunks: ['code.ts:1'], squash: 'm' }, 'INVALID_ARGUMENT', /takes no hunks/],
      ['with pathspecs', { hunks: ['code.ts:1'], paths: ['code.ts'] }, 'INVALID_ARGUMENT', /do not go together/],
      ['an empty list', { hunks: [] }, 'INVALID_ARGUMENT', /hunks/],
      ['hunks and a patch', { hunks: ['code.ts:1'], patch: patchOf('') }, 'INVALID_ARGUMENT', /exclude/],
      [
        'a patch whose context is not the base',
        { patch: patchOf('@@ -2,3 +2,3 @@\n line 2\n-line 3\n+three\n line 99\n') },
        'PATCH_DOES_NOT_APPLY',
        /^error: patch failed: code\.ts:2 /,
      ],
      [
        'a patch of a path the draft does not change',
        { patch: 'diff --git a/keep.txt b/keep.txt\n--- a/keep.txt\n+++ b/keep.txt\n@@ -1 +1 @@\n-keep\n+kept\n' },
        'INVALID_ARGUMENT',
        /keep\.txt, which the draft does not change/,
      ],
      ['a patch that takes nothing', { patch: patchOf('') }, 'INVALID_ARGUMENT', /takes no change/],
      ['a patch whose counts lie', { patch: patchOf('@@ -2,3 +2,3 @@\n line 2\n') }, 'INVALID_PATCH', /corrupt patch/],
      ['a patch that names no file', { patch: 'hello\n' }, 'INVALID_PATCH', /names no file/],
    ];
    for (const [name, options, code, message] of cases) {
      for (const dryRun of [false, true]) {
        const e = await codeOf(() => sh.apply({ ...options, dryRun }));
        assert.is(e.code, code, `${name}: ${e.message}`);
        assert.match(e.message, message, name);
        assert.ok(e.hint, `${name} says what to do`);
      }
    }
    assert.equal(treeHashes(repo.dir), before, 'nothing written');
    assert.is(repo.ref('refs/shadow/drafts/default'), tip);
    assert.is((await sh.diff({ content: 'patch' })).files.length, 2, 'the draft still has all of its changes');
  });
});

Guards('a hunk id of a state the draft left is STALE_HUNKS (409), nothing written', async ({ repo }) => {
  await withShadow(repo, async (sh) => {
    await drafted(sh);
    const [code] = (await sh.diff({ content: 'patch', paths: ['code.ts'] })).files;
    const id = code!.hunks![0]!.id;
    assert.match(id, /^[0-9a-f]{12}$/);
    // The draft moves: code.ts's diff has other blobs, so other ids.
    await sh.write('code.ts', DRAFT.replace('three', 'THREE'));
    const before = treeHashes(repo.dir);
    const e = await codeOf(() => sh.apply({ hunks: [id] }));
    assert.is(e.code, 'STALE_HUNKS');
    assert.is(statusFor(e.code), 409);
    assert.match(e.hint!, /shadow diff --json/);
    assert.equal(treeHashes(repo.dir), before);
    // The id of the state it is in now applies.
    const [now] = (await sh.diff({ content: 'patch', paths: ['code.ts'] })).files;
    const r = await sh.apply({ hunks: [now!.hunks![0]!.id] });
    assert.ok(r.applied);
    assert.is(repo.read('code.ts'), at({ 3: 'THREE\n' }));
  });
});

Guards('a hunk with a secret that is not chosen needs no approval; one that is chosen does', async ({ repo }) => {
  await withShadow(repo, async (sh) => {
    await drafted(sh);
    const whole = await sh.apply({ dryRun: true });
    assert.equal(
      whole.pendingApprovals.map((a) => a.kind),
      ['secrets_override'],
    );
    const secret = await sh.apply({ hunks: ['code.ts:2'] });
    assert.is(secret.ok, false);
    assert.equal(
      secret.pendingApprovals.map((a) => a.kind),
      ['secrets_override'],
    );
    assert.not.equal(secret.fingerprint, whole.fingerprint, 'the approval would be bound to the hunk, not the draft');
    assert.is(repo.read('code.ts'), BASE.join(''), 'nothing written while approvals are pending');

    const clean = await sh.apply({ hunks: ['code.ts:1'] });
    assert.ok(clean.applied);
    assert.equal(clean.pendingApprovals, []);
    assert.equal(clean.findings.secrets, []);
    assert.is(repo.read('code.ts'), at({ 3: 'three\n' }));
    // What is left is the hunk with the secret: "not yet applied", still guarded.
    const rest = await sh.diff({ content: 'patch' });
    assert.equal(
      rest.files.map((f) => [f.path, f.hunks!.length]),
      [
        ['code.ts', 1],
        ['img.bin', 0],
      ],
    );
    assert.match(rest.files[0]!.patch!, /\+const token/);
  });
});

Guards(
  "the person's own edit elsewhere in the file is merged beside the hunk; unapply puts it back",
  async ({ repo }) => {
    await withShadow(repo, async (sh) => {
      await drafted(sh);
      const mine = at({ 20: 'my own line 20\n' });
      repo.write('code.ts', mine);
      const r = await sh.apply({ hunks: ['code.ts:1'] });
      assert.ok(r.applied);
      assert.equal(
        r.paths.map((p) => [p.path, p.merge]),
        [['code.ts', 'merged']],
      );
      assert.is(repo.read('code.ts'), at({ 3: 'three\n', 20: 'my own line 20\n' }));
      await sh.unapply();
      assert.is(repo.read('code.ts'), mine);
    });
  },
);

Guards(
  'a patch that edits a hunk (as git add -p edits one) writes the edit; the draft keeps the difference',
  async ({ repo }) => {
    await withShadow(repo, async (sh) => {
      await drafted(sh);
      const patch =
        'diff --git a/code.ts b/code.ts\nindex 0000000..0000000 100644\n--- a/code.ts\n+++ b/code.ts\n' +
        '@@ -1,6 +1,6 @@\n line 1\n line 2\n-line 3\n+three, edited\n line 4\n line 5\n line 6\n';
      const r = await sh.apply({ patch });
      assert.ok(r.applied);
      assert.equal(r.partial, [{ path: 'code.ts', chosen: 1, hunks: 2 }]);
      assert.is(repo.read('code.ts'), at({ 3: 'three, edited\n' }));
      const [code] = (await sh.diff({ content: 'patch', paths: ['code.ts'] })).files;
      assert.match(code!.patch!, /-three, edited\n\+three\n/);
    });
  },
);

Guards.run();
