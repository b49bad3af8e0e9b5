import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import AjvModule from 'ajv/dist/2020.js';
import { openShadow, type Shadow } from '../src/index.js';
import { callTool, type ToolConnection, type ToolOutcome } from '../src/agent-tools/call-tool.js';
import { inputJsonSchema, TOOLS } from '../src/agent-tools/definitions.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { connect } from './helpers/mcp-client.js';
import { codeOf, okJson, STACK_LINE } from './helpers/tool-outcome.js';

/*
 * A partial apply from the agent tools: `paths` on apply_status (a dry run)
 * and apply (only with --allow-apply), on a real repository, checked
 * against the bytes in the working tree and the changes the draft keeps;
 * then the same over stdio, through a real `shadow mcp` process.
 */

const FILES = { 'src/a.ts': 'a\n', 'src/b.ts': 'b\n', 'docs/d.md': 'd\n', '.github/workflows/ci.yml': 'on: push\n' };
const DRAFT = {
  'src/a.ts': 'A\n',
  'src/b.ts': 'B\n',
  'docs/d.md': 'D\n',
  '.github/workflows/ci.yml': 'on: [push, pull_request]\n',
};

interface Ctx {
  repo: DiskRepo;
  sh: Shadow;
  conn: ToolConnection;
}

async function call(conn: ToolConnection, name: string, args: unknown): Promise<ToolOutcome> {
  const r = await callTool(conn, name, args);
  if (r.isError) assert.not.match(r.text, STACK_LINE, `a stack trace from ${name}: ${r.text}`);
  return r;
}

/** The working tree's bytes of the fixture's paths. */
const bytes = (repo: DiskRepo): Record<string, string> =>
  Object.fromEntries(Object.keys(FILES).map((p) => [p, repo.read(p)]));

/** The paths the draft still changes, as diff --stat and status list them. */
async function draftChanges(sh: Shadow): Promise<{ diff: string[]; status: string[] }> {
  const diff = (await sh.diff({ content: 'stat' })).files.map((f) => f.path).sort();
  const status = (await sh.status()).changed.map((c: { path: string }) => c.path).sort();
  return { diff, status };
}

const Paths = suite<Ctx>('agent tools: apply_status and apply with paths');
Paths.before.each(async (c) => {
  c.repo = new DiskRepo(FILES);
  c.sh = await openShadow({ dir: c.repo.dir, env: c.repo.env });
  c.conn = { sh: c.sh, draft: 'default', actor: 'agent-x' };
  const operations = Object.entries(DRAFT).map(([path, content]) => ({ operation: 'write', path, content }));
  okJson(await call(c.conn, 'batch_write', { intent: 'everywhere', operations }));
});
Paths.after.each((c) => {
  c.sh.close();
  c.repo.cleanup();
});

Paths(
  'apply_status with paths lists only the matched paths and judges only them; the note names the partial command; nothing is written',
  async ({ repo, conn }) => {
    // The whole draft touches CI config, a protected path: it could not be applied without an approval.
    const whole = okJson(await call(conn, 'apply_status', {}));
    assert.is(whole.can_apply, false);
    assert.equal(whole.paths, [
      'modify .github/workflows/ci.yml',
      'modify docs/d.md',
      'modify src/a.ts',
      'modify src/b.ts',
    ]);
    assert.equal(
      whole.pending_approvals.map((a: { kind: string }) => a.kind),
      ['protected_path'],
    );

    const part = okJson(await call(conn, 'apply_status', { paths: ['src/*.ts'] }));
    assert.is(part.can_apply, true);
    assert.equal(part.paths, ['modify src/a.ts', 'modify src/b.ts']);
    assert.equal(part.pending_approvals, []);
    assert.match(part.note, /run shadow apply 'src\/\*\.ts' \(from the repository root\)/);

    const dir = okJson(await call(conn, 'apply_status', { paths: ['.github/'] }));
    assert.equal([dir.can_apply, dir.paths], [false, ['modify .github/workflows/ci.yml']]);
    assert.equal(bytes(repo), FILES);
    assert.is(repo.git('status', '--porcelain'), '');
  },
);

