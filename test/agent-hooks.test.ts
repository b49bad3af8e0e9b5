/**
 * `shadow hook`, run as the agents run it: the command `shadow init` wrote,
 * through `sh -c`, the tool call on stdin. An edit inside the repository
 * lands in the draft as one batch and the agent's own tool is refused with
 * a reason the model can act on (in the agent's documented output format,
 * helpers/agent-schemas.ts); an edit shadow cannot take is refused and
 * writes nothing; what is not the repository's passes. The working tree is
 * never written.
 */
import { spawnSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ClaudePreToolUseOutput, GeminiBeforeToolOutput } from './helpers/agent-schemas.js';
import { DiskRepo, treeHashes } from './helpers/disk-repo.js';

interface Answer {
  status: number;
  stdout: string;
  stderr: string;
}

/** The hook command as `shadow init <agent>` registered it. */
function hookCommand(repo: DiskRepo, agent: 'claude' | 'gemini'): string {
  const r = repo.shadow(['init', agent]);
  assert.is(r.status, 0, r.stderr);
  const settings = JSON.parse(repo.read(agent === 'claude' ? '.claude/settings.json' : '.gemini/settings.json'));
  return (agent === 'claude' ? settings.hooks.PreToolUse : settings.hooks.BeforeTool)[0].hooks[0].command;
}

