import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openShadow, type Shadow } from '../src/index.js';
import { memRepo } from './helpers/mem-repo.js';
import { withReplacingRename } from './helpers/memfs-rename.js';
import { connectInProcess, type InProcessMcp } from './helpers/mcp-in-process.js';
import type { Outcome } from './helpers/mcp-client.js';

/*
 * Anthropic's own cases for its text editor tool, run through `shadow mcp
 * --tools anthropic` with the MCP SDK's client (in-process, on memfs). The
 * cases are test/fixtures/anthropic-editor/cases.json: those of the
 * reference's tests (computer-use-demo/tests/tools/edit_test.py), and more
 * read off the reference implementation (computer-use-demo/
 * computer_use_demo/tools/edit.py) for what its tests leave out, each with
 * its source, from anthropics/anthropic-quickstarts at the commit the file
 * names; each case's answers and files after are what the reference itself
 * gave when run on them (str_replace_editor: EditTool20250124;
 * str_replace_based_edit_tool: EditTool20250429). Shadow must answer with
 * the same text (a refusal: shadow's code, then the reference's sentence,
 * then shadow's hint) and leave the same bytes in the draft, except where
 * DELIBERATE says why not, and there it must still differ in exactly that way.
 */

interface Call {
  args: Record<string, unknown>;
  output?: string;
  error?: string;
}
interface Case {
  id: string;
  source: string;
  tool: 'str_replace_editor' | 'str_replace_based_edit_tool';
  files: Record<string, string>;
  calls: Call[];
  after: Record<string, string>;
}

const FIXTURE = fileURLToPath(new URL('../../test/fixtures/anthropic-editor/cases.json', import.meta.url));
const { source, cases } = JSON.parse(readFileSync(FIXTURE, 'utf8')) as {
  source: { repository: string; commit: string };
  cases: Case[];
};
const ROOT = '/repo';
const OUTSIDE = '/elsewhere';
const dirOf = (i: number): string => `c${String(i).padStart(2, '0')}`;

function fill<T>(value: T, dir: string): T {
  if (typeof value === 'string')
    return value.replaceAll('{root}', ROOT).replaceAll('{outside}', OUTSIDE).replaceAll('{case}', dir) as T;
  if (Array.isArray(value)) return value.map((v) => fill(v, dir)) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, dir)])) as T;
}

/** The draft's files under the case's directory, as its paths relative to it. */
async function filesOf(sh: Shadow, dir: string): Promise<Record<string, string>> {
  const { files } = await sh.files(dir, { limit: 100 });
  const out: Record<string, string> = {};
  for (const f of files) out[f.path.slice(dir.length + 1)] = (await sh.cat(f.path)).content.toString('utf8');
  return out;
}

/** A refusal answers with shadow's code, the reference's sentence, and only then anything of shadow's own. */
function refusal(got: Outcome, want: string): string | undefined {
  const m = /^([A-Z_]+): /.exec(got.text);
  if (!got.isError || !m) return `not a refusal: ${got.text}`;
  const rest = got.text.slice(m[0].length);
  return rest === want || rest.startsWith(`${want}\n`) ? undefined : `refused otherwise: ${got.text}`;
}

/**
 * Where shadow answers otherwise on purpose (docs/agents.md, "Home tools:
 * Anthropic's text editor"), by case id: why, and the check that it still
 * differs in exactly that way.
 */
const DELIBERATE: Record<
  string,
  { why: string; holds(outcomes: Outcome[], files: Record<string, string>, dir: string): void }
