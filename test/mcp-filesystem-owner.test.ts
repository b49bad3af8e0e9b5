import { spawnSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatSize } from '../src/agent-tools/filesystem-walk.js';
import { openShadow, type Shadow } from '../src/index.js';
import { DiskRepo } from './helpers/disk-repo.js';
import {
  ANNOTATIONS,
  CASES,
  MEDIA,
  OWNER,
  SIZES,
  type Expectation,
  type OwnerCase,
} from './helpers/filesystem-owner-cases.js';
import { connect, type Mcp } from './helpers/mcp-client.js';
import { connectInProcess } from './helpers/mcp-in-process.js';

/*
 * The MCP filesystem server's own cases (test/helpers/filesystem-owner-cases.ts,
 * from modelcontextprotocol/servers at OWNER.commit), each run through
 * `shadow mcp --tools filesystem` with the SDK's client: in this process for
 * speed, then all again over stdio through the real command on a second
 * draft, whose answers must be the same. What a case expects written is read
 * back by native git from the draft's ref. A deliberate difference must
 * still differ, exactly as written down.
 */

const DRAFT = 'owner-cases';
const STDIO_DRAFT = 'owner-cases-stdio';

interface Answer {
  isError: boolean;
  text: string;
  structured?: Record<string, unknown>;
}

interface Ctx {
  repo: DiskRepo;
  sh: Shadow;
  answers: Map<number, Answer>;
}

const dirOf = (i: number): string => `c${String(i).padStart(2, '0')}`;

function expand(value: unknown, repo: DiskRepo, i: number): unknown {
  if (typeof value === 'string')
    return value
      .replaceAll('<dir>', `${repo.dir}/${dirOf(i)}`)
      .replaceAll('<rel>', dirOf(i))
      .replaceAll('<root>', repo.dir);
  if (Array.isArray(value)) return value.map((v) => expand(v, repo, i));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, repo, i)]));
  return value;
}

async function call(client: Mcp['client'], tool: string, args: Record<string, unknown>): Promise<Answer> {
  const r = (await client.callTool({ name: tool, arguments: args })) as {
    content: Array<{ type: string; text: string }>;
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
  };
  assert.is(r.content.length, 1, tool);
  assert.is(r.content[0]!.type, 'text', tool);
  return { isError: r.isError === true, text: r.content[0]!.text, structured: r.structuredContent };
}

/** How `answer` (and the draft's files) miss `e`: empty when it holds. */
async function misses(e: Expectation, answer: Answer, sh: Shadow, draft: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  const { isError, text } = answer;
  if (e.error !== undefined) {
    if (!isError) out.push(`expected an error, got: ${text}`);
    else if (!text.includes(e.error)) out.push(`the error lacks ${JSON.stringify(e.error)}: ${text}`);
  } else {
    if (isError) return [`failed: ${text}`];
    if (JSON.stringify(answer.structured) !== JSON.stringify({ content: text }))
      out.push('structuredContent is not { content: text }');
  }
  if (e.text !== undefined && text !== e.text)
    out.push(`text ${JSON.stringify(text)} is not ${JSON.stringify(e.text)}`);
  for (const piece of e.contains ?? []) if (!text.includes(piece)) out.push(`lacks ${JSON.stringify(piece)}`);
  for (const piece of e.lacks ?? []) if (text.includes(piece)) out.push(`holds ${JSON.stringify(piece)}`);
  if (e.lines && JSON.stringify(text.split('\n').sort()) !== JSON.stringify([...e.lines].sort()))
    out.push(`lines ${JSON.stringify(text.split('\n'))}`);
  if (e.keys && JSON.stringify(text.split('\n').map((l) => l.split(':')[0])) !== JSON.stringify(e.keys))
    out.push(`keys of ${JSON.stringify(text)}`);
  if (e.names) {
    let level = JSON.parse(text) as Array<{ name: string; children?: unknown[] }>;
    if (e.names.under) level = (level.find((x) => x.name === e.names!.under)?.children ?? []) as typeof level;
    const names = level.map((x) => x.name);
    for (const n of e.names.has ?? []) if (!names.includes(n)) out.push(`the tree lacks ${n}: ${names.join(', ')}`);
    for (const n of e.names.lacks ?? []) if (names.includes(n)) out.push(`the tree holds ${n}`);
  }
  for (const [path, bytes] of Object.entries(e.bytes ?? {})) {
    const got = (await sh.cat(`${dir}/${path}`, { draft })).content.toString('utf8');
    if (got !== bytes) out.push(`${path} reads ${JSON.stringify(got)}, not ${JSON.stringify(bytes)}`);
  }
  return out;
}

/** What each case should find: the owner's expectation, or shadow's for a deliberate difference. */
const effective = (c: OwnerCase, repo: DiskRepo, i: number): Expectation =>
  expand(c.differs?.expect ?? c.expect, repo, i) as Expectation;

