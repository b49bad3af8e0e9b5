import { existsSync, readFileSync, chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { run as runCli } from '../cli/run.js';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { renameName } from '../cli/diff/diff-text.js';
import { renamePercent } from '../cli/diff/diff-words.js';

/**
 * `shadow diff` on a terminal and with git's arguments: `-- <pathspec>`
 * (relative to the current directory, globs, `:(literal)`; limits the
 * renames -M finds as git's does), a path typed where a range goes, and
 * git's colour and pager choices: run in-process with the terminal
 * injected (CliIO.isTTY), a fake pager recording what it was given.
 */

const DRAFT = 'refs/shadow/drafts/default';
const ESC = '\x1b[';

type Ctx = { repo: DiskRepo };

async function fresh(ctx: Ctx): Promise<void> {
  ctx.repo = new DiskRepo({
    'README.md': 'Hello\n',
    'src/api.ts': '001 api\n'.repeat(20),
    'src/util.ts': '001 util\n',
    'src/[x].ts': 'x\n',
    'src/ab.ts': 'ab\n',
    'docs/guide.md': 'guide\n',
  });
  await withShadow(ctx.repo, async (sh) => {
    const r = await sh.batch({
      operations: [
        { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, world' },
        { operation: 'edit', path: 'src/util.ts', old_content: 'util', content: 'util, changed' },
        { operation: 'write', path: 'src/[x].ts', content: 'x changed\n' },
        { operation: 'write', path: 'src/ab.ts', content: 'ab changed\n' },
        { operation: 'rename', path: 'src/api.ts', to: 'lib/api.ts' },
        { operation: 'rename', path: 'docs/guide.md', to: 'src/guide.md' },
      ],
    });
    assert.ok(r.success, JSON.stringify(r.error));
  });
}

interface Ran {
  status: number;
  stdout: string;
  stderr: string;
}

/** `shadow <args>` in this process, on a terminal or not. */
async function shadowIn(
  repo: DiskRepo,
  args: string[],
  options: { tty: boolean; env?: Record<string, string>; cwd?: string },
): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, {
    cwd: options.cwd ?? repo.dir,
    env: { ...repo.env, TERM: 'xterm', ...options.env },
    stdout: (s) => (stdout += typeof s === 'string' ? s : Buffer.from(s).toString()),
    stderr: (s) => (stderr += s),
    stdin: Readable.from([]),
    isTTY: options.tty,
  });
  return { status, stdout, stderr };
}

// ---------------------------------------------------------------- paths

const Paths = suite<Ctx>('shadow diff -- <pathspec>');
Paths.before.each(fresh);
Paths.after.each((ctx) => ctx.repo.cleanup());

const nameStatus = (repo: DiskRepo, args: string[], cwd?: string): string => {
  const r = repo.shadow(['diff', '--name-status', ...args], { cwd });
  assert.is(r.status, 0, r.stderr);
  return r.stdout;
};

Paths(
  'a path, a directory, a glob, :(literal), from a subdirectory: the files git diff names for the same pathspec',
  ({ repo }) => {
    const git = (args: string[], cwd = repo.dir): string => {
      const r = repo.gitResult('-C', cwd, 'diff', '--name-status', 'HEAD', DRAFT, '--', ...args);
      return r.stdout;
    };
    for (const spec of [
      ['README.md'],
      ['src'],
      ['src/'],
      ['src/*.ts'],
      ['src/a?.ts'],
      ['README.md', 'lib'],
      ['src/[x].ts'],
      [':(literal)src/[x].ts'],
      ['nothing-here'],
    ]) {
      assert.is(nameStatus(repo, ['--', ...spec]), git(spec), spec.join(' '));
    }
    assert.is(nameStatus(repo, ['--', ':(literal)src/[x].ts']), 'M\tsrc/[x].ts\n');
    assert.is(nameStatus(repo, ['--', 'src/a?.ts']), 'M\tsrc/ab.ts\n');
    const sub = join(repo.dir, 'src');
    assert.is(nameStatus(repo, ['--', 'util.ts', '../README.md'], sub), git(['util.ts', '../README.md'], sub));
    assert.is(nameStatus(repo, ['--', '.'], sub), git(['.'], sub));
    assert.is(nameStatus(repo, ['--', ':/README.md'], sub), 'M\tREADME.md\n');
  },
);

