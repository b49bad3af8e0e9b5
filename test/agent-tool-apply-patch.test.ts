import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openShadow, type Shadow } from '../src/index.js';
import { callTool, type ToolConnection } from '../src/agent-tools/call-tool.js';
import { formatTools, inputJsonSchema, offeredTools, TOOLS } from '../src/agent-tools/definitions.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { codeOf, STACK_LINE } from './helpers/tool-outcome.js';

/*
 * The apply_patch agent tool: Codex's own tool shape ({input: <patch>}),
 * one batch per call on the connection's draft, answered as Codex answers
 * ("Success. Updated the following files:" and A/M/D lines), refusals with
 * the library's codes and the details a model needs to send it again.
 */

const FILES = {
  'README.md': 'Hello\n',
  'old.txt': 'old\n',
  'src/app.py': 'def greet(name):\n    return "hi " + name\n',
};

interface Ctx {
  repo: MemRepo;
  sh: Shadow;
  conn: ToolConnection;
}

const Tool = suite<Ctx>('the apply_patch tool');
Tool.before.each(async (c) => {
  c.repo = await memRepo(FILES);
  c.sh = await openShadow({
    dir: c.repo.dir,
    fs: c.repo.ctx.fs,
    clock: c.repo.ctx.clock,
    ids: c.repo.ctx.ids,
    env: c.repo.ctx.env,
  });
  c.conn = { sh: c.sh, draft: 'default', actor: 'codex' };
});
Tool.after.each((c) => c.sh.close());

