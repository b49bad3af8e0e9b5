import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withShadow } from './helpers/disk-repo.js';
import { failsJson, failsText, fresh, OID, ok, seed, type Ctx } from './helpers/cli-repo.js';

/**
 * `shadow draft new, list, show, drop` on a real repository, in text and
 * with --json, checked against the refs native git sees.
 */

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
  assert.is(
    ok(repo.shadow(['draft', 'new', '--json'], { env: { SHADOW_DRAFT: 'from-env' } }), 'draft new $SHADOW_DRAFT').name,
    'from-env',
  );
  assert.is(
    ok(
      repo.shadow(['draft', 'new', '--draft', 'from-flag', '--json'], { env: { SHADOW_DRAFT: 'from-env2' } }),
      'draft new --draft',
    ).name,
    'from-flag',
  );
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
  assert.equal(
    list.map((d: any) => d.name),
    ['default', 'feature', 'from-env', 'from-flag', 'older'],
  );
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

Drafts(
  'draft drop keeps the tip and checkpoints under refs/shadow/archive/; --purge deletes for good',
  async ({ repo }) => {
    const tip = await seed(
      repo,
      [
        { operation: 'write', path: 'a.txt', content: 'a\n' },
        { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hi' },
      ],
      { draft: 'w' },
    );
    const cpTag = await withShadow(repo, async (sh) => (await sh.checkpoint('c1', { draft: 'w' })).tag);

    const r = repo.shadow(['draft', 'drop', 'w']);
    ok(r, 'draft drop');
    const m =
      /^dropped draft w; its work is kept at (refs\/shadow\/archive\/w\/\d{8}T\d{6}\.\d{3}Z)\/tip \(shadow draft new <name> --from refs\/shadow\/archive\/w\/\d{8}T\d{6}\.\d{3}Z\/tip brings it back\)\n$/.exec(
        r.stdout,
      );
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
    assert.equal(ok(repo.shadow(['draft', 'drop', 'gone', '--purge', '--json']), 'draft drop --purge'), {
      draft: 'gone',
    });
    assert.is(
      repo.git('for-each-ref', 'refs/shadow/drafts/gone', 'refs/shadow/checkpoints/gone', 'refs/shadow/archive/gone'),
      '',
    );

    failsJson(repo.shadow(['draft', 'drop', 'never', '--json']), 'DRAFT_NOT_FOUND', 'draft drop never');
  },
);

Drafts('draft new --from an archive brings the dropped work back into the view', async ({ repo }) => {
  const tip = await seed(
    repo,
    [
      { operation: 'write', path: 'a.txt', content: 'a\n' },
      { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hi' },
    ],
    { draft: 'w' },
  );
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
  const stamp = (ms: number): string =>
    new Date(ms)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
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