> = {
  'a relative path': {
    why: "paths in shadow's MCP tools are relative to the repository root, as ARCHITECTURE.md has it; the reference refuses any path not absolute",
    holds: ([o], _f, dir) =>
      assert.is(o!.text, `Here's the result of running \`cat -n\` on ${dir}/file.txt:\n     1\tx\n     2\t\n`),
  },
  'a path outside the repository': {
    why: 'the editor works on the draft of this repository only; the reference reads and writes anywhere the process may',
    holds: ([o]) => assert.match(o!.text, /^INVALID_PATH: /),
  },
  'tabs in the file': {
    why: 'the reference expands every tab of the file to spaces on each str_replace (lines it did not touch too); shadow keeps the bytes it was not asked to change',
    holds: ([o], files) => {
      assert.is(files['file.txt'], 'if x:\n\ty = 2\n');
      assert.match(o!.text, /\n {5}2\t\ty = 2\n/);
    },
  },
  'a view of tabs': {
    why: 'a view shows tabs as the file has them, so that an old_str copied from it matches the file, which shadow does not expand',
    holds: ([o]) => assert.match(o!.text, /\n {5}1\ta\tb\n/),
  },
  'CRLF line ends': {
    why: 'line endings are kept as the file has them; the reference reads with universal newlines and writes every line end as \\n',
    holds: (_o, files) => assert.is(files['file.txt'], 'A\r\nb\r\n'),
  },
  'undo of a create': {
    why: 'undo_edit reverts the batch that made the change, as git revert does, so undoing a create removes the file; the reference writes the created text back',
    holds: ([, o], files, dir) => {
      assert.is(
        o!.text,
        `Last edit to ${ROOT}/${dir}/made.txt undone successfully. The file no longer exists: that edit created it.`,
      );
      assert.is(files['made.txt'], undefined);
    },
  },
};

const Reference = suite("Anthropic's text editor: the reference's cases over MCP");

Reference(
  `every case of ${source.repository}@${source.commit.slice(0, 12)} answers and writes as the reference, or differs only as DELIBERATE says`,
  async () => {
    const files: Record<string, string> = {};
    cases.forEach((c, i) => Object.entries(c.files).forEach(([rel, text]) => (files[`${dirOf(i)}/${rel}`] = text)));
    const repo = await memRepo(files);
    const { ctx } = repo;
    const sh = await openShadow({
      dir: repo.dir,
      fs: withReplacingRename(ctx.fs),
      clock: ctx.clock,
      ids: ctx.ids,
      env: ctx.env,
    });
    let mcp: InProcessMcp | undefined;
    const problems: string[] = [];
    let held = 0;
    let deliberate = 0;
    try {
      mcp = await connectInProcess(sh, 'Claude', { profiles: ['anthropic'] });
      for (const [i, c] of cases.entries()) {
        const dir = dirOf(i);
        const calls = fill(c.calls, dir);
        const outcomes: Outcome[] = [];
        for (const call of calls) outcomes.push(await mcp.call(c.tool, call.args));
        const after = await filesOf(sh, dir);
        const name = `${c.tool} "${c.id}" (${c.source})`;
        const expected = DELIBERATE[c.id];
        if (expected) {
          try {
            expected.holds(outcomes, after, dir);
            deliberate++;
          } catch (e) {
            problems.push(`${name}: no longer differs as written (${expected.why}): ${(e as Error).message}`);
          }
          continue;
        }
        const wrong: string[] = [];
        calls.forEach((call, k) => {
          const got = outcomes[k]!;
          if (call.error !== undefined) {
            const why = refusal(got, call.error);
            if (why) wrong.push(`call ${k + 1}: ${why}\n  want: ${JSON.stringify(call.error)}`);
          } else if (got.isError || got.text !== call.output) {
            wrong.push(
              `call ${k + 1}: ${JSON.stringify(got.text.slice(0, 600))}\n  want: ${JSON.stringify(call.output!.slice(0, 600))}`,
            );
          }
        });
        if (JSON.stringify(after, Object.keys(after).sort()) !== JSON.stringify(c.after, Object.keys(c.after).sort())) {
          wrong.push(
            `files after: ${JSON.stringify(after).slice(0, 400)}\n  want: ${JSON.stringify(c.after).slice(0, 400)}`,
          );
        }
        if (wrong.length === 0) held++;
        else problems.push(`${name}:\n ${wrong.join('\n ')}`);
      }
    } finally {
      await mcp?.close();
      sh.close();
    }
    console.log(`anthropic editor: ${held} of ${cases.length} owner cases hold, ${deliberate} deliberate differences`);
    assert.is(problems.length, 0, problems.join('\n\n'));
    assert.is(held + deliberate, cases.length);
    assert.ok(
      deliberate > 0 && Object.keys(DELIBERATE).every((id) => cases.some((c) => c.id === id)),
      'a deliberate difference names no case',
    );
  },
);

Reference.run();