const PATCH = [
  '*** Begin Patch',
  '*** Update File: src/app.py',
  '@@ def greet(name):',
  '-    return "hi " + name',
  '+    return f"hi {name}"',
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

Tool("Codex's definition: name apply_patch, one required string input, nothing else; destructive", () => {
  const tool = TOOLS.find((t) => t.name === 'apply_patch')!;
  assert.equal(inputJsonSchema(tool), {
    type: 'object',
    properties: {
      input: { type: 'string', minLength: 1, description: 'The entire contents of the apply_patch command' },
    },
    required: ['input'],
    additionalProperties: false,
  });
  assert.is(tool.annotations.destructiveHint, true);
  const openai = formatTools('openai', offeredTools()) as Array<{ function: { name: string; parameters: unknown } }>;
  assert.equal(openai.find((t) => t.function.name === 'apply_patch')!.function.parameters, inputJsonSchema(tool));
  assert.match(
    tool.description,
    /\*\*\* Begin Patch[\s\S]*\*\*\* Update File: <path>[\s\S]*\*\*\* Move to:[\s\S]*\*\*\* End of File[\s\S]*\*\*\* End Patch/,
  );
});

Tool(
  "a patch of four files: one batch by the connection's actor, answered with Codex's lines: added, then modified, then deleted",
  async ({ sh, conn }) => {
    const r = await callTool(conn, 'apply_patch', { input: PATCH });
    assert.is(r.isError, false, r.text);
    const log = await sh.log({ draft: 'default' });
    assert.is(log.length, 1);
    assert.is(log[0]!.actor, 'codex');
    assert.is(
      r.text,
      `Success. Updated the following files:\nA docs/notes.md\nM src/app.py\nM docs/README.md\nD old.txt\n(batch 1 on draft default, commit ${log[0]!.commit})`,
    );
    assert.is(
      (await sh.cat('src/app.py', { draft: 'default' })).content.toString(),
      'def greet(name):\n    return f"hi {name}"\n',
    );
    assert.is((await sh.cat('docs/README.md', { draft: 'default' })).content.toString(), 'Hello, world\n');
    // Sent again (its answer lost): recognised, nothing new.
    const again = await callTool(conn, 'apply_patch', { input: PATCH });
    assert.match(again.text, /^Success\. Nothing to change: it is the last batch of the draft already \(a retry\)\./);
    assert.is((await sh.log({ draft: 'default' })).length, 1);
  },
);

Tool('a heredoc around the patch, as models send it to a shell, is read through', async ({ sh, conn }) => {
  const r = await callTool(conn, 'apply_patch', { input: `apply_patch <<'EOF'\n${PATCH}EOF\n` });
  assert.is(r.isError, false, r.text);
  assert.is((await sh.log({ draft: 'default' })).length, 1);
});

Tool(
  'refusals: the code first, a hint, the details of the change that does not fit; nothing written',
  async ({ sh, conn }) => {
    const cut = await callTool(conn, 'apply_patch', {
      input: '*** Begin Patch\n*** Update File: README.md\n@@\n-Hello\n+Bye\n',
    });
    assert.is(codeOf(cut), 'INVALID_PATCH');
    // Codex's own text first, then shadow's, naming the line of the text sent.
    assert.match(
      cut.text,
      /^INVALID_PATCH: batch rejected, nothing was written: 1 of 1 operation failed: #1 apply_patch: invalid patch: The last line of the patch must be '\*\*\* End Patch'\ninvalid patch at line 5: the last line must be "\*\*\* End Patch"/,
    );
    assert.match(cut.text, /\nhint: end the patch with "\*\*\* End Patch"/);
    const stale = await callTool(conn, 'apply_patch', {
      input:
        '*** Begin Patch\n*** Update File: src/app.py\n@@ def greet(name):\n-    return "hello " + name\n+    return name\n*** End Patch',
    });
    assert.is(codeOf(stale), 'PATCH_FAILED');
    assert.match(
      stale.text,
      /Failed to find expected lines in src\/app\.py:\n    return "hello " \+ name\nchange 1 of 1 of src\/app\.py \(patch line 3\) does not apply/,
    );
    assert.match(stale.text, /"file_lines": \[\n\s+"2:     return \\"hi \\" \+ name"/);
    const dir = await callTool(conn, 'apply_patch', {
      input: '*** Begin Patch\n*** Add File: src\n+new\n*** End Patch',
    });
    assert.is(codeOf(dir), 'IS_A_DIRECTORY');
    for (const r of [cut, stale, dir]) assert.not.match(r.text, STACK_LINE);
    assert.equal(await sh.log({ draft: 'default' }).catch(() => []), []);
  },
);

Tool(
  'Add File over a file and Move to onto one replace it, as Codex does; the answer and the commit say so',
  async ({ sh, conn }) => {
    const r = await callTool(conn, 'apply_patch', {
      input:
        '*** Begin Patch\n*** Add File: README.md\n+new\n*** Update File: old.txt\n*** Move to: src/app.py\n@@\n-old\n+moved\n*** End Patch',
    });
    assert.is(r.isError, false, r.text);
    const log = await sh.log({ draft: 'default' });
    assert.is(
      r.text,
      'Success. Updated the following files:\nA README.md\nM src/app.py\n' +
        'note: README.md: Add File replaced the file that was there\nnote: old.txt: Move to replaced the file that was there\n' +
        `(batch 1 on draft default, commit ${log[0]!.commit})`,
    );
    assert.is((await sh.cat('README.md', { draft: 'default' })).content.toString(), 'new\n');
    assert.is((await sh.cat('src/app.py', { draft: 'default' })).content.toString(), 'moved\n');
    assert.equal((await sh.ls('', { draft: 'default' })).map((e) => e.name).sort(), ['README.md', 'src']);
    // The commit's op lines (what `shadow log` and the review page read) carry the note.
    assert.equal(
      log[0]!.ops.map((o) => o.note),
      ['updated; Add File replaced the file that was there', 'renamed; Move to replaced the file that was there'],
    );
  },
);

Tool(
  'a change that fits two places goes to the first, as under Codex; the answer and the commit say "matched the first of 2 places"',
  async ({ sh, conn }) => {
    await sh.write('twice.py', 'def a():\n    pass\n\ndef b():\n    pass\n', { draft: 'default' });
    const r = await callTool(conn, 'apply_patch', {
      input: '*** Begin Patch\n*** Update File: twice.py\n@@\n-    pass\n+    return 1\n*** End Patch',
    });
    assert.is(r.isError, false, r.text);
    assert.match(
      r.text,
      /^Success\. Updated the following files:\nM twice\.py\nnote: twice\.py: the change matched the first of 2 places \(lines 2, 5\)\n\(batch 2 /,
    );
    assert.is(
      (await sh.cat('twice.py', { draft: 'default' })).content.toString(),
      'def a():\n    return 1\n\ndef b():\n    pass\n',
    );
    const last = (await sh.log({ draft: 'default' }))[0]!;
    assert.equal(last.ops, [
      {
        operation: 'apply_patch',
        path: 'twice.py',
        note: 'updated; the change matched the first of 2 places (lines 2, 5)',
      },
    ]);
  },
);

Tool("arguments in another shape than Codex's are INVALID_ARGUMENT", async ({ conn }) => {
  for (const args of [{}, { patch: PATCH }, { input: '' }, { input: PATCH, intent: 'x' }]) {
    const r = await callTool(conn, 'apply_patch', args);
    assert.is(codeOf(r), 'INVALID_ARGUMENT', JSON.stringify(args));
  }
});

Tool('batch_write takes the same patch as an operation, beside others', async ({ sh, conn }) => {
  const r = await callTool(conn, 'batch_write', {
    intent: 'patch and write',
    operations: [
      { operation: 'apply_patch', patch: PATCH },
      { operation: 'write', path: 'b.txt', content: 'b\n' },
    ],
  });
  assert.is(r.isError, false, r.text);
  const out = JSON.parse(r.text);
  assert.equal(
    out.results[0].files.map((f: { path: string; status: string }) => `${f.status} ${f.path}`),
    ['updated src/app.py', 'created docs/notes.md', 'deleted old.txt', 'renamed README.md'],
  );
  assert.is((await sh.log({ draft: 'default' })).length, 1);
});

Tool.run();
