import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import { scanChanges } from '../src/review/change-secrets.js';
import type { Shadow } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { codeOf } from './helpers/caught.js';

const TOKEN = 'ghp_' + 'k7Q2mZ9xR4tB8wN1vC6yL3pH5sD0fJ2gA9eU'; // made up, shaped like a classic GitHub token
const CACHE = '/repo/.git/shadow/drafts/default/commit-secrets.cache';

// ---------------------------------------------------------------- the scan of one set of changes

const Scan = suite('scanChanges');

const blob = (n: number): string => n.toString(16).padStart(40, '0');
const file = (n: number): { mode: string; oid: string } => ({ mode: '100644', oid: blob(n) });

Scan(
  "only added lines count, numbered in the new content; deletions add nothing; binaries and gitlinks are listed, never read; a file in a gitlink's place is all new",
  () => {
    const contents = new Map<string, Buffer>([
      [blob(1), Buffer.from(`a\nkey = "${TOKEN}"\n`)],
      [blob(2), Buffer.from(`a\nb\nkey = "${TOKEN}"\n`)], // the token line was already there
      [blob(3), Buffer.from(`x\n\ny = "${TOKEN}"\n`)],
      [blob(4), Buffer.concat([Buffer.from([0, 1]), Buffer.from(TOKEN)])],
    ]);
    const read = (oid: string): Buffer => {
      const b = contents.get(oid);
      if (!b) throw new Error(`read ${oid}`);
      return b;
    };
    const r = scanChanges(
      [
        { path: 'kept.ts', old: file(1), new: file(2) },
        { path: 'new.ts', old: null, new: file(3) },
        { path: 'gone.ts', old: file(1), new: null },
        { path: 'blob.bin', old: null, new: file(4) },
        { path: 'sub', old: null, new: { mode: '160000', oid: blob(9) } },
        // A submodule replaced by a file: the file's lines are all new.
        { path: 'was-sub.ts', old: { mode: '160000', oid: blob(8) }, new: file(1) },
      ],
      read,
    );
    assert.equal(
      r.secrets.map((s) => [s.path, s.line, s.rule, s.redacted.slice(0, 4)]),
      [
        ['new.ts', 3, 'github-token', 'ghp_'],
        ['was-sub.ts', 2, 'github-token', 'ghp_'],
      ],
    );
    assert.equal(r.unscanned, ['blob.bin', 'sub']);
    assert.not.match(JSON.stringify(r), TOKEN.slice(4));
  },
);

Scan(
  "a path a change adds is scanned as a path, masked in the finding; a path already there is not the change's",
  () => {
    const read = (): Buffer => Buffer.from('x\n');
    const r = scanChanges(
      [
        { path: `keys/${TOKEN}.txt`, old: null, new: file(1) },
        { path: `old/${TOKEN}.txt`, old: file(1), new: file(2) },
      ],
      read,
    );
    assert.equal(
      r.secrets.map((s) => [s.where, s.path, s.rule]),
      [['path', 'keys/ghp_****************.txt', 'github-token']],
    );
    assert.not.match(JSON.stringify(r), TOKEN.slice(4));
  },
);

Scan.run();

// ---------------------------------------------------------------- the guard over a draft's commits

const Guard = suite<{ repo: MemRepo; sh: Shadow }>('secrets in the commits a publish puts on the branch');
Guard.before.each(async (c) => {
  c.repo = await memRepo({ 'README.md': 'Hello\n', 'settings.py': 'DEBUG = False\n' });
  c.sh = await c.repo.open();
});

async function tokenThenFix(sh: Shadow): Promise<string> {
  await sh.write('src/gh.ts', `export const token = "${TOKEN}";\n`);
  const added = (await sh.log())[0]!.commit;
  await sh.write('src/gh.ts', 'export const token = process.env.GITHUB_TOKEN;\n');
  return added;
}

Guard(
  'each scan is cached by commit id under the rules it was made with: a second apply reads it, other rules ignore it',
  async ({ repo, sh }) => {
    const added = await tokenThenFix(sh);
    const first = await sh.apply({ commit: true, dryRun: true });
    assert.equal(
      first.pendingApprovals.map((a) => a.commit),
      [added],
    );
    const saved = JSON.parse(String(repo.fs.readFileSync(CACHE, 'utf8')));
    const tip = (await sh.log())[0]!.commit;
    assert.equal(Object.keys(saved.commits).sort(), [added, tip].sort());
    assert.equal(saved.commits[tip], { secrets: [], unscanned: [] });
    assert.not.match(JSON.stringify(saved), TOKEN.slice(4), 'only redacted values are kept');
    // A doctored entry for the clean commit shows that the cache, not a new scan, answers.
    saved.commits[tip] = { secrets: [{ ...saved.commits[added].secrets[0], path: 'planted.ts' }], unscanned: [] };
    repo.fs.writeFileSync(CACHE, JSON.stringify(saved));
    const again = await sh.apply({ commit: true, dryRun: true });
    assert.equal(
      again.pendingApprovals.map((a) => a.commit),
      [added, tip],
    );
    assert.equal(again.pendingApprovals[1]!.paths, ['planted.ts']);
    repo.fs.writeFileSync(CACHE, JSON.stringify({ ...saved, rules: 'other rules' }));
    const rescanned = await sh.apply({ commit: true, dryRun: true });
    assert.equal(
      rescanned.pendingApprovals.map((a) => a.commit),
      [added],
    );
  },
);

