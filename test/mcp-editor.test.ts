import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import AjvModule from 'ajv/dist/2020.js';
import { DiskRepo, treeHashes } from './helpers/disk-repo.js';
import { commits, connect, fsck, showAll, type Commit, type Mcp, type Outcome } from './helpers/mcp-client.js';
import { codeOf } from './helpers/tool-outcome.js';

/*
 * `shadow mcp --tools anthropic` over stdio, spoken to by the MCP SDK's own
 * client (which holds every structuredContent to the tool's outputSchema):
 * the text editor tool's commands on a real repository, each write one
 * commit on the draft's ref as native git sees it, byte for byte; a stale
 * edit (the file changed by another agent between view and str_replace)
 * that fails and keeps the other agent's change; and two agents writing to
 * one draft at once, through the editor and the filesystem shapes.
 */

const Ajv2020 = AjvModule.default;
const DRAFT = 'refs/shadow/drafts/default';

const FILES = {
  'README.md': '# demo\n',
  'src/primes.py':
    'def is_prime(n):\n    if n < 2:\n        return False\n    for i in range(2, n):\n        if n % i == 0:\n            return False\n    return True\n',
  'src/util.py': 'def double(x):\n    return x * 2\n',
};

interface Ctx {
  repo: DiskRepo;
  claude: Mcp;
  codex: Mcp;
  worktree: Record<string, string>;
}

const Editor = suite<Ctx>('shadow mcp --tools anthropic over stdio');
Editor.before(async (c) => {
  c.repo = new DiskRepo(FILES);
  c.worktree = treeHashes(c.repo.dir);
  [c.claude, c.codex] = await Promise.all([
    connect(c.repo, 'Claude Code', ['--tools', 'anthropic']),
    connect(c.repo, 'Codex', ['--tools', 'anthropic,filesystem']),
  ]);
});
Editor.after(async (c) => {
  await Promise.all([c.claude.close(), c.codex.close()]);
  c.repo.cleanup();
});

const ed = (mcp: Mcp, args: Record<string, unknown>): Promise<Outcome> => mcp.call('str_replace_based_edit_tool', args);
const ok = (r: Outcome): Outcome => {
  assert.is(r.isError, false, r.text);
  return r;
};
const atTip = (repo: DiskRepo, path: string): string => showAll(repo, DRAFT, [path]).get(path)!;
/** The draft's batch commits, newest first (not the captures of working-tree state a first touch records). */
const batchCommits = (repo: DiskRepo): Commit[] =>
  commits(repo, `main..${DRAFT}`).filter((c) => c.trailers['Shadow-Batch'] !== undefined);