Paths(
  '-M with a pathspec pairs only what the pathspec holds, as git: a file moved in from outside is an addition',
  ({ repo }) => {
    for (const spec of [['src'], ['lib', 'src'], ['lib']]) {
      const ours = nameStatus(repo, ['-M', '--', ...spec]);
      assert.is(ours, repo.git('diff', '-M', '--name-status', 'HEAD', DRAFT, '--', ...spec), spec.join(' '));
    }
    assert.match(nameStatus(repo, ['-M', '--', 'lib', 'src']), /^R100\tsrc\/api\.ts\tlib\/api\.ts$/m);
    assert.match(nameStatus(repo, ['-M', '--', 'src']), /^A\tsrc\/guide\.md$/m);
    const stat = repo.shadow(['diff', '-M', '--stat', '--', 'lib', 'src']);
    assert.match(stat.stdout, /^ {src => lib}\/api\.ts +\| 0$/m);
    assert.match(stat.stdout, /^ 5 files changed/m);
    const patch = repo.shadow(['diff', '-M', '--', 'lib', 'src/api.ts']);
    assert.is(patch.stdout, repo.git('diff', '--no-color', '-M', 'HEAD', DRAFT, '--', 'lib', 'src/api.ts'));
  },
);

Paths('-M on the command line: --name-status, the patch and --stat name renames as git diff -M does', ({ repo }) => {
  for (const m of ['', '30%', '9', '100%', '.75']) {
    assert.is(nameStatus(repo, [`-M${m}`]), repo.git('diff', `-M${m}`, '--name-status', 'HEAD', DRAFT), `-M${m}`);
    assert.is(
      nameStatus(repo, [`--find-renames=${m}`]),
      repo.git('diff', `-M${m}`, '--name-status', 'HEAD', DRAFT),
      `--find-renames=${m}`,
    );
  }
  assert.is(
    nameStatus(repo, ['-M', '~1..']),
    repo.git('diff', '-M', '--name-status', 'HEAD', DRAFT),
    '-M does not take the range as its value',
  );
  assert.is(nameStatus(repo, ['-M', '--no-renames']), nameStatus(repo, []), '--no-renames: the last word wins');
  const patch = repo.shadow(['diff', '-M']);
  assert.is(patch.stdout, repo.git('diff', '--no-color', '-M', 'HEAD', DRAFT));
  const statNames = (out: string): string[] =>
    out
      .split('\n')
      .filter((l) => l.includes(' | '))
      .map((l) => l.split(' | ')[0]!.trim());
  const stat = repo.shadow(['diff', '-M', '--stat']);
  assert.equal(statNames(stat.stdout), statNames(repo.git('diff', '--no-color', '-M', '--stat=200', 'HEAD', DRAFT)));
  assert.ok(statNames(stat.stdout).includes('{src => lib}/api.ts'), stat.stdout);
});

Paths(
  'a path where a range goes: INVALID_TARGET, naming -- in the hint; unknown options are USAGE (exit 2)',
  ({ repo }) => {
    const text = repo.shadow(['diff', 'src/util.ts']);
    assert.is(text.status, 1);
    assert.is(text.stdout, '');
    assert.match(
      text.stderr,
      /^error: .*"src\/util\.ts".* a path goes after --\nhint: to see what the draft changes in a path: shadow diff -- src\/util\.ts\n$/,
    );
    const json = repo.shadow(['diff', 'src/util.ts', '--json']);
    assert.is(json.status, 1);
    const e = json.json().error;
    assert.is(e.code, 'INVALID_TARGET');
    assert.match(e.hint, /shadow diff -- src\/util\.ts/);
    assert.not.match(json.stdout + json.stderr, /\n\s+at /, 'no stack trace');
    for (const [args, message] of [
      [['--stats'], /unknown option --stats/],
      [['--color=sometimes'], /--color takes always, never or auto/],
      [['-Mx'], /invalid argument to -M/],
      [['a', 'b', 'c'], /at most two points/],
    ] as Array<[string[], RegExp]>) {
      const r = repo.shadow(['diff', ...args]);
      assert.is(r.status, 2, args.join(' '));
      assert.match(r.stderr, message);
      assert.match(r.stderr, /^hint: /m);
    }
    // Two points are a range, as git diff A B.
    const two = repo.shadow(['diff', '--name-status', '~1', '1']);
    assert.is(two.status, 0, two.stderr);
    assert.is(two.stdout, repo.shadow(['diff', '--name-status', '~1..1']).stdout);
  },
);

