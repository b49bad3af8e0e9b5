import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { DiskRepo } from './helpers/disk-repo.js';
import { prng } from './helpers/prng.js';
import { attributesOf, parseAttrFile, type AttrState } from '../src/git/format/gitattributes.js';
import { eolAction, eolToGit, eolToWorktree, type EolAction, type EolConfig } from '../src/git/format/eol.js';
import { AttributeFiles, baseAttributeFiles } from '../src/git/attribute-files.js';

/**
 * Attributes and end-of-line conversion against native git: `git
 * check-attr` for which attributes a path has, `git hash-object --path` and
 * `git cat-file --filters` for the bytes each direction makes.
 */

const NAMES = ['text', 'eol', 'crlf', 'ident', 'filter', 'diff', 'merge', 'working-tree-encoding', 'custom'];

/** git check-attr's answers: name → set/unset/value, unspecified left out. */
function checkAttr(repo: DiskRepo, paths: string[]): Map<string, Map<string, AttrState>> {
  const r = spawnSync('git', ['check-attr', '--stdin', '-z', ...NAMES], {
    cwd: repo.dir,
    env: repo.env,
    input: paths.join('\0') + '\0',
    encoding: 'utf8',
  });
  assert.is(r.status, 0, r.stderr);
  const parts = r.stdout.split('\0');
  const out = new Map<string, Map<string, AttrState>>();
  for (let i = 0; i + 2 < parts.length; i += 3) {
    const [path, name, value] = [parts[i]!, parts[i + 1]!, parts[i + 2]!];
    if (!out.has(path)) out.set(path, new Map());
    if (value === 'unspecified') continue;
    out.get(path)!.set(name, value === 'set' ? true : value === 'unset' ? false : value);
  }
  return out;
}

const Attrs = suite('gitattributes: the same answers as git check-attr');

Attrs('precedence across levels, macros, quoted and anchored patterns, info/attributes and core.attributesFile', () => {
  const repo = new DiskRepo(null);
  try {
    repo.write(
      '.gitattributes',
      [
        '# comment',
        '[attr]mine text eol=crlf custom=macro',
        '* text=auto',
        '*.txt text',
        '*.bin binary',
        '*.mine mine',
        '*.mine -custom',
        'docs/** eol=lf',
        '/top.md -text',
        'a/*/c.txt filter=lfs diff=lfs merge=lfs',
        '"sp ace.txt" ident',
        'dir/ text=never-matches-files',
        '!neg.txt -text',
        '*.{c,h} custom=brace',
        '*.enc working-tree-encoding=UTF-16',
        '  indented.txt custom=indent',
      ].join('\n') + '\n',
    );
    repo.write('a/.gitattributes', '*.txt -text\nb/c.txt !filter\n[attr]mine custom=ignored-below-root\nm.mine mine\n');
    repo.write('a/b/.gitattributes', 'c.txt text=auto\n');
    repo.write('docs/.gitattributes', 'x.md crlf=input\n');
    repo.write('.git/info/attributes', 'override.txt -text custom=info\n');
    nodeFs.writeFileSync(join(repo.home, 'global-attrs'), '*.glob custom=global\noverride.txt custom=global\n');
    repo.git('config', 'core.attributesFile', join(repo.home, 'global-attrs'));
    const paths = [
      'x.txt',
      'top.md',
      'sub/top.md',
      'y.bin',
      'z.mine',
      'docs/x.md',
      'docs/deep/y.md',
      'a/x.txt',
      'a/b/c.txt',
      'a/q/c.txt',
      'a/q/r/c.txt',
      'sp ace.txt',
      'dir/f',
      'dir',
      'neg.txt',
      'f.{c,h}',
      'f.c',
      'w.enc',
      'indented.txt',
      'override.txt',
      'g.glob',
      'a/m.mine',
      'nothing',
      '.hidden.txt',
      'a/.hidden/x.txt',
    ];
    const git = checkAttr(repo, paths);
    const [low, high] = baseAttributeFiles(repo.env, join(repo.dir, '.git'), join(repo.home, 'global-attrs'));
    const files = new AttributeFiles(nodeFs, repo.dir, low, high, false, () => Date.now());
    for (const p of paths)
      assert.equal(Object.fromEntries(files.of(p, NAMES)), Object.fromEntries(git.get(p) ?? new Map()), p);
  } finally {
    repo.cleanup();
  }
});

Attrs('a file that changes is read again on renew', () => {
  const repo = new DiskRepo(null);
  try {
    repo.write('.gitattributes', '*.txt text\n');
    const files = new AttributeFiles(nodeFs, repo.dir, [], [], false, () => Date.now());
    assert.equal(files.of('a.txt', ['text']).get('text'), true);
    repo.write('.gitattributes', '*.txt -text\n# longer, so the stamp differs\n');
    files.renew();
    assert.equal(files.of('a.txt', ['text']).get('text'), false);
  } finally {
    repo.cleanup();
  }
});

Attrs('parse: a set macro brings its attributes at its own precedence; a later line overrides', () => {
  const f = parseAttrFile('[attr]m a b=1\n*.x m\n*.x -a\n', '', true);
  assert.equal(Object.fromEntries(attributesOf([f], 'q.x', ['a', 'b'])), { a: false, b: '1' });
  const below = parseAttrFile('*.x m\n', 'sub', false);
  assert.equal(Object.fromEntries(attributesOf([f, below], 'sub/q.x', ['a', 'b'])), { a: true, b: '1' });
});