const Owner = suite<Ctx>(
  `the MCP filesystem server's own cases (${OWNER.repo} ${OWNER.folder} at ${OWNER.commit.slice(0, 12)})`,
);

Owner.before(async (c) => {
  const files: Record<string, string> = { 'README.md': '# cases\n' };
  CASES.forEach((k, i) =>
    Object.entries(k.files ?? {}).forEach(([p, content]) => (files[`${dirOf(i)}/${p}`] = content)),
  );
  c.repo = new DiskRepo(files);
  for (const m of MEDIA) c.repo.write(`media/${m.name}`, Buffer.from(m.bytes));
  c.repo.write('links/test.txt', 'valid\n');
  symlinkSync('/etc/passwd', c.repo.path('links/invalid_file.txt'));
  c.repo.git('add', '-A');
  c.repo.git('commit', '-qm', 'media and links');
  c.sh = await openShadow({ dir: c.repo.dir, env: c.repo.env });
  c.answers = new Map();
});
Owner.after((c) => {
  c.sh.close();
  c.repo.cleanup();
});

let held = 0;
let differing = 0;
let total = 0;

Owner(
  "each tool case, in process: the owner's answer and bytes, or the deliberate difference written beside it",
  async ({ repo, sh, answers }) => {
    const mcp = await connectInProcess(sh, 'owner-cases', { profiles: ['filesystem'], draft: DRAFT });
    const wrong: string[] = [];
    try {
      for (const [i, k] of CASES.entries()) {
        const answer = await call(mcp.client, k.tool, expand(k.args, repo, i) as Record<string, unknown>);
        answers.set(i, answer);
        const home = await misses(expand(k.expect, repo, i) as Expectation, answer, sh, DRAFT, dirOf(i));
        total++;
        if (!k.differs) {
          if (home.length === 0) held++;
          else wrong.push(`${k.source}: ${home.join('; ')}`);
          continue;
        }
        const ours = await misses(effective(k, repo, i), answer, sh, DRAFT, dirOf(i));
        if (home.length > 0 && ours.length === 0) differing++;
        else
          wrong.push(
            `${k.source}: expected to differ (${k.differs.reason}); ${home.length === 0 ? 'it now behaves as the owner' : ours.join('; ')}`,
          );
      }
    } finally {
      await mcp.close();
    }
    assert.equal(wrong, []);
  },
);

Owner('the bytes each case left in the draft, as native git reads them from its ref', ({ repo }) => {
  const wanted: Array<[string, string]> = [];
  CASES.forEach((k, i) =>
    Object.entries(effective(k, repo, i).bytes ?? {}).forEach(([p, b]) => wanted.push([`${dirOf(i)}/${p}`, b])),
  );
  assert.ok(wanted.length >= 15);
  const input = wanted.map(([p]) => `refs/shadow/drafts/${DRAFT}:${p}\n`).join('');
  const r = spawnSync('git', ['cat-file', '--batch'], { cwd: repo.dir, env: repo.env, input });
  assert.is(r.status, 0, String(r.stderr));
  const got: string[] = [];
  let rest = r.stdout;
  while (rest.length > 0) {
    const nl = rest.indexOf(10);
    const size = Number(rest.subarray(0, nl).toString().split(' ')[2]);
    got.push(rest.subarray(nl + 1, nl + 1 + size).toString('utf8'));
    rest = rest.subarray(nl + 2 + size);
  }
  assert.equal(
    got,
    wanted.map(([, b]) => b),
  );
});

Owner(
  'read_media_file: an image, audio, or an embedded resource by extension, the bytes round-tripped, structuredContent mirroring content; its outputSchema takes both kinds',
  async ({ repo, sh }) => {
    const mcp = await connectInProcess(sh, 'owner-media', { profiles: ['filesystem'], draft: DRAFT });
    try {
      for (const m of MEDIA) {
        const path = `${repo.dir}/media/${m.name}`;
        const r = (await mcp.client.callTool({ name: 'read_media_file', arguments: { path } })) as {
          content: any[];
          structuredContent?: unknown;
          isError?: boolean;
        };
        assert.not.ok(r.isError, m.source);
        assert.is(r.content.length, 1, m.source);
        const [block] = r.content;
        assert.is(block.type, m.type, m.source);
        const data = m.type === 'resource' ? block.resource.blob : block.data;
        assert.equal([...Buffer.from(data, 'base64')], m.bytes, m.source);
        assert.is(m.type === 'resource' ? block.resource.mimeType : block.mimeType, m.mimeType, m.source);
        if (m.uri) {
          assert.match(block.resource.uri, m.uri, m.source);
          assert.is(fileURLToPath(block.resource.uri), path, m.source);
        }
        assert.equal(r.structuredContent, { content: r.content }, m.source);
        held++;
        total++;
      }
      const tool = (await mcp.client.listTools()).tools.find((t) => t.name === 'read_media_file')!;
      const items = (tool.outputSchema as any).properties.content.items.anyOf;
      assert.equal(
        items.map((b: any) => b.properties.type.enum ?? [b.properties.type.const]),
        [['image', 'audio'], ['resource']],
      );
      held++;
      total++;
    } finally {
      await mcp.close();
    }
  },
);