Paths('the library refuses a pathspec that is not from the root, and a similarity out of range', async ({ repo }) => {
  await withShadow(repo, async (sh) => {
    for (const options of [{ paths: ['/abs'] }, { paths: ['../up'] }, { renames: 101 }, { renames: -1 }]) {
      try {
        await sh.diff(options);
        assert.unreachable(JSON.stringify(options));
      } catch (e) {
        assert.is((e as { code?: string }).code, 'INVALID_ARGUMENT', JSON.stringify(options));
      }
    }
    const r = await sh.diff({ renames: 100, paths: ['lib', 'src'] });
    assert.equal(
      r.files.filter((f) => f.status === 'R').map((f) => [f.from, f.path, f.similarity]),
      [['src/api.ts', 'lib/api.ts', 100]],
    );
  });
});

const Words = suite('shadow diff words');

Words("-M<n> reads a number as git's parse_rename_score does", () => {
  const cases: Array<[string, number | undefined]> = [
    ['', 0],
    ['5', 50],
    ['50', 50],
    ['50%', 50],
    ['05', 5],
    ['.5', 50],
    ['100', 10],
    ['100%', 100],
    ['1.5', 100],
    ['5.5%', 5.5],
    ['333', 33.3],
    ['9', 90],
    ['x', undefined],
    ['50%x', undefined],
  ];
  for (const [text, percent] of cases) assert.is(renamePercent(text), percent, text);
});

Words("a rename's --stat name keeps what both paths share outside braces, as git's pprint_rename", () => {
  const cases: Array<[string, string, string]> = [
    ['src/a.ts', 'lib/a.ts', '{src => lib}/a.ts'],
    ['src/a.ts', 'src/b.ts', 'src/{a.ts => b.ts}'],
    ['a.ts', 'b.ts', 'a.ts => b.ts'],
    ['src/x/a.ts', 'src/y/a.ts', 'src/{x => y}/a.ts'],
    ['a/b/c', 'a/c', 'a/{b => }/c'],
    ['a/c', 'a/b/c', 'a/{ => b}/c'],
  ];
  for (const [a, b, name] of cases) assert.is(renameName(a, b), name, `${a} -> ${b}`);
});

// ---------------------------------------------------------------- colour

const Colour = suite<Ctx>('shadow diff colour: when');
Colour.before.each(fresh);
Colour.after.each((ctx) => ctx.repo.cleanup());