Guard(
  "a capture commit is scanned: the user's own uncommitted token would reach the branch with --commit or --squash, not with a files-only apply",
  async ({ repo, sh }) => {
    repo.write('settings.py', `DEBUG = False\nAPI_TOKEN = "${TOKEN}"\n`);
    const b = await sh.edit('settings.py', 'DEBUG = False', 'DEBUG = True');
    assert.ok(b.success);
    const [batch] = await sh.log();
    assert.equal(batch!.captured, ['settings.py'], 'the user state was captured');
    const capture = (await git.readCommit({ fs: repo.fs, dir: repo.dir, oid: batch!.commit })).commit.parent[0]!;
    assert.equal((await sh.review()).secrets, [], 'the final diff adds no secret');
    assert.equal((await sh.apply({ dryRun: true })).pendingApprovals, []);
    const commit = await sh.apply({ commit: true, dryRun: true });
    assert.equal(
      commit.pendingApprovals.map((a) => [a.kind, a.when, a.commit]),
      [['secrets_override', 'commit', capture]],
    );
    assert.match(commit.pendingApprovals[0]!.reason, /captured before batch 1/);
    const squash = await sh.apply({ squash: 'debug on', dryRun: true });
    assert.equal(
      squash.pendingApprovals.map((a) => [a.kind, a.when]),
      [['secrets_override', 'squash']],
    );
    assert.match(squash.pendingApprovals[0]!.fingerprint, /^squash:[0-9a-f]{64}$/);
    await sh.approve(squash.pendingApprovals[0]!.id);
    const done = await sh.apply({ squash: 'debug on' });
    assert.is(done.applied, true);
    assert.is(done.branch?.how, 'squash');
  },
);

Guard(
  'a deny sticks to the commits that added the denied secret, through later batches; a rollback past them asks nothing',
  async ({ sh }) => {
    await sh.write('src/gh.ts', `export const token = "${TOKEN}";\n`);
    const added = (await sh.log())[0]!.commit;
    const id = (await sh.review()).approvals[0]!.id;
    await sh.deny(id, { reason: 'no tokens', actor: 'bob' });
    const decision = (await sh.events()).find((e) => e.type === 'approval/decision')!;
    assert.equal(decision.data.commits, [added]);
    await sh.write('src/gh.ts', 'export const token = process.env.GITHUB_TOKEN;\n');
    await sh.write('other.txt', 'more\n');
    const r = await sh.review();
    assert.equal(r.approvals, []);
    assert.equal(
      r.branch_approvals.map((a) => [a.commit, a.status, a.decided_by]),
      [[added, 'denied', 'bob']],
    );
    assert.is(await codeOf(() => sh.apply({ commit: true })), 'DENIED');
    assert.is((await sh.apply({ dryRun: true })).pendingApprovals.length, 0, 'files only: no commit is published');
    await sh.rollback('~3');
    await sh.write('src/gh.ts', 'export const token = process.env.GITHUB_TOKEN;\n');
    const clean = await sh.apply({ commit: true });
    assert.is(clean.applied, true);
    assert.is(clean.branch?.how, 'fast-forward');
  },
);

Guard(
  "a token in a batch's intent, actor or model asks a secrets_override for its commit, naming the field; the final diff asks none",
  async ({ sh }) => {
    const cases: Array<[string, { intent?: string }, { actor?: string; model?: string }]> = [
      ['message', { intent: `use ${TOKEN}` }, {}],
      ['author', {}, { actor: `bot-${TOKEN}` }],
      ['message', {}, { model: `model-${TOKEN}` }],
    ];
    for (const [i, [where, input, options]] of cases.entries()) {
      const draft = `d${i}`;
      const b = await sh.batch(
        { ...input, operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] },
        { ...options, draft },
      );
      assert.ok(b.success, JSON.stringify(b));
      assert.equal(
        (await sh.apply({ draft, dryRun: true })).pendingApprovals,
        [],
        'files only: no commit is published',
      );
      const r = await sh.apply({ draft, commit: true, dryRun: true });
      assert.equal(
        r.pendingApprovals.map((a) => [a.kind, a.when, a.commit, a.paths]),
        [['secrets_override', 'commit', b.commit, []]],
      );
      assert.ok(
        r.findings.commits![0]!.secrets.some((s) => s.where === where),
        `${where}: ${JSON.stringify(r.findings.commits)}`,
      );
      assert.match(r.pendingApprovals[0]!.reason, `the commit ${where}`);
      assert.not.match(JSON.stringify(r), TOKEN.slice(4));
    }
  },
);

Guard.run();
