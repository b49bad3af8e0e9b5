/**
 * `npm run demo`: the whole flow on a demo repository made here, printing
 * every command as a user would type it. The repository is left in place so
 * it can be inspected with git.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const shadowBin = fileURLToPath(new URL('./shadow.cjs', import.meta.url));
const repo = mkdtempSync(join(tmpdir(), 'shadow-demo-'));
const env = { ...process.env, SHADOW_ACTOR: 'demo-agent', GIT_CONFIG_NOSYSTEM: '1' };
const bold = (s: string): string => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const dim = (s: string): string => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);

function git(...args: string[]): string {
  const r = spawnSync('git', args, { cwd: repo, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

function step(title: string): void {
  process.stdout.write(`\n${bold(`## ${title}`)}\n`);
}

function show(display: string, cmd: string, args: string[], input?: string): number {
  process.stdout.write(`${dim('$')} ${display}\n`);
  const r = spawnSync(cmd, args, { cwd: repo, env, input, encoding: 'utf8' });
  process.stdout.write(r.stdout);
  if (r.stderr) process.stdout.write(dim(r.stderr));
  return r.status ?? 1;
}

const quote = (a: string): string => (/^[\w./~=@:-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
const shadow = (args: string[], input?: string, display?: string): number =>
  show(display ?? `shadow ${args.map(quote).join(' ')}`, process.execPath, [shadowBin, ...args], input);

git('init', '-q', '-b', 'main');
git('config', 'user.name', 'Demo User');
git('config', 'user.email', 'demo@example.com');
writeFileSync(join(repo, 'README.md'), 'Hello\n\nA demo project.\n');
writeFileSync(join(repo, 'old.txt'), 'obsolete\n');
mkdirSync(join(repo, 'src'));
writeFileSync(join(repo, 'src/app.ts'), 'export function main() {\n  return 0;\n}\n');
writeFileSync(join(repo, '.gitignore'), '.env\n');
git('add', '.');
git('commit', '-q', '-m', 'initial commit');
appendFileSync(join(repo, 'README.md'), '\n(my uncommitted notes)\n');

process.stdout.write(`${bold('shadow demo')} in ${repo}\n`);
process.stdout.write('A repository with one commit, and an uncommitted edit of README.md by its user.\n');

step('An agent sends one batch of three operations: one atomic commit on the draft');
const batch = JSON.stringify({
  intent: 'add greeting',
  operations: [
    { operation: 'write', path: 'src/hello.ts', content: 'export const hi = 1\n' },
    { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, world' },
    { operation: 'delete', path: 'old.txt' },
  ],
});
shadow(['batch', '-'], batch, `echo '${batch}' | shadow batch -`);

step('The draft is plain git history; the working tree is untouched');
shadow(['log']);
show('git log --oneline refs/shadow/drafts/default', 'git', ['log', '--oneline', 'refs/shadow/drafts/default']);
shadow(['cat', 'src/hello.ts']);
show('git status --short', 'git', ['status', '--short']);

step('Checkpoint, another batch, and the diff against the bases');
shadow(['checkpoint', 'before-refactor']);
shadow(['edit', 'src/hello.ts', '--old', 'hi = 1', '--new', 'hi = 2', '-m', 'bump hi']);
shadow(['diff', '--stat']);

step('Roll back, and undo the rollback');
shadow(['rollback', 'before-refactor']);
shadow(['cat', 'src/hello.ts']);
shadow(['undo']);
shadow(['cat', 'src/hello.ts']);

step('Bad input changes nothing: a tool call cut off mid-string, a secret file, an edit that does not match');
shadow(
  ['batch', '-'],
  '{"operations":[{"operation":"write","path":"a.txt","content":"trunc',
  `echo '{"operations":[{"operation":"write","path":"a.txt","content":"trunc' | shadow batch -`,
);
shadow(['write', '.env'], 'TOKEN=x\n', 'echo TOKEN=x | shadow write .env');
shadow(['edit', 'README.md', '--old', 'Goodbye', '--new', 'Bye']);

step('Where things stand');
shadow(['status']);

step('Publish: a dry run, the apply, and its undo; your own files outside the draft are never touched');
writeFileSync(join(repo, 'scratch.txt'), 'an untracked file of the user\n');
shadow(['apply', '--dry-run']);
shadow(['apply']);
show('git status --short', 'git', ['status', '--short']);
shadow(['unapply']);
show('git status --short', 'git', ['status', '--short']);

step('A conflict stops apply before it writes anything');
appendFileSync(join(repo, 'src/app.ts'), '// edited by the user\n');
shadow(['edit', 'src/app.ts', '--old', 'return 0;', '--new', 'return 1;']);
appendFileSync(join(repo, 'src/app.ts'), '// and edited again after the draft took it\n');
shadow(['apply']);
shadow(['rollback', '~1']);

step("Apply with --commit: the branch moves to the draft's commits");
shadow(['apply', '--commit']);
show('git log --oneline', 'git', ['log', '--oneline']);
show('git status --short', 'git', ['status', '--short']);
const tip = readFileSync(join(repo, '.git/refs/shadow/drafts/default'), 'utf8').trim();
process.stdout.write(`\nThe demo repository stays at ${bold(repo)}\n`);
process.stdout.write(`Look around: cd ${repo} && git log -p refs/shadow/drafts/default   (tip ${tip.slice(0, 12)})\n`);