Colour(
  'coloured only on a terminal or when asked; NO_COLOR, TERM=dumb, --no-color and git config turn it off, color.diff=always on',
  async ({ repo }) => {
    const cases: Array<{
      args?: string[];
      tty: boolean;
      env?: Record<string, string>;
      config?: Record<string, string>;
      colour: boolean;
      what: string;
    }> = [
      { tty: false, colour: false, what: 'a pipe' },
      { tty: true, colour: true, what: 'a terminal' },
      { tty: true, env: { NO_COLOR: '1' }, colour: false, what: 'NO_COLOR' },
      { tty: true, env: { NO_COLOR: '' }, colour: true, what: 'an empty NO_COLOR' },
      { tty: true, env: { TERM: 'dumb' }, colour: false, what: 'TERM=dumb' },
      { tty: true, args: ['--no-color'], colour: false, what: '--no-color' },
      { tty: true, args: ['--color=never'], colour: false, what: '--color=never' },
      { tty: false, args: ['--color=always'], colour: true, what: '--color=always' },
      { tty: false, args: ['--color'], colour: true, what: '--color' },
      { tty: true, args: ['--color=auto'], env: { NO_COLOR: '1' }, colour: false, what: '--color=auto with NO_COLOR' },
      { tty: true, env: { NO_COLOR: '1' }, args: ['--color=always'], colour: true, what: 'a flag beats NO_COLOR' },
      { tty: true, config: { 'color.ui': 'never' }, colour: false, what: 'color.ui=never' },
      { tty: true, config: { 'color.ui': 'false' }, colour: false, what: 'color.ui=false' },
      { tty: false, config: { 'color.ui': 'always' }, colour: true, what: 'color.ui=always' },
      {
        tty: true,
        config: { 'color.diff': 'false', 'color.ui': 'always' },
        colour: false,
        what: 'color.diff before color.ui',
      },
      { tty: false, config: { 'color.diff': 'always' }, colour: true, what: 'color.diff=always' },
      {
        tty: true,
        config: { 'color.diff': 'always' },
        env: { NO_COLOR: '1' },
        colour: true,
        what: 'config beats NO_COLOR',
      },
      { tty: true, config: { 'color.ui': 'always' }, args: ['--no-color'], colour: false, what: 'a flag beats config' },
    ];
    const plain = repo.shadow(['diff']).stdout;
    for (const c of cases) {
      for (const key of ['color.ui', 'color.diff']) repo.gitResult('config', '--unset', key);
      for (const [k, v] of Object.entries(c.config ?? {})) repo.git('config', k, v);
      const r = await shadowIn(repo, ['diff', '--no-pager', ...(c.args ?? [])], { tty: c.tty, env: c.env });
      assert.is(r.status, 0, `${c.what}: ${r.stderr}`);
      assert.match(r.stdout, /diff --git a\/README\.md b\/README\.md/, c.what);
      assert.is(r.stdout.includes(ESC), c.colour, c.what);
      if (c.colour) assert.ok(r.stdout.startsWith('\x1b[1mdiff --git a/README.md b/README.md\x1b[m\n'), c.what);
      else assert.is(r.stdout, plain, `${c.what}: the plain bytes`);
    }
    const json = await shadowIn(repo, ['diff', '--json', '--color=always'], { tty: true });
    assert.not.ok(json.stdout.includes('\\u001b'), '--json: never colour');
  },
);

Colour(
  "--color=always: the patch is git diff --color=always's; --stat's graph + green and - red as git's; --json never colours",
  async ({ repo }) => {
    const ours = repo.shadow(['diff', '-M', '--color=always']);
    assert.is(ours.status, 0, ours.stderr);
    assert.is(ours.stdout, repo.git('diff', '--color=always', '-M', 'HEAD', DRAFT));
    const lines = (out: string): string[] => out.split('\n').filter((l) => l.includes(' | '));
    const files = ['README.md', 'src/util.ts', 'src/ab.ts'];
    const stat = lines(repo.shadow(['diff', '--stat', '--color=always', '--', ...files]).stdout);
    assert.equal(stat, lines(repo.git('diff', '--stat', '--color=always', 'HEAD', DRAFT, '--', ...files)));
    assert.ok(
      stat.some((l) => l.includes('\x1b[32m+\x1b[m\x1b[31m-\x1b[m')),
      stat.join('\n'),
    );
    const json = repo.shadow(['diff', '--json', '--color=always']);
    assert.is(json.status, 0, json.stderr);
    assert.not.ok(json.stdout.includes('\\u001b'), 'no escape in the JSON');
  },
);

// ---------------------------------------------------------------- pager

const Pager = suite<Ctx & { out: string }>('shadow diff pager');
Pager.before.each(async (ctx) => {
  await fresh(ctx);
  ctx.out = join(ctx.repo.root, 'paged');
});
Pager.after.each((ctx) => ctx.repo.cleanup());

/** A pager command that records what it was given, and the LESS and LV it saw, in `out` (suffixed by `tag`). */
const recorder = (out: string, tag: string): string =>
  `cat > '${out}.${tag}'; printf '%s|%s' "$LESS" "$LV" > '${out}.${tag}.env'`;

