/**
 * The README is a guide and docs/ the reference: the README stays short,
 * every relative link in it and in docs/ leads somewhere, every error code
 * is documented with the exit and HTTP statuses the code gives it, and every
 * shell block of the README runs as written, with the built `shadow` on the
 * PATH, in a scratch repository (a block not meant to run says so, and why).
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { statusFor } from '../src/http/http-errors.js';
import { exitStatusFor } from '../cli/exit-status.js';
import { SHADOW_BIN, isolatedEnv } from './helpers/disk-repo.js';
import { anchors, links, shellBlocks, shellCommands } from './helpers/markdown-doc.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const MAX_README_LINES = 420;

/** README.md and the prose under docs/ (the generated API reference has its own checks). */
function markdownFiles(): string[] {
  const out = ['README.md'];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(ROOT, dir)).sort()) {
      const rel = `${dir}/${name}`;
      if (rel === 'docs/api') continue;
      if (statSync(join(ROOT, rel)).isDirectory()) walk(rel);
      else if (name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out;
}

/** What is wrong with each relative link of the files, as `file:line: target: why`. */
function brokenLinks(files: string[], read: (rel: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const text = read(file)!;
    for (const { line, target } of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#', 2);
      const rel =
        path === '' ? file : relative(ROOT, join(ROOT, dirname(file), decodeURIComponent(path))).replace(/\/$/, '');
      const where = `${file}:${line}: ${target}`;
      const body = read(rel);
      if (body === undefined) {
        broken.push(`${where}: no such file`);
        continue;
      }
      if (anchor !== undefined && rel.endsWith('.md') && !anchors(body).has(anchor))
        broken.push(`${where}: no heading #${anchor} in ${rel}`);
    }
  }
  return broken;
}

function readFromRoot(rel: string): string | undefined {
  const abs = join(ROOT, rel);
  if (!existsSync(abs)) return undefined;
  return statSync(abs).isDirectory() ? '' : readFileSync(abs, 'utf8');
}

const Guide = suite('README as a guide, docs/ as the reference');

Guide(`the README is at most ${MAX_README_LINES} lines`, () => {
  const lines = README.split('\n').length - (README.endsWith('\n') ? 1 : 0);
  assert.ok(lines <= MAX_README_LINES, `README.md has ${lines} lines: move the detail into docs/`);
});

Guide('every relative link of README.md and docs/ names a file that exists, and a heading that exists', () => {
  assert.equal(brokenLinks(markdownFiles(), readFromRoot), []);
});

Guide('the link check catches a missing file, a missing heading and a link that leaves docs/ wrongly', () => {
  const files: Record<string, string> = {
    'README.md': '# t\n\n[ok](docs/a.md#the-b-part) [gone](docs/gone.md) [`code`](#t) `[not](a/link.md)`\n',
    'docs/a.md':
      '# A\n\n## The `b` part!\n\n[up](../README.md#t) [bad](README.md) [anchor](#nope)\n\n```\n[in](code.md)\n```\n',
  };
  const broken = brokenLinks(Object.keys(files), (rel) => files[rel]);
  assert.equal(broken, [
    'README.md:3: docs/gone.md: no such file',
    'docs/a.md:5: README.md: no such file',
    'docs/a.md:5: #nope: no heading #nope in docs/a.md',
  ]);
});

/** The codes of the ErrorCode union in src/errors.ts. */
function errorCodes(): string[] {
  const src = readFileSync(join(ROOT, 'src/errors.ts'), 'utf8');
  const union = /export type ErrorCode =([\s\S]*?);/.exec(src)![1]!;
  return [...union.matchAll(/\|\s*'([A-Z0-9_]+)'/g)].map((m) => m[1]!);
}

Guide('docs/errors.md documents every error code once, with the exit status and HTTP status the code gives it', () => {
  const codes = errorCodes();
  assert.ok(
    codes.length > 80 && codes.includes('INVALID_BASE64') && codes.includes('INTERNAL'),
    `read ${codes.length} codes`,
  );
  const rows = [
    ...readFileSync(join(ROOT, 'docs/errors.md'), 'utf8').matchAll(
      /^\| `([A-Z0-9_]+)` \| (\d+) \| (\d+) \| (.+) \|$/gm,
    ),
  ];
  const documented = rows.map((r) => r[1]!);
  assert.equal([...documented].sort(), [...codes].sort(), 'one row for each code of src/errors.ts');
  for (const [, code, exit, http, when] of rows) {
    assert.is(Number(exit), exitStatusFor(code!), `${code}: exit status`);
    assert.is(Number(http), statusFor(code!), `${code}: HTTP status`);
    assert.ok(when!.trim().length > 10, `${code}: says when it happens`);
  }
});

const Blocks = suite("README's shell blocks");

Blocks(
  'the shell block parser reads commands as the shell does: quotes, here-documents, continuations, comments',
  () => {
    const text = [
      "cd my-project          # it's a comment, quote and all",
      "echo 'a # not a comment",
      "b' | shadow batch -",
      "shadow batch - <<'EOF'",
      '{"x": "# kept"}',
      'EOF',
      'shadow diff \\',
      '  --stat',
      '# a line of comment only',
      '',
    ].join('\n');
    assert.equal(shellCommands(text), [
      'cd my-project',
      "echo 'a # not a comment\nb' | shadow batch -",
      'shadow batch - <<\'EOF\'\n{"x": "# kept"}\nEOF',
      'shadow diff \\\n  --stat',
    ]);
    const md = '<!-- not run: installs -->\n```sh\nnpm ci\n```\n\n```sh\nshadow log\n```\n\n```json\n{}\n```\n';
    assert.equal(shellBlocks(md), [
      { line: 2, text: 'npm ci', notRun: 'installs' },
      { line: 6, text: 'shadow log' },
    ]);
  },
);

Blocks(
  'every shell block the README runs exits 0 at every command, in a scratch repository with the built shadow on the PATH',
  () => {
    const blocks = shellBlocks(README);
    const notRun = blocks.filter((b) => b.notRun !== undefined);
    for (const b of notRun) console.log(`not run: README.md:${b.line}: ${b.notRun}`);
    assert.ok(
      notRun.some((b) => b.text.includes('npm ci && npm test')),
      'the quick start says why it is not run here',
    );
    const run = blocks.filter((b) => b.notRun === undefined);
    const commands = run.flatMap((b) => shellCommands(b.text).map((command) => ({ command, line: b.line })));
    assert.ok(
      commands.some((c) => c.command.startsWith('shadow batch -')),
      'the first session is among the blocks run',
    );
    assert.ok(commands.length >= 30, `${commands.length} commands`);

    const root = mkdtempSync(join(tmpdir(), 'shadow-readme-'));
    try {
      const home = join(root, 'home');
      const project = join(root, 'work/my-project');
      mkdirSync(home);
      mkdirSync(project, { recursive: true });
      const env = {
        ...isolatedEnv(home),
        PATH: `${dirname(SHADOW_BIN)}:${process.env.PATH ?? ''}`,
        SHADOW_HANDOFF: '0',
      };
      const git = (cwd: string, ...args: string[]): void => {
        const r = spawnSync('git', args, { cwd, env, encoding: 'utf8' });
        assert.is(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
      };
      git(root, 'init', '-q', '--bare', 'origin.git');
      git(project, 'init', '-q', '-b', 'main');
      git(project, 'config', 'user.name', 'A Person');
      git(project, 'config', 'user.email', 'person@example.com');
      writeFileSync(join(project, 'README.md'), 'Hello\n');
      writeFileSync(join(project, 'old.txt'), 'old\n');
      git(project, 'add', '-A');
      git(project, 'commit', '-q', '-m', 'a project');
      git(project, 'remote', 'add', 'origin', join(root, 'origin.git'));

      const script = commands.map((c, i) => `${c.command}\nprintf '\\n@@readme %d %d\\n' ${i} $?`).join('\n');
      const r = spawnSync('sh', ['-c', script], { cwd: join(root, 'work'), env, encoding: 'utf8', timeout: 120_000 });
      const statuses = new Map(
        [...r.stdout.matchAll(/^@@readme (\d+) (\d+)$/gm)].map((m) => [Number(m[1]), Number(m[2])]),
      );
      commands.forEach((c, i) => {
        assert.is(
          statuses.get(i),
          0,
          `README.md:${c.line}: \`${c.command}\` exit ${statuses.get(i)}\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`,
        );
      });
      assert.is(r.status, 0, r.stderr);
      // What the session left is what the README says: the apply was taken back, the draft kept.
      assert.is(readFileSync(join(project, 'old.txt'), 'utf8'), 'old\n');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

Guide.run();
Blocks.run();