Editor(
  'tools/list: the editor in both its names (str_replace_editor with undo_edit), as `shadow tools --tools anthropic` prints them; their schemas compile strictly; the instructions name them',
  async ({ repo, claude }) => {
    const listed = (await claude.client.listTools()).tools;
    assert.equal(
      listed.map((t) => t.name),
      ['str_replace_based_edit_tool', 'str_replace_editor'],
    );
    const printed = repo.shadow(['tools', '--format', 'mcp', '--tools', 'anthropic']);
    assert.is(printed.status, 0, printed.stderr);
    const defs = printed.json() as any[];
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    for (const [i, t] of listed.entries()) {
      assert.equal(
        {
          name: t.name,
          title: t.title,
          description: t.description,
          inputSchema: t.inputSchema,
          outputSchema: t.outputSchema,
          annotations: t.annotations,
        },
        defs[i],
      );
      ajv.compile(t.inputSchema);
      ajv.compile(t.outputSchema!);
      assert.equal([t.annotations?.readOnlyHint, t.annotations?.destructiveHint], [false, true]);
    }
    assert.equal(
      listed.map((t) => (t.inputSchema.properties as any).command.enum),
      [
        ['view', 'create', 'str_replace', 'insert'],
        ['view', 'create', 'str_replace', 'insert', 'undo_edit'],
      ],
    );
    assert.match(claude.client.getInstructions() ?? '', /str_replace_based_edit_tool \(str_replace_editor/);
    const anthropic = repo.shadow(['tools', '--format', 'anthropic', '--tools', 'anthropic']).json();
    assert.equal(anthropic, [
      { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
      { type: 'text_editor_20250124', name: 'str_replace_editor' },
    ]);
  },
);

Editor(
  'create, view, view_range, str_replace, insert, undo_edit: one commit per write by the client, the bytes native git reads, the working tree untouched',
  async ({ repo, claude, worktree }) => {
    const abs = `${repo.dir}/src/sieve.py`;
    const created = ok(await ed(claude, { command: 'create', path: abs, file_text: 'def sieve(n):\n    return []\n' }));
    assert.equal(created.structured, {
      command: 'create',
      path: abs,
      draft: 'default',
      batch: 1,
      commit: repo.ref(DRAFT),
      oid: repo.git('rev-parse', `${DRAFT}:src/sieve.py`).trim(),
    });
    const view = ok(await ed(claude, { command: 'view', path: `${repo.dir}/src/primes.py`, view_range: [1, 3] }));
    assert.is(
      view.text,
      `Here's the result of running \`cat -n\` on ${repo.dir}/src/primes.py:\n     1\tdef is_prime(n):\n     2\t    if n < 2:\n     3\t        return False\n`,
    );
    assert.equal([view.structured!.start_line, view.structured!.end_line, view.structured!.total_lines], [1, 3, 8]);
    ok(
      await ed(claude, {
        command: 'str_replace',
        path: 'src/primes.py',
        old_str: '    for i in range(2, n):',
        new_str: '    for i in range(2, int(n ** 0.5) + 1):',
      }),
    );
    ok(await ed(claude, { command: 'insert', path: 'src/primes.py', insert_line: 0, insert_text: '"""Primes."""' }));
    const dir = ok(await ed(claude, { command: 'view', path: repo.dir }));
    assert.match(dir.text, new RegExp(`\n${repo.dir}/src/sieve\\.py\n`));

    const log = batchCommits(repo);
    assert.equal(
      log.map((c) => [c.author, c.trailers['Shadow-Batch']]),
      [
        ['Claude Code', '3'],
        ['Claude Code', '2'],
        ['Claude Code', '1'],
      ],
    );
    const primes = FILES['src/primes.py'].replace('range(2, n)', 'range(2, int(n ** 0.5) + 1)');
    assert.is(atTip(repo, 'src/primes.py'), `"""Primes."""\n${primes}`);
    assert.is(atTip(repo, 'src/sieve.py'), 'def sieve(n):\n    return []\n');

    const undo = ok(await claude.call('str_replace_editor', { command: 'undo_edit', path: 'src/primes.py' }));
    assert.is(undo.structured!.undone, 3);
    assert.is(atTip(repo, 'src/primes.py'), primes);
    assert.match(batchCommits(repo)[0]!.subject, /^revert batch 3 /);
    ok(await claude.call('str_replace_editor', { command: 'undo_edit', path: 'src/primes.py' }));
    assert.is(atTip(repo, 'src/primes.py'), FILES['src/primes.py']);
    assert.is(batchCommits(repo).length, 5);
    assert.equal(treeHashes(repo.dir), worktree);
    fsck(repo);
  },
);

Editor(
  'errors: isError with the code first in the text and in structuredContent; no match names the closest lines, several matches their lines; nothing committed',
  async ({ repo, claude }) => {
    const tip = repo.ref(DRAFT);
    ok(await ed(claude, { command: 'view', path: 'src/util.py' }));
    const none = await ed(claude, {
      command: 'str_replace',
      path: 'src/util.py',
      old_str: 'return x*2',
      new_str: 'return x + x',
    });
    assert.is(codeOf(none), 'EDIT_NO_MATCH');
    assert.match(none.text, /closest lines:\n {5}2\t {4}return x \* 2/);
    assert.is((none.structured!.error as any).code, 'EDIT_NO_MATCH');
    const many = await ed(claude, {
      command: 'str_replace',
      path: 'src/primes.py',
      old_str: 'return False',
      new_str: 'return 0',
    });
    assert.is(codeOf(many), 'EDIT_AMBIGUOUS');
    assert.equal((many.structured!.error as any).data.lines, [3, 6]);
    assert.is(codeOf(await ed(claude, { command: 'view', path: '/etc/passwd' })), 'INVALID_PATH');
    assert.is(codeOf(await ed(claude, { command: 'create', path: 'README.md', file_text: 'gone' })), 'ALREADY_EXISTS');
    assert.is(repo.ref(DRAFT), tip);
  },
);

Editor(
  'a stale edit: another agent changes the file between view and str_replace; the edit fails (EXPECT_FAILED), nothing is clobbered; after a new view it lands on top',
  async ({ repo, claude, codex }) => {
    ok(await ed(claude, { command: 'view', path: 'src/util.py' }));
    ok(
      await codex.call('edit_file', {
        path: `${repo.dir}/src/util.py`,
        edits: [{ oldText: 'def double(x):\n', newText: 'def double(x: int) -> int:\n' }],
      }),
    );
    const theirs = atTip(repo, 'src/util.py');
    const tip = repo.ref(DRAFT);
    const stale = await ed(claude, {
      command: 'str_replace',
      path: 'src/util.py',
      old_str: '    return x * 2',
      new_str: '    return x << 1',
    });
    assert.is(codeOf(stale), 'EXPECT_FAILED');
    assert.match(stale.text, /changed since you last viewed it/);
    assert.is(repo.ref(DRAFT), tip);
    assert.is(atTip(repo, 'src/util.py'), theirs);
    ok(await ed(claude, { command: 'view', path: 'src/util.py' }));
    ok(
      await ed(claude, {
        command: 'str_replace',
        path: 'src/util.py',
        old_str: '    return x * 2',
        new_str: '    return x << 1',
      }),
    );
    assert.is(atTip(repo, 'src/util.py'), 'def double(x: int) -> int:\n    return x << 1\n');
    assert.equal(
      batchCommits(repo)
        .slice(0, 2)
        .map((c) => c.author),
      ['Claude Code', 'Codex'],
    );
  },
);

Editor(
  'two agents on one draft at once: every write lands as its own commit or fails as a conflict, never lost; the same file edited by both keeps every landed edit',
  async ({ repo, claude, codex }) => {
    const before = batchCommits(repo).length;
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i}`);
    ok(await ed(claude, { command: 'create', path: 'shared.txt', file_text: `${lines.join('\n')}\n` }));
    ok(await ed(claude, { command: 'view', path: 'shared.txt' }));
    ok(await ed(codex, { command: 'view', path: 'shared.txt' }));
    const calls: Array<Promise<Outcome>> = [];
    for (let i = 0; i < 6; i++) {
      calls.push(ed(claude, { command: 'create', path: `claude/${i}.txt`, file_text: `c${i}\n` }));
      calls.push(codex.call('write_file', { path: `codex/${i}.txt`, content: `x${i}\n` }));
      calls.push(
        ed(i % 2 ? claude : codex, {
          command: 'str_replace',
          path: 'shared.txt',
          old_str: `line ${i * 2}\n`,
          new_str: `LINE ${i * 2} by ${i % 2 ? 'claude' : 'codex'}\n`,
        }),
      );
    }
    const out = await Promise.all(calls);
    const landed = out.filter((r) => !r.isError);
    for (const r of out.filter((x) => x.isError))
      assert.ok(['EXPECT_FAILED', 'CONFLICT', 'BUSY'].includes(codeOf(r)), r.text);
    const files = out.filter((_, i) => i % 3 !== 2);
    assert.ok(
      files.every((r) => !r.isError),
      'a write to a file of its own failed',
    );
    assert.is(batchCommits(repo).length, before + 1 + landed.length);
    const tip = showAll(repo, DRAFT, [
      'shared.txt',
      ...[0, 1, 2, 3, 4, 5].flatMap((i) => [`claude/${i}.txt`, `codex/${i}.txt`]),
    ]);
    for (let i = 0; i < 6; i++)
      assert.equal([tip.get(`claude/${i}.txt`), tip.get(`codex/${i}.txt`)], [`c${i}\n`, `x${i}\n`]);
    // Each landed str_replace is in the file; each that failed left its line as it was.
    const shared = tip.get('shared.txt')!;
    assert.ok(
      out.some((r, i) => i % 3 === 2 && !r.isError),
      'no edit of shared.txt landed',
    );
    out.forEach((r, i) => {
      if (i % 3 !== 2) return;
      const k = ((i - 2) / 3) * 2;
      assert.is(shared.includes(`LINE ${k} by`), !r.isError, `edit of line ${k}: ${r.text.slice(0, 200)}`);
      assert.is(shared.includes(`line ${k}\n`), r.isError, `line ${k}`);
    });
    fsck(repo);
  },
);

Editor.run();
