import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { COMMANDS, commandName } from '../cli/command-table.js';
import { COMMAND_TASKS } from '../cli/command-tasks.js';
import { helpAsked } from '../cli/help-command.js';
import { cliReference } from '../cli/reference/markdown.js';
import { run } from '../cli/run.js';
import { SHADOW_BIN } from './helpers/disk-repo.js';

/**
 * `shadow --help` lists the commands by task, as `git help` does, and
 * `shadow help <command>` (or `shadow <command> --help`) shows one in full,
 * with what docs/cli.md says of it. Help never needs a repository: these
 * run in the temp directory, in-process through the CLI's entry, and once
 * through the built executable.
 */

interface Ran {
  status: number;
  stdout: string;
  stderr: string;
}

async function shadow(args: string[]): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const status = await run(args, {
    cwd: tmpdir(),
    env: {},
    stdout: (s) => (stdout += typeof s === 'string' ? s : Buffer.from(s).toString('utf8')),
    stderr: (s) => (stderr += s),
    stdin: Readable.from([]),
    isTTY: false,
  });
  return { status, stdout, stderr };
}

const Help = suite('shadow --help and shadow help <command>');

Help('shadow --help lists every command once, under its task, with its one-line description', async () => {
  const r = await shadow(['--help']);
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stderr, '');
  assert.match(r.stdout, /^usage: shadow <command> \[options\]\n/);
  const seen = new Map<string, string>();
  const said = new Map<string, string>();
  let task: string | undefined;
  for (const line of r.stdout.split('\n')) {
    if (COMMAND_TASKS.some((t) => t.title === line)) task = line;
    else if (line === '') task = undefined;
    else if (task && /^ {3}\S/.test(line)) {
      const name = line.trim().split(/\s+/)[0]!;
      assert.not.ok(seen.has(name), `${name} is listed once (under ${seen.get(name)} and ${task})`);
      seen.set(name, task);
      said.set(name, line.trim().slice(name.length).trim());
    }
  }
  for (const e of COMMANDS) {
    const name = 'commands' in e ? e.name : commandName(e);
    assert.ok(seen.has(name), `${name} is listed under a task`);
    const first = e.describe.split(' ').slice(0, 4).join(' ');
    assert.ok(said.get(name)?.startsWith(first), `${name}: ${said.get(name)} begins with ${first}`);
  }
  assert.is(seen.size, COMMANDS.length);
  assert.is(seen.get('apply'), 'publish into the working tree');
  assert.is(seen.get('draft'), 'start and manage drafts');
  assert.match(
    r.stdout,
    /\n {3}draft +create, list, show and drop drafts \(new, list, show, drop\)\n/,
    "a group's line names its commands",
  );
  assert.match(r.stdout, /\nglobal options \(every command\):\n {3}-C <dir> +run as if/);
  for (const same of [['help'], ['-h'], ['-C', 'elsewhere', '--help']])
    assert.equal(await shadow(same), r, `shadow ${same.join(' ')}`);
});

