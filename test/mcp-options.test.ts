import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { DiskRepo } from './helpers/disk-repo.js';
import { commits, connect, TOOL_NAMES, type Mcp } from './helpers/mcp-client.js';
import { okJson } from './helpers/tool-outcome.js';

/*
 * The options of `shadow mcp`: which draft and which actor (--draft-per-actor,
 * --draft, --actor), and --allow-apply, under which approvals still hold.
 */

const TOKEN = 'ghp_' + 'k7Q2mZ9xR4tB8wN1vC6yL3pH5sD0fJ2gA9eU'; // made up, shaped like a classic GitHub token

/* ------------------------------------------------------------------------------------------------
 * Which draft, which actor: --draft-per-actor, --draft, --actor.
 * ---------------------------------------------------------------------------------------------- */

const Drafts = suite<{ repo: DiskRepo }>('shadow mcp: --draft-per-actor, --draft, --actor');
Drafts.before((c) => {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n' });
});
Drafts.after((c) => c.repo.cleanup());

Drafts(
  "each client its own draft agent-<name>; --draft pins; --actor overrides the client's name",
  async ({ repo }) => {
    const setups: Array<{ name: string; args: string[]; draft: string; actor: string }> = [
      { name: 'Claude Code', args: ['--draft-per-actor'], draft: 'agent-claude-code', actor: 'Claude Code' },
      { name: 'Cursor Agent/2', args: ['--draft-per-actor'], draft: 'agent-cursor-agent-2', actor: 'Cursor Agent/2' },
      {
        name: 'Claude Code',
        args: ['--draft-per-actor', '--actor', 'Bob Smith'],
        draft: 'agent-bob-smith',
        actor: 'Bob Smith',
      },
      { name: 'pin-client', args: ['--draft', 'pinned'], draft: 'pinned', actor: 'pin-client' },
      {
        name: 'pin-client',
        args: ['--draft', 'pinned-as-alice', '--actor', 'alice'],
        draft: 'pinned-as-alice',
        actor: 'alice',
      },
    ];
    const clients = await Promise.all(setups.map((s) => connect(repo, s.name, s.args)));
    try {
      // All at once, all on the same path: each lands on its own draft.
      const results = await Promise.all(
        clients.map((m, k) =>
          m.call('batch_write', {
            intent: `notes of ${k}`,
            operations: [{ operation: 'write', path: 'notes.md', content: `# notes of ${setups[k]!.actor}\n` }],
          }),
        ),
      );
      for (let k = 0; k < setups.length; k++) {
        const s = setups[k]!;
        const r = okJson(results[k]!);
        assert.equal([r.draft, r.batch], [s.draft, 1], s.draft);
        assert.is(repo.ref(`refs/shadow/drafts/${s.draft}`), r.commit);
        assert.is(repo.git('show', `refs/shadow/drafts/${s.draft}:notes.md`), `# notes of ${s.actor}\n`);
        const [c] = commits(repo, `refs/shadow/drafts/${s.draft}`);
        assert.equal(
          [c!.author, c!.trailers['Shadow-Actor'], c!.trailers['Shadow-Draft']],
          [s.actor, s.actor, s.draft],
        );
        assert.is(okJson(await clients[k]!.call('status', {})).draft, s.draft);
        assert.is(
          (await clients[k]!.call('read_file', { path: 'notes.md' })).text,
          `notes.md (from the draft): lines 1-1 of 1\n     1\t# notes of ${s.actor}`,
        );
        assert.is(okJson(await clients[k]!.call('log', {}))[0].actor, s.actor);
      }
      assert.is(repo.ref('refs/shadow/drafts/default'), undefined);
      assert.equal(readdirSync(repo.path('.git/refs/shadow/drafts')).sort(), setups.map((s) => s.draft).sort());
      assert.is(repo.exists('notes.md'), false);
    } finally {
      await Promise.all(clients.map((m) => m.close()));
    }
  },
);

Drafts('--draft with --draft-per-actor is a usage error (exit 2)', ({ repo }) => {
  const r = repo.shadow(['mcp', '--draft', 'x', '--draft-per-actor'], { input: '' });
  assert.is(r.status, 2, r.stdout + r.stderr);
  assert.is(r.stdout, '');
});

Drafts.run();

/* ------------------------------------------------------------------------------------------------
 * --allow-apply: the person lets the agent publish; approvals still hold.
 * ---------------------------------------------------------------------------------------------- */

const Apply = suite<{ repo: DiskRepo; mcp: Mcp }>('shadow mcp --allow-apply');
Apply.before(async (c) => {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n' });
  c.mcp = await connect(c.repo, 'applier', ['--allow-apply']);
});
Apply.after(async (c) => {
  await c.mcp.close();
  c.repo.cleanup();
});

Apply('apply is listed (destructive) only with --allow-apply', async ({ mcp }) => {
  const tools = (await mcp.client.listTools()).tools;
  assert.equal(
    tools.map((t) => t.name),
    [...TOOL_NAMES, 'apply', 'unapply'],
  );
  assert.is(tools.at(-1)!.annotations?.destructiveHint, true);
});

Apply(
  'a secret: apply_status lists the pending approval (redacted); propose freezes it; nothing is written',
  async ({ repo, mcp }) => {
    okJson(
      await mcp.call('batch_write', {
        intent: 'config',
        operations: [{ operation: 'write', path: 'src/config.ts', content: `export const token = "${TOKEN}";\n` }],
      }),
    );
    const r = await mcp.call('apply_status', {});
    const s = okJson(r);
    assert.is(s.can_apply, false);
    assert.equal(
      s.pending_approvals.map((a: any) => [a.kind, a.paths]),
      [['secrets_override', ['src/config.ts']]],
    );
    assert.not.ok(r.text.includes(TOKEN.slice(4)));
    const p = okJson(await mcp.call('propose', { message: 'add config' }));
    assert.is(p.contains_secret_introductions, true);
    assert.is(repo.ref('refs/shadow/proposals/default'), p.commit);
    assert.is(repo.exists('src/config.ts'), false);
    assert.is(repo.git('status', '--porcelain'), '');
  },
);

Apply('apply while approvals are pending writes nothing and is an error naming them', async ({ repo, mcp }) => {
  const review = repo.shadow(['review', '--json']).json();
  const id = review.approvals[0].id as string;
  const r = await mcp.call('apply', {});
  assert.is(repo.exists('src/config.ts'), false);
  assert.ok(r.text.includes(id), r.text.slice(0, 500));
  assert.not.ok(r.text.includes(TOKEN.slice(4)));
  assert.is(r.isError, true, `apply wrote nothing but returned a success result:\n${r.text.slice(0, 300)}`);
});

Apply('approved by the person (shadow approve), apply publishes into the working tree', async ({ repo, mcp }) => {
  const review = repo.shadow(['review', '--json']).json();
  const id = review.approvals[0].id as string;
  const a = repo.shadow(['approve', id, '--reason', 'test fixture', '--actor', 'the person']);
  assert.is(a.status, 0, a.stdout + a.stderr);
  const r = okJson(await mcp.call('apply', {}));
  assert.equal([r.ok, r.applied], [true, true]);
  assert.is(repo.read('src/config.ts'), `export const token = "${TOKEN}";\n`);
  assert.is(repo.read('README.md'), 'Hello\n');
  assert.is(mcp.stderr(), '');
});

Apply.run();