function run(repo: DiskRepo, command: string, input: unknown, env: Record<string, string> = {}): Answer {
  // Agents run hooks in the project; HOME and the rest as the test repository has them.
  const r = spawnSync('sh', ['-c', command], {
    cwd: repo.dir,
    env: { ...repo.env, ...env },
    input: typeof input === 'string' ? input : JSON.stringify(input),
    encoding: 'utf8',
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function claude(repo: DiskRepo, command: string, tool: string, toolInput: Record<string, unknown>): Answer {
  return run(repo, command, {
    session_id: 's1',
    transcript_path: '/tmp/t.jsonl',
    cwd: repo.dir,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: toolInput,
  });
}

/** The reason of a Claude Code deny, checked against the documented output. */
function denied(a: Answer): string {
  assert.is(a.status, 0, a.stderr);
  const out = JSON.parse(a.stdout);
  const check = ClaudePreToolUseOutput.safeParse(out);
  assert.ok(check.success, JSON.stringify(check.error?.issues));
  assert.is(out.hookSpecificOutput.permissionDecision, 'deny');
  return out.hookSpecificOutput.permissionDecisionReason as string;
}

function cat(repo: DiskRepo, path: string): string {
  const r = repo.shadow(['cat', path]);
  assert.is(r.status, 0, r.stderr);
  return r.stdout;
}

function withRepo(f: (repo: DiskRepo) => void): void {
  const repo = new DiskRepo({ 'README.md': 'Hello\n', 'src/app.ts': 'export const a = 1;\nexport const b = 2;\n' });
  try {
    f(repo);
  } finally {
    repo.cleanup();
  }
}

const Claude = suite('shadow hook claude-pre-tool-use');

Claude(
  'Write, Edit and MultiEdit land in the draft, one batch each; the tool is refused with the batch and the tools to use',
  () => {
    withRepo((repo) => {
      const command = hookCommand(repo, 'claude');
      const tree = treeHashes(repo.dir);
      const w = denied(
        claude(repo, command, 'Write', { file_path: repo.path('src/new.ts'), content: 'export const n = 0;\n' }),
      );
      assert.match(
        w,
        /^shadow took this Write into its draft "default": src\/new\.ts changed in the draft as batch 1\./,
      );
      assert.match(w, /mcp__shadow__read_file/);
      assert.match(w, /mcp__shadow__batch_write/);
      assert.is(cat(repo, 'src/new.ts'), 'export const n = 0;\n');

      assert.match(
        denied(
          claude(repo, command, 'Edit', {
            file_path: repo.path('README.md'),
            old_string: 'Hello',
            new_string: 'Hello, world',
          }),
        ),
        /as batch 2\./,
      );
      const multi = denied(
        claude(repo, command, 'MultiEdit', {
          file_path: repo.path('src/app.ts'),
          edits: [
            { old_string: 'a = 1', new_string: 'a = 10' },
            { old_string: 'b = 2', new_string: 'b = 20' },
          ],
        }),
      );
      assert.match(multi, /as batch 3\./);
      assert.is(cat(repo, 'src/app.ts'), 'export const a = 10;\nexport const b = 20;\n');
      assert.is(cat(repo, 'README.md'), 'Hello, world\n');

      // The same Write again: already in the draft, no new batch.
      assert.match(
        denied(
          claude(repo, command, 'Write', { file_path: repo.path('src/new.ts'), content: 'export const n = 0;\n' }),
        ),
        /already holds this change \(no new batch\)/,
      );
      const log = repo.shadow(['log', '--json']).json();
      assert.equal(
        log.batches.map((b: { intent: string }) => b.intent),
        ['MultiEdit src/app.ts', 'Edit README.md', 'Write src/new.ts'],
      );
      assert.equal(treeHashes(repo.dir), tree, 'the working tree is untouched');
    });
  },
);

Claude('an edit that does not apply is refused with the error and the closest lines, and writes nothing', () => {
  withRepo((repo) => {
    const command = hookCommand(repo, 'claude');
    const reason = denied(
      claude(repo, command, 'Edit', {
        file_path: repo.path('src/app.ts'),
        old_string: 'export const a = 3;',
        new_string: 'x',
      }),
    );
    assert.match(
      reason,
      /^shadow did not take this Edit into its draft "default", and nothing was written anywhere:\nEDIT_NO_MATCH: /,
    );
    assert.match(reason, /export const a = 1;/, 'the closest line');
    assert.match(reason, /Read src\/app\.ts as the draft holds it with mcp__shadow__read_file/);
    const all = denied(
      claude(repo, command, 'Edit', {
        file_path: repo.path('src/app.ts'),
        old_string: 'const',
        new_string: 'let',
        replace_all: true,
      }),
    );
    assert.match(all, /cannot take this Edit call \(replace_all\); nothing was written/);
    const odd = denied(claude(repo, command, 'MultiEdit', { file_path: repo.path('src/app.ts'), edits: 'no' }));
    assert.match(odd, /its arguments are not the ones this hook knows/);
    assert.is(repo.ref('refs/shadow/drafts/default'), undefined, 'no draft was made');
  });
});

Claude(
  "what is not the repository's passes: a file outside it, another tool; input that is not a tool call is refused",
  () => {
    withRepo((repo) => {
      const command = hookCommand(repo, 'claude');
      for (const [tool, input] of [
        ['Write', { file_path: `${repo.root}/elsewhere.txt`, content: 'x' }],
        ['Edit', { file_path: '/etc/hostname', old_string: 'a', new_string: 'b' }],
        ['Read', { file_path: repo.path('README.md') }],
        ['Bash', { command: 'ls' }],
        ['NotebookEdit', { notebook_path: `${repo.root}/elsewhere.ipynb`, new_source: 'x' }],
      ] as const) {
        const a = claude(repo, command, tool, input);
        assert.is(a.status, 0, a.stderr);
        assert.is(a.stdout, '{}\n', `${tool} passes with an answer that decides nothing`);
        assert.ok(ClaudePreToolUseOutput.safeParse(JSON.parse(a.stdout)).success);
      }
      assert.match(
        denied(run(repo, command, 'not json')),
        /^shadow's hook could not take this edit into the draft, so it is refused \(nothing was written\):\nthe hook's input is not JSON/,
      );
      assert.match(denied(run(repo, command, '[1]')), /not a JSON object/);
      // A path shadow refuses (inside .git) is refused with shadow's error, not written there.
      assert.match(
        denied(claude(repo, command, 'Write', { file_path: repo.path('.git/config2'), content: 'x' })),
        /INVALID_BATCH: .*goes into \.git, which shadow never writes/,
      );
      assert.not.ok(repo.exists('.git/config2'));
    });
  },
);

Claude('NotebookEdit on a notebook of the repository is refused with what to use instead, and writes nothing', () => {
  withRepo((repo) => {
    const command = hookCommand(repo, 'claude');
    const nb = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n';
    repo.write('a.ipynb', nb);
    const tree = treeHashes(repo.dir);
    const reason = denied(
      claude(repo, command, 'NotebookEdit', {
        notebook_path: repo.path('a.ipynb'),
        cell_id: 'c1',
        new_source: 'print(1)',
        cell_type: 'code',
        edit_mode: 'insert',
      }),
    );
    assert.match(
      reason,
      /cannot take this NotebookEdit call \(a notebook cell edit; write the whole \.ipynb file instead\); nothing was written/,
    );
    assert.match(reason, /mcp__shadow__read_file.*mcp__shadow__batch_write/);
    assert.match(
      denied(claude(repo, command, 'NotebookEdit', { new_source: 'x' })),
      /its arguments are not the ones this hook knows/,
    );
    assert.equal(treeHashes(repo.dir), tree);
    assert.is(repo.read('a.ipynb'), nb);
    assert.is(repo.ref('refs/shadow/drafts/default'), undefined);
  });
});

Claude("relative paths are from the agent's cwd; SHADOW_DRAFT picks the draft, as for shadow mcp", () => {
  withRepo((repo) => {
    const command = hookCommand(repo, 'claude');
    const a = run(
      repo,
      command,
      {
        cwd: repo.path('src'),
        hook_event_name: 'PreToolUse',
        tool_name: 'Write',
        tool_input: { file_path: 'deep/x.ts', content: 'x\n' },
      },
      { SHADOW_DRAFT: 'feature' },
    );
    assert.match(denied(a), /into its draft "feature": src\/deep\/x\.ts changed in the draft as batch 1/);
    assert.is(repo.shadow(['cat', 'src/deep/x.ts', '--draft', 'feature']).stdout, 'x\n');
    assert.match(repo.git('log', '-1', '--format=%an%n%B', 'refs/shadow/drafts/feature'), /^claude-code\n/);
  });
});

const Gemini = suite('shadow hook gemini-before-tool');

function gemini(
  repo: DiskRepo,
  command: string,
  tool: string,
  toolInput: Record<string, unknown>,
): Record<string, unknown> {
  const a = run(repo, command, {
    session_id: 's',
    transcript_path: '/tmp/t',
    cwd: repo.dir,
    hook_event_name: 'BeforeTool',
    timestamp: new Date().toISOString(),
    tool_name: tool,
    tool_input: toolInput,
  });
  assert.is(a.status, 0, a.stderr);
  const out = JSON.parse(a.stdout);
  const check = GeminiBeforeToolOutput.safeParse(out);
  assert.ok(check.success, JSON.stringify(check.error?.issues));
  return out;
}

Gemini(
  'write_file and replace land in the draft and are refused with a reason; other tools and paths pass with {}',
  () => {
    withRepo((repo) => {
      const command = hookCommand(repo, 'gemini');
      const w = gemini(repo, command, 'write_file', { file_path: repo.path('notes.md'), content: '# notes\n' });
      assert.is(w.decision, 'deny');
      assert.match(
        String(w.reason),
        /^shadow took this write_file into its draft "default": notes\.md changed in the draft as batch 1\./,
      );
      assert.match(String(w.reason), /batch_write/);
      const r = gemini(repo, command, 'replace', {
        file_path: repo.path('README.md'),
        old_string: 'Hello',
        new_string: 'Hi',
        instruction: 'greet',
      });
      assert.match(String(r.reason), /as batch 2\./);
      assert.is(cat(repo, 'README.md'), 'Hi\n');
      assert.is(repo.read('README.md'), 'Hello\n');
      assert.match(
        String(
          gemini(repo, command, 'replace', {
            file_path: repo.path('README.md'),
            old_string: 'l',
            new_string: 'L',
            expected_replacements: 2,
          }).reason,
        ),
        /expected_replacements 2/,
      );
      assert.equal(gemini(repo, command, 'read_file', { file_path: repo.path('README.md') }), {});
      assert.equal(gemini(repo, command, 'write_file', { file_path: `${repo.root}/outside.txt`, content: 'x' }), {});
      assert.match(repo.git('log', '-1', '--format=%an', 'refs/shadow/drafts/default'), /^gemini-cli\n/);
    });
  },
);

Claude.run();
Gemini.run();
