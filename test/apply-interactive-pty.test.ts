import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync, writeFileSync, readFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DiskRepo, SHADOW_BIN, treeHashes } from './helpers/disk-repo.js';
import { BASE, draftRepo, gitRepo, resetIndex } from './helpers/hunk-corpus.js';
import { runInPty } from './helpers/pty.js';

/*
 * `shadow apply -p`'s prompt in a real pseudo-terminal, git as the oracle.
 * For each run of keys, the same keys are typed at three prompts on the
 * same diff: `git add -p` (index at the base, working tree as the draft),
 * `git restore -p --source=<draft>` (git's prompt for applying a commit's
 * hunks to the working tree, whose words shadow's prompt takes) and
 * shadow's. Shadow's screen must be git restore -p's, but for the file
 * header lines (git's reverse diff names the sides b/ and a/); the patch
 * it chose must pass `git apply --check` on the base and, applied to the
 * index, stage exactly what git add -p staged.
 */

const CHOOSE = fileURLToPath(new URL('./helpers/pty-choose.js', import.meta.url));

type Ctx = { shadow: DiskRepo; git: DiskRepo; restore: DiskRepo };
const Pty = suite<Ctx>('apply -p: the prompt in a pseudo-terminal, beside git add -p');

Pty.before(async (ctx) => {
  ctx.shadow = await draftRepo();
  ctx.git = gitRepo();
  ctx.restore = new DiskRepo(BASE);
  ctx.restore.git('fetch', '-q', ctx.shadow.dir, 'refs/shadow/drafts/default:refs/draft');
});
Pty.after((ctx) => {
  ctx.shadow.cleanup();
  ctx.git.cleanup();
  ctx.restore.cleanup();
});

/**
 * The screen without the colours' codes' effect on the header lines: those lines dropped; and without the
 * new lines at its end, which a pseudo-terminal may still hold when the process exits (node-pty can report
 * the exit before the last output), so under load one side's last echo arrives and the other's does not.
 */