const Eol = suite('eol: the same bytes as git add and git checkout');

/** Random buffers drawn from the bytes git's rules tell apart. */
function randomBuffers(n: number): Buffer[] {
  const rand = prng(19);
  const alphabet = [0x61, 0x62, 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x09, 0x01, 0x1a, 0x7f];
  const out: Buffer[] = [Buffer.alloc(0), Buffer.from('\r\n'), Buffer.from('\n'), Buffer.from('a\rb\n')];
  while (out.length < n) {
    const len = 1 + Math.floor(rand() * 24);
    // Mostly text, now and then a binary-looking byte.
    out.push(
      Buffer.from(
        Array.from({ length: len }, () => alphabet[Math.floor(rand() * (rand() < 0.9 ? 6 : alphabet.length))]!),
      ),
    );
  }
  return out;
}

/** File extensions and the rule each gets. */
const RULES: Array<[string, string]> = [
  ['auto', 'text=auto'],
  ['text', 'text'],
  ['crlf', 'text eol=crlf'],
  ['lf', 'text eol=lf'],
  ['autocrlf', 'text=auto eol=crlf'],
  ['autolf', 'text=auto eol=lf'],
  ['eolonly', 'eol=crlf'],
  ['none', '-text'],
  ['unset', ''],
];

for (const config of [
  { autocrlf: false, eol: 'native' },
  { autocrlf: true, eol: 'native' },
  { autocrlf: 'input', eol: 'native' },
  { autocrlf: false, eol: 'crlf' },
] as EolConfig[]) {
  Eol(`core.autocrlf=${config.autocrlf} core.eol=${config.eol}: every rule, random buffers`, () => {
    const repo = new DiskRepo(null);
    try {
      repo.git('config', 'core.autocrlf', String(config.autocrlf));
      repo.git('config', 'core.eol', config.eol);
      repo.git('config', 'core.safecrlf', 'false');
      const buffers = randomBuffers(40);
      const actions = new Map<string, EolAction>();
      for (const [ext, rule] of RULES) {
        const a = attributesOf([parseAttrFile(`*.${ext} ${rule}\n`, '', true)], `x.${ext}`, ['text', 'crlf', 'eol']);
        actions.set(
          ext,
          eolAction(
            { text: a.get('text') ?? undefined, crlf: a.get('crlf') ?? undefined, eol: a.get('eol') ?? undefined },
            config,
          ),
        );
      }
      // Checkout: the buffers committed as they are, then checked out under each rule.
      repo.write('.gitattributes', '* -text\n');
      buffers.forEach((b, i) => RULES.forEach(([ext]) => repo.write(`raw${i}.${ext}`, b)));
      repo.git('add', '-A');
      repo.git('commit', '-q', '-m', 'raw');
      repo.write(
        '.gitattributes',
        RULES.filter(([, r]) => r)
          .map(([ext, r]) => `*.${ext} ${r}`)
          .join('\n') + '\n',
      );
      repo.git('add', '.gitattributes');
      repo.git('commit', '-q', '-m', 'rules');
      buffers.forEach((_, i) => RULES.forEach(([ext]) => nodeFs.rmSync(repo.path(`raw${i}.${ext}`))));
      repo.git('checkout', '--', '.');
      buffers.forEach((b, i) =>
        RULES.forEach(([ext]) => {
          const theirs = nodeFs.readFileSync(repo.path(`raw${i}.${ext}`));
          const ours = eolToWorktree(b, actions.get(ext)!, config);
          assert.ok(
            ours.equals(theirs),
            `${ext} (${actions.get(ext)}) checkout ${JSON.stringify(b.toString('latin1'))}: git ${JSON.stringify(theirs.toString('latin1'))}, ours ${JSON.stringify(ours.toString('latin1'))}`,
          );
        }),
      );
      // Add: new files under each rule.
      buffers.forEach((b, i) => RULES.forEach(([ext]) => repo.write(`new${i}.${ext}`, b)));
      repo.git('add', '-A');
      const staged = new Map(
        repo
          .git('ls-files', '-s', '-z')
          .split('\0')
          .filter(Boolean)
          .map((l) => [l.slice(l.indexOf('\t') + 1), l.split(' ')[1]!] as const),
      );
      buffers.forEach((b, i) =>
        RULES.forEach(([ext]) => {
          const ours = eolToGit(b, actions.get(ext)!);
          const theirs = spawnSync('git', ['cat-file', 'blob', staged.get(`new${i}.${ext}`)!], {
            cwd: repo.dir,
            env: repo.env,
          }).stdout;
          assert.ok(
            ours.equals(theirs),
            `${ext} (${actions.get(ext)}) add ${JSON.stringify(b.toString('latin1'))}: git ${JSON.stringify(theirs.toString('latin1'))}, ours ${JSON.stringify(ours.toString('latin1'))}`,
          );
        }),
      );
    } finally {
      repo.cleanup();
    }
  });
}

Attrs.run();
Eol.run();