Paths(
  "apply (allowed) with paths: the matched files hold the draft's bytes; the rest stay the draft's changes, untouched on disk",
  async ({ repo, sh, conn }) => {
    const r = okJson(await call({ ...conn, allowApply: true }, 'apply', { paths: ['docs', 'src/b.ts'] }));
    assert.equal([r.ok, r.applied, r.dry_run], [true, true, false]);
    assert.equal(
      r.paths.map((p: { path: string }) => p.path),
      ['docs/d.md', 'src/b.ts'],
    );
    assert.equal(bytes(repo), { ...FILES, 'docs/d.md': 'D\n', 'src/b.ts': 'B\n' });
    assert.equal(repo.git('status', '--porcelain').split('\n').filter(Boolean).sort(), [' M docs/d.md', ' M src/b.ts']);
    const left = ['.github/workflows/ci.yml', 'src/a.ts'];
    assert.equal(await draftChanges(sh), { diff: left, status: left });
    // What is left is what a later status and apply see.
    assert.equal(okJson(await call(conn, 'apply_status', {})).paths, [
      'modify .github/workflows/ci.yml',
      'modify src/a.ts',
    ]);
    assert.is(
      codeOf(await call(conn, 'apply_status', { paths: ['docs'] })),
      'INVALID_ARGUMENT',
      'docs is no longer a change of the draft',
    );
  },
);

Paths(
  "a pathspec that matches none of the draft's changes is INVALID_ARGUMENT naming it, from apply_status and apply; nothing is written",
  async ({ repo, sh, conn }) => {
    for (const [tool, c] of [
      ['apply_status', conn],
      ['apply', { ...conn, allowApply: true }],
    ] as const) {
      const r = await call(c, tool, { paths: ['src/b.ts', 'nothing/here'] });
      assert.is(codeOf(r), 'INVALID_ARGUMENT', tool);
      assert.match(r.text, /pathspec 'nothing\/here' did not match any path the draft changes/, tool);
      assert.match(r.text, /"unmatched":\["nothing\/here"\]/, tool);
    }
    assert.equal(bytes(repo), FILES);
    const all = Object.keys(DRAFT).sort();
    assert.equal(await draftChanges(sh), { diff: all, status: all });
  },
);