Owner("README's annotations table and lib.test.ts's formatSize cases", async ({ sh }) => {
  const mcp = await connectInProcess(sh, 'owner-list', { profiles: ['filesystem'], draft: DRAFT });
  try {
    const tools = new Map((await mcp.client.listTools()).tools.map((t) => [t.name, t.annotations!]));
    for (const [name, [readOnly, idempotent, destructive]] of Object.entries(ANNOTATIONS)) {
      const a = tools.get(name)!;
      assert.is(a.readOnlyHint, readOnly, name);
      if (idempotent !== '-') assert.is(a.idempotentHint, idempotent, name);
      if (destructive !== '-') assert.is(a.destructiveHint, destructive, name);
      assert.is(a.openWorldHint, false, name);
    }
    held++;
    total++;
  } finally {
    await mcp.close();
  }
  for (const { source, cases } of SIZES) {
    for (const [bytes, want] of cases) {
      if (typeof want === 'string') assert.is(formatSize(bytes), want, `${source}: ${bytes}`);
      else assert.match(formatSize(bytes), want, `${source}: ${bytes}`);
    }
    held++;
    total++;
  }
});

Owner(
  "a search past a symlink that leaves the repository: the owner's case holds; a pattern the link matches lists it as the file git tracks, never followed",
  async ({ repo, sh }) => {
    // __tests__/lib.test.ts > searchFilesWithValidation > handles validation errors during search: the server skips an entry whose real path is outside.
    const mcp = await connectInProcess(sh, 'owner-links', { profiles: ['filesystem'], draft: DRAFT });
    try {
      assert.is(
        (await call(mcp.client, 'search_files', { path: `${repo.dir}/links`, pattern: '*test*' })).text,
        `${repo.dir}/links/test.txt`,
      );
      held++;
      total++;
      // The same with '*.txt', which the link's name matches: the server would still answer only test.txt. Deliberate: a symlink
      // is a file of the repository as git stores it (its target is its content); shadow never follows it, so it is listed as itself.
      const found = await call(mcp.client, 'search_files', { path: `${repo.dir}/links`, pattern: '*.txt' });
      assert.is.not(found.text, `${repo.dir}/links/test.txt`);
      assert.is(found.text, `${repo.dir}/links/invalid_file.txt\n${repo.dir}/links/test.txt`);
      const read = await call(mcp.client, 'read_text_file', { path: `${repo.dir}/links/invalid_file.txt` });
      assert.ok(read.isError && read.text.startsWith('NOT_A_FILE: '), read.text);
      // A write to the link's path never goes through it: the draft holds a file there, the link's target is untouched.
      const wrote = await call(mcp.client, 'write_file', {
        path: `${repo.dir}/links/invalid_file.txt`,
        content: 'mine\n',
      });
      assert.not.ok(wrote.isError, wrote.text);
      assert.is(repo.git('ls-tree', `refs/shadow/drafts/${DRAFT}`, 'links/invalid_file.txt').split(' ')[0], '100644');
      assert.is(repo.git('show', `refs/shadow/drafts/${DRAFT}:links/invalid_file.txt`), 'mine\n');
      assert.is(repo.git('cat-file', '-p', 'HEAD:links/invalid_file.txt'), '/etc/passwd');
      differing++;
      total++;
    } finally {
      await mcp.close();
    }
  },
);

Owner(
  'the same cases over stdio, through the real `shadow mcp --tools filesystem` on a draft of its own: the same answers',
  async ({ repo, answers }) => {
    const mcp = await connect(repo, 'owner-cases', ['--tools', 'filesystem', '--draft', STDIO_DRAFT]);
    try {
      for (const [i, k] of CASES.entries()) {
        const answer = await call(mcp.client, k.tool, expand(k.args, repo, i) as Record<string, unknown>);
        const mine = answers.get(i)!;
        // get_file_info's times are those of each draft's own batch.
        if (k.tool === 'get_file_info') assert.is(answer.text.split('\n')[0], mine.text.split('\n')[0], k.source);
        else assert.equal(answer, mine, k.source);
      }
    } finally {
      await mcp.close();
    }
    console.log(`\nmcp filesystem: ${held} of ${total} owner cases hold, ${differing} deliberate differences`);
  },
);

Owner.run();
