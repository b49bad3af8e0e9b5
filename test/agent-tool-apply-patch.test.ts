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

const FILES = { 'README.md': 'Hello\n', 'old.txt': 'old\n', 'src/app.py': 'def greet(name):\n    return "hi " + name\n' };

interface Ctx {
  repo: MemRepo;
  sh: Shadow;
  conn: ToolConnection;
}

const Tool = suite<Ctx>('the apply_patch tool');
Tool.before.each(async (c) => {
  c.repo = await memRepo(FILES);
  c.sh = await openShadow({ dir: c.repo.dir, fs: c.repo.ctx.fs, clock: c.repo.ctx.clock, ids: c.repo.ctx.ids, env: c.repo.ctx.env });
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
    properties: { input: { type: 'string', minLength: 1, description: 'The entire contents of the apply_patch command' } },
    required: ['input'],
    additionalProperties: false,
  });
  assert.is(tool.annotations.destructiveHint, true);
  const openai = formatTools('openai', offeredTools()) as Array<{ function: { name: string; parameters: unknown } }>;
  assert.equal(openai.find((t) => t.function.name === 'apply_patch')!.function.parameters, inputJsonSchema(tool));
  assert.match(tool.description, /\*\*\* Begin Patch[\s\S]*\*\*\* Update File: <path>[\s\S]*\*\*\* Move to:[\s\S]*\*\*\* End of File[\s\S]*\*\*\* End Patch/);
});

Tool('a patch of four files: one batch by the connection\'s actor, answered with Codex\'s A/M/D lines', async ({ sh, conn }) => {
  const r = await callTool(conn, 'apply_patch', { input: PATCH });
  assert.is(r.isError, false, r.text);
  const log = await sh.log({ draft: 'default' });
  assert.is(log.length, 1);
  assert.is(log[0]!.actor, 'codex');
  assert.is(r.text, `Success. Updated the following files:\nM src/app.py\nA docs/notes.md\nD old.txt\nM docs/README.md\n(batch 1 on draft default, commit ${log[0]!.commit})`);
  assert.is((await sh.cat('src/app.py', { draft: 'default' })).content.toString(), 'def greet(name):\n    return f"hi {name}"\n');
  assert.is((await sh.cat('docs/README.md', { draft: 'default' })).content.toString(), 'Hello, world\n');
  // Sent again (its answer lost): recognised, nothing new.
  const again = await callTool(conn, 'apply_patch', { input: PATCH });
  assert.match(again.text, /^Success\. Nothing to change: it is the last batch of the draft already \(a retry\)\./);
  assert.is((await sh.log({ draft: 'default' })).length, 1);
});

Tool('a heredoc around the patch, as models send it to a shell, is read through', async ({ sh, conn }) => {
  const r = await callTool(conn, 'apply_patch', { input: `apply_patch <<'EOF'\n${PATCH}EOF\n` });
  assert.is(r.isError, false, r.text);
  assert.is((await sh.log({ draft: 'default' })).length, 1);
});

Tool('refusals: the code first, a hint, the details of the change that does not fit; nothing written', async ({ sh, conn }) => {
  const cut = await callTool(conn, 'apply_patch', { input: '*** Begin Patch\n*** Update File: README.md\n@@\n-Hello\n+Bye\n' });
  assert.is(codeOf(cut), 'INVALID_PATCH');
  assert.match(cut.text, /^INVALID_PATCH: batch rejected, nothing was written: 1 of 1 operation failed: #1 apply_patch: invalid patch at line 5: the last line must be "\*\*\* End Patch"/);
  assert.match(cut.text, /\nhint: end the patch with "\*\*\* End Patch"/);
  const stale = await callTool(conn, 'apply_patch', { input: '*** Begin Patch\n*** Update File: src/app.py\n@@ def greet(name):\n-    return "hello " + name\n+    return name\n*** End Patch' });
  assert.is(codeOf(stale), 'PATCH_FAILED');
  assert.match(stale.text, /change 1 of 1 of src\/app\.py \(patch line 3\) does not apply/);
  assert.match(stale.text, /"file_lines": \[\n\s+"2:     return \\"hi \\" \+ name"/);
  const clobber = await callTool(conn, 'apply_patch', { input: '*** Begin Patch\n*** Add File: README.md\n+new\n*** End Patch' });
  assert.is(codeOf(clobber), 'ALREADY_EXISTS');
  assert.match(clobber.text, /Delete File: README\.md" before the Add File section/);
  for (const r of [cut, stale, clobber]) assert.not.match(r.text, STACK_LINE);
  assert.equal(await sh.log({ draft: 'default' }).catch(() => []), []);
});

Tool("arguments in another shape than Codex's are INVALID_ARGUMENT", async ({ conn }) => {
  for (const args of [{}, { patch: PATCH }, { input: '' }, { input: PATCH, intent: 'x' }]) {
    const r = await callTool(conn, 'apply_patch', args);
    assert.is(codeOf(r), 'INVALID_ARGUMENT', JSON.stringify(args));
  }
});

Tool('batch_write takes the same patch as an operation, beside others', async ({ sh, conn }) => {
  const r = await callTool(conn, 'batch_write', { intent: 'patch and write', operations: [{ operation: 'apply_patch', patch: PATCH }, { operation: 'write', path: 'b.txt', content: 'b\n' }] });
  assert.is(r.isError, false, r.text);
  const out = JSON.parse(r.text);
  assert.equal(out.results[0].files.map((f: { path: string; status: string }) => `${f.status} ${f.path}`), ['updated src/app.py', 'created docs/notes.md', 'deleted old.txt', 'renamed README.md']);
  assert.is((await sh.log({ draft: 'default' })).length, 1);
});

Tool.run();