Paths(
  'paths not relative to the root, an empty list, or not strings: INVALID_ARGUMENT before anything is read; without --allow-apply apply stays refused',
  async ({ repo, sh, conn }) => {
    const allowed = { ...conn, allowApply: true };
    const cases: Array<[unknown, RegExp]> = [
      [['/src/a.ts'], /paths\[0\] is absolute: give it relative to the repository root/],
      [['src/../docs'], /paths\[0\] steps out with "\.\."/],
      [['docs', 'C:/src'], /paths\[1\] is absolute/],
      [[], /paths is empty; send at least one/],
      [[''], /paths\[0\] is empty/],
      ['src', /paths must be an array, got a string/],
      [[7], /paths\[0\] must be a string, got a number/],
    ];
    for (const [paths, message] of cases) {
      for (const tool of ['apply_status', 'apply']) {
        const r = await call(allowed, tool, { paths });
        assert.is(codeOf(r), 'INVALID_ARGUMENT', `${tool} ${JSON.stringify(paths)}`);
        assert.match(r.text.split('\n')[0]!, message, `${tool} ${JSON.stringify(paths)}: ${r.text}`);
      }
    }
    const refused = await call(conn, 'apply', { paths: ['src/a.ts'] });
    assert.is(codeOf(refused), 'INVALID_ARGUMENT');
    assert.match(refused.text, /there is no tool "apply" \(apply is for the person/);
    assert.equal(bytes(repo), FILES);
    assert.is((await draftChanges(sh)).diff.length, 4);
  },
);

Paths(
  'the advertised JSON Schema takes the pathspecs the tools take and refuses the ones they refuse',
  async ({ conn }) => {
    const ajv = new AjvModule.default({ strict: true });
    const good = [['src/a.ts'], ['docs/', 'src/**', '.github/workflows/*.yml', '.'], ['src/[ab].ts', 'src/?.ts']];
    const bad = [[], [''], ['/src'], ['../src'], ['src/../../x'], ['C:\\src'], 'src', [1]];
    for (const name of ['apply_status', 'apply']) {
      const check = ajv.compile(inputJsonSchema(TOOLS.find((t) => t.name === name)!));
      for (const paths of good) assert.ok(check({ paths }), `${name} schema refused ${JSON.stringify(paths)}`);
      for (const paths of bad) assert.not.ok(check({ paths }), `${name} schema took ${JSON.stringify(paths)}`);
    }
    // And the tool agrees: each good list matches some change of the draft, so none is refused.
    for (const paths of good) okJson(await call(conn, 'apply_status', { paths }));
    for (const paths of bad)
      assert.is(codeOf(await call(conn, 'apply_status', { paths })), 'INVALID_ARGUMENT', JSON.stringify(paths));
  },
);

Paths.run();

/* ------------------------------------------------------------------------------------------------
 * Over stdio: a real `shadow mcp --allow-apply` process and the SDK's client.
 * ---------------------------------------------------------------------------------------------- */

const Stdio = suite<{ repo: DiskRepo }>('shadow mcp --allow-apply: apply with paths');
Stdio.before.each((c) => {
  c.repo = new DiskRepo(FILES);
});
Stdio.after.each((c) => c.repo.cleanup());

Stdio(
  "the schemas advertise paths; apply_status and apply take them; the CLI sees the rest as the draft's changes",
  async ({ repo }) => {
    const mcp = await connect(repo, 'partial-applier', ['--allow-apply']);
    try {
      const tools = (await mcp.client.listTools()).tools;
      for (const name of ['apply_status', 'apply']) {
        const paths = (tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, any>).paths;
        assert.equal([paths.type, paths.minItems, paths.items.type], ['array', 1, 'string'], name);
        assert.match(paths.description, /relative to the repository root/, name);
        assert.match(tools.find((t) => t.name === name)!.description!, /With paths/, name);
      }
      const operations = Object.entries(DRAFT).map(([path, content]) => ({ operation: 'write', path, content }));
      okJson(await mcp.call('batch_write', { intent: 'everywhere', operations }));
      assert.equal(okJson(await mcp.call('apply_status', { paths: ['src/**'] })).paths, [
        'modify src/a.ts',
        'modify src/b.ts',
      ]);
      assert.equal(bytes(repo), FILES);
      const r = okJson(await mcp.call('apply', { paths: ['src/a.ts'] }));
      assert.equal([r.ok, r.applied], [true, true]);
      assert.equal(bytes(repo), { ...FILES, 'src/a.ts': 'A\n' });
      const unmatched = await mcp.call('apply', { paths: ['src/a.ts'] });
      assert.is(unmatched.isError, true);
      assert.match(unmatched.text, /^INVALID_ARGUMENT: pathspec 'src\/a\.ts' did not match/);
      assert.is(mcp.stderr(), '');
    } finally {
      await mcp.close();
    }
    const status = repo.shadow(['status', '--json']);
    assert.is(status.status, 0, status.stdout + status.stderr);
    assert.equal(
      status
        .json()
        .changed.map((c: { path: string }) => c.path)
        .sort(),
      ['.github/workflows/ci.yml', 'docs/d.md', 'src/b.ts'],
    );
    assert.equal(bytes(repo), { ...FILES, 'src/a.ts': 'A\n' });
  },
);

Stdio.run();
