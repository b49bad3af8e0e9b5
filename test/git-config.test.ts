import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Volume, createFsFromVolume } from 'memfs';
import type { FileSystem } from '../src/context.js';
import { GitConfig, parseConfig } from '../src/git/git-config.js';
import { isolatedEnv } from './helpers/disk-repo.js';

/** Ask native git what it reads for `name` in the config `text` (undefined when unset). */
function gitGet(
  dir: string,
  text: string,
  name: string,
  type: 'string' | 'bool' | 'int' = 'string',
  all = false,
): string | undefined {
  const file = join(dir, 'config');
  writeFileSync(file, text);
  const args = [
    'config',
    '-f',
    file,
    ...(type === 'string' ? [] : [`--type=${type}`]),
    all ? '--get-all' : '--get',
    name,
  ];
  const r = spawnSync('git', args, { env: isolatedEnv(join(dir, 'home')), encoding: 'utf8' });
  if (r.status === 1 && r.stderr === '') return undefined;
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.slice(0, -1); // git ends the value with one newline
}

function gitRejects(dir: string, text: string, name: string, type: 'bool' | 'int'): boolean {
  const file = join(dir, 'config');
  writeFileSync(file, text);
  const r = spawnSync('git', ['config', '-f', file, `--type=${type}`, '--get', name], {
    env: isolatedEnv(join(dir, 'home')),
    encoding: 'utf8',
  });
  return r.status !== 0 && /bad/i.test(r.stderr);
}

// ---------------------------------------------------------------- parseConfig

const Parse = suite('parseConfig');

Parse('returns every entry in file order: section and key folded, subsection kept, null for a bare key', () => {
  const text = [
    '# a comment',
    '; another comment',
    '[Core]',
    '\tBare = false',
    '\tFlag',
    '[remote "Origin"]',
    '\turl = https://example.com/x.git',
    '\tfetch = +refs/heads/*:refs/remotes/Origin/*',
    '[core]',
    '\tbare = true',
    '',
  ].join('\n');
  assert.equal(parseConfig(text, 'config'), [
    { name: 'core.bare', value: 'false' },
    { name: 'core.flag', value: null },
    { name: 'remote.Origin.url', value: 'https://example.com/x.git' },
    { name: 'remote.Origin.fetch', value: '+refs/heads/*:refs/remotes/Origin/*' },
    { name: 'core.bare', value: 'true' },
  ]);
});

Parse('an empty text and a text of only comments have no entries', () => {
  assert.equal(parseConfig('', 'x'), []);
  assert.equal(parseConfig('# nothing\n; here\n\n', 'x'), []);
});

Parse.run();

// ---------------------------------------------------------------- values, checked against native git

interface ValueCase {
  what: string;
  text: string;
  name: string;
  expected: string | undefined;
}