Help('shadow help apply is shadow apply --help: synopsis, options, exit statuses, error codes, examples', async () => {
  const r = await shadow(['help', 'apply']);
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stderr, '');
  const t = r.stdout;
  assert.match(
    t,
    /^usage: shadow apply \[paths\.\.\] \[options\]\n\npublish the draft's changes into the working tree/,
  );
  assert.match(t, /\narguments:\n {3}<paths\.\.> +publish only these files/);
  assert.match(t, /\noptions:\n {3}--dry-run +list what would change/);
  assert.match(t, /\n {3}-m, --message <string> +the commit message for --squash\n/);
  assert.match(t, /\n {3}--commit +also move the current branch to the draft's commits \(not with\n? *--squash\)/);
  assert.match(t, /\nexit status:\n {3}0 +ok\n[^]*\n {3}3 +approvals pending/);
  assert.match(t, /\nerror codes:\n {3}APPROVALS_PENDING, DENIED, STALE_REVIEW/);
  assert.match(t, /\n {3}and, as any command: USAGE, NOT_A_REPOSITORY/);
  assert.match(t, /\nexamples:\n {3}shadow apply --dry-run {17}# the paths it would write/);
  assert.equal(await shadow(['apply', '--help']), r, 'shadow apply --help');
  assert.equal(await shadow(['apply', '-h', '--dry-run']), r, 'shadow apply -h --dry-run');
});

Help('the long form says what docs/cli.md says of the command', async () => {
  const md = cliReference();
  for (const path of ['apply', 'diff', 'draft new', 'session begin']) {
    const r = await shadow(['help', ...path.split(' ')]);
    assert.is(r.status, 0, `${path}: ${r.stderr}`);
    const doc = (await shadow(['help', ...path.split(' '), '--json'])).stdout;
    const { command } = JSON.parse(doc) as {
      command: {
        synopsis: string;
        describe: string;
        options: Array<{ describe: string }>;
        errors: string[];
        examples: string[];
      };
    };
    const section = md.slice(
      md.indexOf(`\n### shadow ${path}\n`),
      md.indexOf('\n### ', md.indexOf(`\n### shadow ${path}\n`) + 1),
    );
    const flat = r.stdout.replace(/\n +/g, ' ');
    assert.ok(
      r.stdout.startsWith(`usage: ${command.synopsis}\n`) && section.includes(`\n${command.synopsis}\n`),
      `${path}: the synopsis`,
    );
    for (const o of command.options)
      assert.ok(flat.includes(o.describe.replace(/\n +/g, ' ')), `${path}: ${o.describe}`);
    for (const c of command.errors) assert.ok(r.stdout.includes(c) && section.includes(`\`${c}\``), `${path}: ${c}`);
    for (const e of command.examples)
      assert.ok(r.stdout.includes(`   ${e}\n`) && section.includes(`\n${e}\n`), `${path}: ${e}`);
  }
  const diff = await shadow(['diff', '--help']);
  assert.match(
    diff.stdout,
    /\nAlso, as git diff takes them:\n {2}-M\[<n>\]/,
    "shadow diff --help keeps git's option forms",
  );
});

Help("a group's commands, one in full, and an alias", async () => {
  const group = await shadow(['draft', '--help']);
  assert.is(group.status, 0);
  assert.match(
    group.stdout,
    /^usage: shadow draft <command> \[options\]\n\ncreate, list, show and drop drafts\n\n {3}new \[name\] +create a draft from HEAD/,
  );
  assert.match(group.stdout, /\n {3}list \(also ls\) +list drafts/);
  assert.equal(await shadow(['help', 'draft']), group);
  const one = await shadow(['help', 'draft', 'new']);
  assert.match(one.stdout, /^usage: shadow draft new \[name\] \[options\]\n/);
  assert.match(one.stdout, /\n {3}--from <string> +commit-ish to start from\n/);
  assert.equal(await shadow(['draft', 'new', '--help']), one);
  const alias = await shadow(['draft', 'ls', '--help']);
  assert.match(alias.stdout, /^usage: shadow draft list \[options\]\n {3}\(also: draft ls\)\n/);
});

Help('help on a command shadow does not have: USAGE, exit 2, one JSON document with --json', async () => {
  for (const args of [
    ['help', 'nope'],
    ['nope', '--help'],
    ['help', 'draft', 'nope'],
  ]) {
    const r = await shadow([...args, '--json']);
    assert.is(r.status, 2, args.join(' '));
    const doc = JSON.parse(r.stdout) as { error: { code: string; message: string; hint: string } };
    assert.equal(Object.keys(doc), ['error']);
    assert.is(doc.error.code, 'USAGE');
    assert.match(doc.error.message, /shadow has no command "(nope|draft nope)"/);
    assert.match(doc.error.hint, /shadow (--help|help draft)/);
    const text = await shadow(args);
    assert.is(text.status, 2);
    assert.is(text.stdout, '');
    assert.match(text.stderr, /^error: shadow has no command [^\n]+\nhint: /);
  }
});

Help('--help after -- is a word of the command shadow exec runs, not a request for help', () => {
  assert.is(helpAsked(['exec', '--', 'npm', '--help']), undefined);
  assert.is(helpAsked(['exec', '--record', '--', 'ls', '-h']), undefined);
  assert.equal(helpAsked(['exec', '--help', '--', 'ls']), ['exec']);
  assert.equal(helpAsked(['--draft', 'help', 'status']), undefined, 'a draft named help');
  assert.equal(helpAsked(['help', 'session', 'begin']), ['session', 'begin']);
  assert.is(helpAsked(['status']), undefined);
});

Help(
  'the grouped list is laid out without the reference: the help path imports none of cli/reference/ statically',
  () => {
    for (const file of [
      'run',
      'help-command',
      'help-text',
      'command-table',
      'command-tasks',
      'global-options',
      'main',
    ]) {
      const text = readFileSync(fileURLToPath(new URL(`../../cli/${file}.ts`, import.meta.url)), 'utf8');
      assert.not.match(text, /^import [^;]*from '\.\/reference\//m, `cli/${file}.ts`);
    }
  },
);

Help('the built executable answers shadow --help and shadow help apply, outside any repository', async () => {
  for (const args of [['--help'], ['help', 'apply']]) {
    const r = spawnSync(process.execPath, [SHADOW_BIN, ...args], {
      cwd: tmpdir(),
      encoding: 'utf8',
      env: { ...process.env, SHADOW_HANDOFF: '0' },
    });
    assert.is(r.status, 0, r.stderr);
    assert.is(r.stdout, (await shadow(args)).stdout, args.join(' '));
  }
});

Help.run();