function body(screen: string): string {
  return screen
    .split('\r\n')
    .filter((line) => !/^(?:diff --git|index |--- |\+\+\+ )/.test(line.replace(/\x1b\[[0-9;]*m/g, '')))
    .join('\r\n')
    .replace(/(?:\r\n)+$/, '');
}

/** An editor script: its first run does `first` to the file, later runs `then`. */
function editor(repo: DiskRepo, name: string, first: string, then = first): string {
  const path = join(repo.home, `${name}.sh`);
  const mark = join(repo.home, `${name}.once`);
  writeFileSync(
    path,
    `#!/bin/sh\nif [ -e '${mark}' ]; then sed -i -e '${then}' "$1"; else touch '${mark}'; sed -i -e '${first}' "$1"; fi\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

interface Case {
  name: string;
  answers: string[];
  singleKey?: boolean;
  editor?: { first: string; then?: string };
}

const CASES: Case[] = [
  { name: 'y and n', answers: ['y', 'n', 'y', 'y', 'n', 'n', 'y', 's', 'n', 'y'] },
  { name: 'split, then y and n on the parts', answers: ['s', 'y', 'n', 's', 'n', 'y', 'n', 'y', 'y', 'y', 'n'] },
  { name: 'a, d, then q in the middle of a file', answers: ['a', 'd', 'y', 'q'] },
  {
    name: 'help, J, wrap to the undecided, j past the mode change, keys a file does not allow',
    answers: ['?', 'J', 'y', 'n', 'g', 'y', 'j', 'y', 'n', 'y', 'x', 'n'],
  },
  { name: 'g to a hunk, / to search', answers: ['g', '2', 'n', '/THREE', 'y', 'q'] },
  {
    name: 'CRLF lines: e keeps them',
    answers: ['n', 'n', 'n', 'n', 'n', 'n', 'n', 'e', 'y'],
    editor: { first: 's/^+BETA/+Beta/' },
  },
  {
    name: 'e: an edited added line, an edited new file',
    answers: ['e', 'n', 'n', 'n', 'n', 'n', 'e'],
    editor: { first: 's/^+SEVEN$/+Seven/;s/^+new$/+NEW/' },
  },
  {
    name: "e: an edit that does not apply, git's message, edited again",
    answers: ['e', 'y', 'n', 'q'],
    editor: { first: 's/^ 2 line$/ two line/', then: 's/^+THREE$/+Three/' },
  },
  {
    name: 'e: an edit that does not apply, n discards it',
    answers: ['e', 'n', 'y', 'n', 'q'],
    editor: { first: 's/^ 2 line$/ two line/' },
  },
  { name: 'both parts of a split hunk chosen: joined again', answers: ['s', 'y', 'y', 'q'] },
  {
    name: 'a part of a split hunk edited, shown again with K, joined to the next part',
    answers: ['s', 'e', 'K', 'y', 'y', 'q'],
    editor: { first: 's/^+THREE$/+Three/' },
  },
  { name: 's after an edit', answers: ['e', 'y', 'q'], editor: { first: 's/^-3 line$/ 3 line/;/^+THREE$/d' } },
  // git 2.39's add -p reads lines even with interactive.singleKey: git answers with Enter, shadow takes the keys
  // alone, and what the screen shows is the same (the key echoed, then a new line).
  {
    name: 'single keys (interactive.singleKey)',
    answers: ['y', 'n', 'n', 's', 'y', 'n', 'y', 'n', 'y'],
    singleKey: true,
  },
];

for (const c of CASES) {
  Pty(`${c.name}: git's screen and git add -p's selection`, async ({ shadow, git, restore }) => {
    const envFor = (repo: DiskRepo): Record<string, string> => {
      rmSync(join(repo.home, 'editor.once'), { force: true });
      return {
        ...repo.env,
        ...(c.editor ? { GIT_EDITOR: editor(repo, 'editor', c.editor.first, c.editor.then) } : {}),
      };
    };
    const run = (repo: DiskRepo, file: string, args: string[], singleKey = false) =>
      runInPty(file, args, { cwd: repo.dir, env: envFor(repo), answers: c.answers, singleKey });

    resetIndex(git);
    if (c.singleKey) shadow.git('config', 'interactive.singleKey', 'true');
    const out = join(shadow.root, 'chosen.patch');
    // Three terminals at once, each on its own repository.
    const [added, restored, mine] = await Promise.all([
      run(git, 'git', ['add', '-p']),
      run(restore, 'git', ['restore', '-p', '--source=refs/draft']),
      run(shadow, process.execPath, [CHOOSE, shadow.dir, out], c.singleKey),
    ]);
    if (c.singleKey) shadow.git('config', '--unset', 'interactive.singleKey');
    restore.git('reset', '-q', '--hard');
    restore.git('clean', '-fdq');
    assert.is(added.exitCode, 0, added.screen);
    assert.is(mine.exitCode, 0, mine.screen);
    const staged = git.git('diff', '--cached');

    assert.fixture(body(mine.screen), body(restored.screen), "the screen is git restore -p's");
    const patch = readFileSync(out, 'utf8');
    const patchFile = join(shadow.root, 'check.patch');
    writeFileSync(patchFile, patch);
    if (patch !== '') shadow.git('apply', '--check', patchFile);
    resetIndex(git);
    if (patch !== '') git.git('apply', '--cached', patchFile);
    assert.fixture(git.git('diff', '--cached'), staged, 'the patch stages what git add -p staged');
  });
}

Pty(
  'shadow apply -p: Ctrl-C at a single-key prompt stops everything, exit 130, nothing written',
  async ({ shadow }) => {
    const before = treeHashes(shadow.dir);
    shadow.git('config', 'interactive.singleKey', 'true');
    try {
      const r = await runInPty(process.execPath, [SHADOW_BIN, 'apply', '-p'], {
        cwd: shadow.dir,
        env: shadow.env,
        answers: ['y', '\x03'],
        singleKey: true,
      });
      assert.is(r.exitCode, 130, r.screen);
      assert.is(r.screen.split('(2/2) Apply this hunk to worktree').length - 1, 1, r.screen);
    } finally {
      shadow.git('config', '--unset', 'interactive.singleKey');
    }
    assert.equal(treeHashes(shadow.dir), before);
  },
);

Pty.run();