const VALUE_CASES: ValueCase[] = [
  { what: 'a plain value', text: '[core]\n\tbare = false\n', name: 'core.bare', expected: 'false' },
  { what: 'section and key names fold case', text: '[CoRe]\n\tEditor = vim\n', name: 'CORE.editor', expected: 'vim' },
  {
    what: 'a quoted subsection keeps its case',
    text: '[remote "Origin"]\n\turl = u1\n',
    name: 'remote.Origin.url',
    expected: 'u1',
  },
  {
    what: 'a subsection of another case is another subsection',
    text: '[remote "Origin"]\n\turl = u1\n',
    name: 'remote.origin.url',
    expected: undefined,
  },
  {
    what: 'section and key fold case around a case-kept subsection',
    text: '[REMOTE "Up"]\n\tURL = u2\n',
    name: 'Remote.Up.Url',
    expected: 'u2',
  },
  {
    what: 'the legacy [section.subsection] form lower-cases the subsection',
    text: '[Foo.Bar]\n\tkey = legacy\n',
    name: 'foo.bar.key',
    expected: 'legacy',
  },
  {
    what: 'escaped quote and backslash in a subsection',
    text: '[s "a\\"b\\\\c"]\n\tk = sub\n',
    name: 's.a"b\\c.k',
    expected: 'sub',
  },
  { what: 'a ] inside a quoted subsection', text: '[s "a]b"]\n\tk = bracket\n', name: 's.a]b.k', expected: 'bracket' },
  {
    what: 'a key on the same line as its section header',
    text: '[t] k = sameline\n',
    name: 't.k',
    expected: 'sameline',
  },
  { what: 'quotes keep spaces, ; and #', text: '[a]\n\tq = "  a ; b # c  "\n', name: 'a.q', expected: '  a ; b # c  ' },
  { what: 'an inline ; comment ends the value', text: '[a]\n\tv = value ; comment\n', name: 'a.v', expected: 'value' },
  { what: 'an inline # comment ends the value', text: '[a]\n\tv = value # comment\n', name: 'a.v', expected: 'value' },
  {
    what: 'inner spaces are kept, outer ones dropped',
    text: '[a]\n\tv =   a   b   \n',
    name: 'a.v',
    expected: 'a   b',
  },
  { what: 'no spaces around =', text: '[a]\n\tv=tight\n', name: 'a.v', expected: 'tight' },
  {
    what: 'escapes \\n \\t \\" \\\\ inside quotes',
    text: '[a]\n\tv = "x\\ty\\nz\\"q\\\\r"\n',
    name: 'a.v',
    expected: 'x\ty\nz"q\\r',
  },
  { what: 'escapes outside quotes', text: '[a]\n\tv = x\\ty\\\\z\n', name: 'a.v', expected: 'x\ty\\z' },
  { what: 'a line continuation joins lines', text: '[a]\n\tv = one \\\ntwo\n', name: 'a.v', expected: 'one two' },
  { what: 'a line continuation inside quotes', text: '[a]\n\tv = "one\\\ntwo"\n', name: 'a.v', expected: 'onetwo' },
  { what: 'a quoted part in the middle of a value', text: '[a]\n\tv = x" ; "y\n', name: 'a.v', expected: 'x ; y' },
  {
    what: 'unquoted whitespace becomes spaces, as git reads it',
    text: '[a]\n\tv = x\t\ty\n',
    name: 'a.v',
    expected: 'x  y',
  },
  { what: 'CRLF line endings', text: '[a]\r\n\tv = crlf\r\n\tw = next\r\n', name: 'a.v', expected: 'crlf' },
  { what: 'the line after a CRLF line', text: '[a]\r\n\tv = crlf\r\n\tw = next\r\n', name: 'a.w', expected: 'next' },
  {
    what: 'comment lines that look like entries',
    text: '[a]\n; v = commented\n# v = commented\n\tv = real\n',
    name: 'a.v',
    expected: 'real',
  },
  { what: 'an empty value', text: '[a]\n\tv =\n', name: 'a.v', expected: '' },
  {
    what: 'the last value wins across repeated sections',
    text: '[m]\n\tv = 1\n\tv = 2\n[other]\n\tv = x\n[M]\n\tv = 3\n',
    name: 'm.v',
    expected: '3',
  },
  { what: 'keys with dashes and digits', text: '[a]\n\tmax-size2 = 5\n', name: 'a.max-size2', expected: '5' },
  { what: 'an absent key', text: '[a]\n\tv = 1\n', name: 'a.w', expected: undefined },
];

const BOOL_CASES: Array<{ raw: string | null; expected: boolean }> = [
  { raw: 'true', expected: true },
  { raw: 'TRUE', expected: true },
  { raw: 'yes', expected: true },
  { raw: 'On', expected: true },
  { raw: '1', expected: true },
  { raw: '10', expected: true },
  { raw: null, expected: true }, // a key with no "=" at all
  { raw: 'false', expected: false },
  { raw: 'False', expected: false },
  { raw: 'no', expected: false },
  { raw: 'off', expected: false },
  { raw: '0', expected: false },
  { raw: '', expected: false },
];

const INT_CASES: Array<{ raw: string; expected: number }> = [
  { raw: '0', expected: 0 },
  { raw: '42', expected: 42 },
  { raw: '-5', expected: -5 },
  { raw: '1k', expected: 1024 },
  { raw: '3K', expected: 3 * 1024 },
  { raw: '2m', expected: 2 * 1024 * 1024 },
  { raw: '1g', expected: 1024 * 1024 * 1024 },
];