Pager(
  'on a terminal the output goes through the pager git would choose: GIT_PAGER, core.pager, PAGER, less; LESS=FRX and LV=-c unless set',
  async ({ repo, out }) => {
    const expected = (await shadowIn(repo, ['diff', '--color=always'], { tty: false })).stdout;
    const paged = async (tag: string, env: Record<string, string>, args: string[] = []): Promise<Ran> => {
      const r = await shadowIn(repo, ['diff', ...args], { tty: true, env });
      assert.is(r.status, 0, `${tag}: ${r.stderr}`);
      assert.is(r.stdout, '', `${tag}: nothing written past the pager`);
      return r;
    };
    await paged('git-pager', { GIT_PAGER: recorder(out, 'git-pager'), PAGER: recorder(out, 'not-this') });
    assert.is(readFileSync(`${out}.git-pager`, 'utf8'), expected, 'the pager gets the coloured diff');
    assert.is(readFileSync(`${out}.git-pager.env`, 'utf8'), 'FRX|-c');
    assert.not.ok(existsSync(`${out}.not-this`), 'GIT_PAGER before PAGER');

    repo.git('config', 'core.pager', recorder(out, 'core'));
    await paged('core', { PAGER: recorder(out, 'not-this') });
    assert.is(readFileSync(`${out}.core`, 'utf8'), expected);
    await paged('git-pager-over-core', { GIT_PAGER: recorder(out, 'git-pager-2') });
    assert.ok(existsSync(`${out}.git-pager-2`), 'GIT_PAGER before core.pager');
    repo.git('config', '--unset', 'core.pager');

    await paged('pager', { PAGER: recorder(out, 'pager'), LESS: '-R', LV: '' });
    assert.is(readFileSync(`${out}.pager`, 'utf8'), expected);
    assert.is(readFileSync(`${out}.pager.env`, 'utf8'), '-R|', 'LESS and LV as the person set them');

    // No pager named: `less`, found on PATH.
    const bin = join(repo.root, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'less'), `#!/bin/sh\n${recorder(out, 'less')}\n`);
    chmodSync(join(bin, 'less'), 0o755);
    await paged('less', { PATH: `${bin}:${repo.env.PATH}` });
    assert.is(readFileSync(`${out}.less`, 'utf8'), expected);
    assert.is(readFileSync(`${out}.less.env`, 'utf8'), 'FRX|-c');

    // --stat and --name-status are paged too.
    await paged('stat', { GIT_PAGER: recorder(out, 'stat') }, ['--stat']);
    assert.match(readFileSync(`${out}.stat`, 'utf8'), /^ README\.md +\| +2 \x1b\[32m\+\x1b\[m\x1b\[31m-\x1b\[m$/m);
  },
);

Pager(
  'no pager off a terminal, with --no-pager, with --json, or when the pager is cat or empty; color.pager=false: paged without colour',
  async ({ repo, out }) => {
    const plain = repo.shadow(['diff']).stdout;
    const env = { GIT_PAGER: recorder(out, 'x') };
    const direct: Array<[string[], boolean, Record<string, string>, string]> = [
      [[], false, env, 'not a terminal'],
      [['--no-pager'], true, env, '--no-pager'],
      [['--json'], true, env, '--json'],
      [[], true, { GIT_PAGER: 'cat' }, 'cat'],
      [[], true, { GIT_PAGER: '' }, 'an empty GIT_PAGER'],
      [[], true, { PAGER: '' }, 'an empty PAGER'],
    ];
    for (const [args, tty, e, what] of direct) {
      const r = await shadowIn(repo, ['diff', ...args], { tty, env: e });
      assert.is(r.status, 0, `${what}: ${r.stderr}`);
      assert.ok(r.stdout.includes('diff --git a/README.md'), what);
      assert.not.ok(existsSync(`${out}.x`), `${what}: the pager never ran`);
    }
    assert.is((await shadowIn(repo, ['diff'], { tty: false, env })).stdout, plain, 'a pipe gets the plain bytes');
    repo.git('config', 'color.pager', 'false');
    const r = await shadowIn(repo, ['diff'], { tty: true, env });
    assert.is(r.stdout, '');
    assert.is(readFileSync(`${out}.x`, 'utf8'), plain, 'color.pager=false: the pager gets no colour');
  },
);

Pager('an empty diff starts no pager; a pager that fails does not fail the diff', async ({ repo, out }) => {
  const env = { GIT_PAGER: recorder(out, 'empty') };
  const empty = await shadowIn(repo, ['diff', '--', 'nothing-here'], { tty: true, env });
  assert.is(empty.status, 0, empty.stderr);
  assert.is(empty.stdout, '');
  assert.not.ok(existsSync(`${out}.empty`));
  const broken = await shadowIn(repo, ['diff', '--name-status'], { tty: true, env: { GIT_PAGER: 'exit 3' } });
  assert.is(broken.status, 0, "the pager's own exit status is not the diff's");
});

Paths.run();
Words.run();
Colour.run();
Pager.run();