const Values = suite<{ dir: string }>('GitConfig.fromText');
Values.before.each((ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'shadow-config-'));
});
Values.after.each((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

for (const c of VALUE_CASES) {
  Values(`value: ${c.what}`, ({ dir }) => {
    assert.is(gitGet(dir, c.text, c.name), c.expected, 'git itself disagrees with the table');
    assert.is(GitConfig.fromText(c.text).get(c.name), c.expected);
  });
}

for (const c of BOOL_CASES) {
  Values(`boolean: ${c.raw === null ? 'a key without "="' : JSON.stringify(c.raw)} is ${c.expected}`, ({ dir }) => {
    const text = c.raw === null ? '[a]\n\tb\n' : `[a]\n\tb = ${c.raw}\n`;
    assert.is(gitGet(dir, text, 'a.b', 'bool'), String(c.expected), 'git itself disagrees with the table');
    assert.is(GitConfig.fromText(text).getBool('a.b'), c.expected);
  });
}

Values('a key without "=" reads as "true"; an absent boolean is undefined', () => {
  assert.is(GitConfig.fromText('[a]\n\tb\n').get('a.b'), 'true');
  assert.is(GitConfig.fromText('[a]\n').getBool('a.b'), undefined);
});

Values('integers with k, m and g suffixes', ({ dir }) => {
  for (const c of INT_CASES) {
    const text = `[a]\n\tn = ${c.raw}\n`;
    assert.is(gitGet(dir, text, 'a.n', 'int'), String(c.expected), `git: ${c.raw}`);
    assert.is(GitConfig.fromText(text).getInt('a.n'), c.expected, `getInt(${c.raw})`);
  }
  assert.is(GitConfig.fromText('[a]\n').getInt('a.n'), undefined);
});

Values('a value git rejects as a boolean or an integer is INVALID_ARGUMENT with a fix in the hint', ({ dir }) => {
  const cases: Array<{ text: string; type: 'bool' | 'int'; read: (c: GitConfig) => unknown }> = [
    { text: '[a]\n\tv = maybe\n', type: 'bool', read: (c) => c.getBool('a.v') },
    { text: '[a]\n\tv = 12x\n', type: 'int', read: (c) => c.getInt('a.v') },
    { text: '[a]\n\tv = lots\n', type: 'int', read: (c) => c.getInt('a.v') },
  ];
  for (const c of cases) {
    assert.ok(gitRejects(dir, c.text, 'a.v', c.type), `git accepts ${c.text}`);
    try {
      c.read(GitConfig.fromText(c.text));
      assert.unreachable(`accepted ${JSON.stringify(c.text)}`);
    } catch (e) {
      const err = e as { code?: string; message: string; hint?: string };
      assert.is(err.code, 'INVALID_ARGUMENT');
      assert.match(err.message, 'a.v');
      assert.match(err.hint ?? '', '`git config a.v');
    }
  }
});

Values('getAll returns every value in file order, across repeated sections', ({ dir }) => {
  const text =
    '[remote "o"]\n\tfetch = a\n\tfetch = b\n[remote "p"]\n\tfetch = other\n[remote "o"]\n\tfetch = c\n\tflag\n';
  const c = GitConfig.fromText(text);
  assert.equal(c.getAll('remote.o.fetch'), ['a', 'b', 'c']);
  assert.is(gitGet(dir, text, 'remote.o.fetch', 'string', true), 'a\nb\nc');
  assert.equal(c.getAll('remote.o.flag'), ['true']);
  assert.equal(c.getAll('remote.q.fetch'), []);
  assert.is(c.get('remote.o.fetch'), 'c');
});

Values.run();

// ---------------------------------------------------------------- load: files, environment, includes

type Files = Record<string, string>;

function memFs(files: Files): FileSystem {
  return createFsFromVolume(Volume.fromJSON(files)) as unknown as FileSystem;
}

const GITDIR = '/home/u/work/proj/.git';

function load(files: Files, env: Record<string, string | undefined>, gitdir = GITDIR, commondir = gitdir): GitConfig {
  const fs = memFs({ [`${commondir}/HEAD`]: 'ref: refs/heads/main\n', ...files });
  return GitConfig.load({ fs, env, gitdir, commondir });
}

const LEVEL_FILES: Files = {
  '/etc/gitconfig': '[a]\n\twho = system\n',
  '/custom/system': '[a]\n\twho = custom-system\n',
  '/home/u/.config/git/config': '[a]\n\twho = xdg\n',
  '/xdg/git/config': '[a]\n\twho = xdg-custom\n',
  '/home/u/.gitconfig': '[a]\n\twho = global\n',
  '/g/config': '[a]\n\twho = git-config-global\n',
  [`${GITDIR}/config`]: '[a]\n\twho = local\n',
};

const ENV_CASES: Array<{ what: string; env: Record<string, string | undefined>; order: string[] }> = [
  { what: 'every level, system first', env: { HOME: '/home/u' }, order: ['system', 'xdg', 'global', 'local'] },
  {
    what: 'GIT_CONFIG_NOSYSTEM=1 skips the system file',
    env: { HOME: '/home/u', GIT_CONFIG_NOSYSTEM: '1' },
    order: ['xdg', 'global', 'local'],
  },
  {
    what: 'GIT_CONFIG_NOSYSTEM=true skips the system file',
    env: { HOME: '/home/u', GIT_CONFIG_NOSYSTEM: 'true' },
    order: ['xdg', 'global', 'local'],
  },
  {
    what: 'GIT_CONFIG_NOSYSTEM=0 is false, as git reads it',
    env: { HOME: '/home/u', GIT_CONFIG_NOSYSTEM: '0' },
    order: ['system', 'xdg', 'global', 'local'],
  },
  {
    what: 'GIT_CONFIG_SYSTEM names another system file',
    env: { HOME: '/home/u', GIT_CONFIG_SYSTEM: '/custom/system' },
    order: ['custom-system', 'xdg', 'global', 'local'],
  },
  {
    what: 'XDG_CONFIG_HOME moves the xdg file',
    env: { HOME: '/home/u', GIT_CONFIG_NOSYSTEM: '1', XDG_CONFIG_HOME: '/xdg' },
    order: ['xdg-custom', 'global', 'local'],
  },
  {
    what: 'GIT_CONFIG_GLOBAL replaces both the xdg and the home file',
    env: { HOME: '/home/u', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/g/config' },
    order: ['git-config-global', 'local'],
  },
  {
    what: 'GIT_CONFIG_GLOBAL=/dev/null reads no global file',
    env: { HOME: '/home/u', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    order: ['local'],
  },
  { what: 'no HOME: no global file', env: { GIT_CONFIG_NOSYSTEM: '1' }, order: ['local'] },
];

const Load = suite('GitConfig.load');

for (const c of ENV_CASES) {
  Load(`files read: ${c.what}`, () => {
    const config = load(LEVEL_FILES, c.env);
    assert.equal(config.getAll('a.who'), c.order);
    assert.is(config.get('a.who'), 'local');
  });
}

Load('missing files are no error', () => {
  const config = load({ [`${GITDIR}/config`]: '[user]\n\tname = Only Local\n' }, { HOME: '/home/nobody' });
  assert.is(config.get('user.name'), 'Only Local');
  assert.equal(load({}, { HOME: '/home/nobody' }).names(), []);
});

Load('config.worktree is read after the local file only with extensions.worktreeConfig', () => {
  const gitdir = '/home/u/work/proj/.git/worktrees/wt';
  const commondir = '/home/u/work/proj/.git';
  const files = {
    [`${commondir}/config`]:
      '[core]\n\trepositoryformatversion = 1\n[extensions]\n\tworktreeConfig = true\n[a]\n\twho = local\n',
    [`${gitdir}/config.worktree`]: '[a]\n\twho = worktree\n',
  };
  const on = load(files, { GIT_CONFIG_NOSYSTEM: '1' }, gitdir, commondir);
  assert.equal(on.getAll('a.who'), ['local', 'worktree']);
  const off = load(
    { ...files, [`${commondir}/config`]: '[a]\n\twho = local\n' },
    { GIT_CONFIG_NOSYSTEM: '1' },
    gitdir,
    commondir,
  );
  assert.equal(off.getAll('a.who'), ['local']);
});

Load('include.path: relative to the including file, ~/ from HOME, nested, in place', () => {
  const files = {
    '/home/u/.gitconfig':
      '[user]\n\tname = before\n[include]\n\tpath = conf.d/identity\n[core]\n\teditor = after-include\n',
    '/home/u/conf.d/identity': '[user]\n\tname = Included Name\n[include]\n\tpath = more\n',
    '/home/u/conf.d/more': '[user]\n\temail = nested@example.com\n',
    '/home/u/tilde.inc': '[alias]\n\tst = status\n',
    [`${GITDIR}/config`]: '[include]\n\tpath = ~/tilde.inc\n\tpath = local.inc\n',
    [`${GITDIR}/local.inc`]: '[core]\n\teditor = from-local-include\n',
  };
  const config = load(files, { HOME: '/home/u', GIT_CONFIG_NOSYSTEM: '1' });
  assert.is(config.get('user.name'), 'Included Name');
  assert.equal(config.getAll('user.name'), ['before', 'Included Name']);
  assert.is(config.get('user.email'), 'nested@example.com');
  assert.is(config.get('alias.st'), 'status');
  assert.equal(config.getAll('core.editor'), ['after-include', 'from-local-include']);
});

Load('a value after an include overrides the included one', () => {
  const files = {
    [`${GITDIR}/config`]: '[include]\n\tpath = inc\n[user]\n\tname = after\n',
    [`${GITDIR}/inc`]: '[user]\n\tname = included\n',
  };
  assert.is(load(files, { GIT_CONFIG_NOSYSTEM: '1' }).get('user.name'), 'after');
});

Load('a missing include file is skipped and an include cycle ends', () => {
  const files = {
    [`${GITDIR}/config`]: '[include]\n\tpath = missing.inc\n\tpath = self.inc\n[user]\n\tname = local\n',
    [`${GITDIR}/self.inc`]: '[a]\n\tv = 1\n[include]\n\tpath = self.inc\n',
  };
  const config = load(files, { GIT_CONFIG_NOSYSTEM: '1' });
  assert.is(config.get('user.name'), 'local');
  assert.is(config.get('a.v'), '1');
});

const INCLUDE_IF_CASES: Array<{ gitdir: string; work: boolean; workI: boolean; proj: boolean }> = [
  { gitdir: '/home/u/work/proj/.git', work: true, workI: true, proj: true },
  { gitdir: '/home/u/work/deep/er/repo/.git', work: true, workI: true, proj: false },
  { gitdir: '/home/u/Work/proj/.git', work: false, workI: true, proj: true },
  { gitdir: '/home/u/other/proj/.git', work: false, workI: false, proj: true },
  { gitdir: '/home/u/workshop/.git', work: false, workI: false, proj: false },
  { gitdir: '/srv/work/app/.git', work: false, workI: false, proj: false },
];

Load('includeIf "gitdir:~/work/" applies only to repositories under ~/work (gitdir/i folds case)', () => {
  const global =
    '[includeIf "gitdir:~/work/"]\n\tpath = ~/work.inc\n' +
    '[includeIf "gitdir/i:~/WORK/"]\n\tpath = ~/worki.inc\n' +
    '[includeIf "gitdir:proj/"]\n\tpath = ~/proj.inc\n';
  for (const c of INCLUDE_IF_CASES) {
    const files = {
      '/home/u/.gitconfig': global,
      '/home/u/work.inc': '[user]\n\temail = me@work.example\n',
      '/home/u/worki.inc': '[x]\n\ti = yes\n',
      '/home/u/proj.inc': '[x]\n\tp = yes\n',
      [`${c.gitdir}/config`]: '[core]\n\tbare = false\n',
    };
    const config = load(files, { HOME: '/home/u', GIT_CONFIG_NOSYSTEM: '1' }, c.gitdir);
    assert.is(config.get('user.email'), c.work ? 'me@work.example' : undefined, `gitdir:~/work/ for ${c.gitdir}`);
    assert.is(config.get('x.i'), c.workI ? 'yes' : undefined, `gitdir/i:~/WORK/ for ${c.gitdir}`);
    assert.is(config.get('x.p'), c.proj ? 'yes' : undefined, `gitdir:proj/ for ${c.gitdir}`);
    assert.is(config.get('core.bare'), 'false');
  }
});

Load.run();
