import { Readable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { run } from '../cli/run.js';
import { SharedCaches } from '../src/index.js';
import { DiskRepo } from './helpers/disk-repo.js';

/*
 * A server runs the handed-off calls of one command on one parser
 * (cli/run.ts keeps it for the server's SharedCaches): nothing of a call
 * (its options, its usage error, its --json) may reach the next one.
 */

const R = suite<{ repo: DiskRepo }>('one parser for the calls a server runs');
R.before.each((c) => {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n' });
});
R.after.each((c) => c.repo.cleanup());

async function call(
  repo: DiskRepo,
  shared: SharedCaches | undefined,
  args: string[],
  input = '',
): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await run(args, {
    cwd: repo.dir,
    env: repo.env,
    stdout: (s) => void (stdout += typeof s === 'string' ? s : Buffer.from(s).toString('utf8')),
    stderr: (s) => void (stderr += s),
    stdin: Readable.from([input]),
    isTTY: false,
    shared,
  });
  return { status, stdout, stderr };
}

R('calls of one command, one after another, each as if it ran alone', async ({ repo }) => {
  const doc = (path: string): string =>
    JSON.stringify({ operations: [{ operation: 'write', path, content: `${path}\n` }] });
  const sequence: Array<{ args: string[]; input?: string }> = [
    { args: ['batch', '-', '--json', '--draft', 'one', '--actor', 'alice'], input: doc('a.txt') },
    { args: ['batch', '-'], input: doc('b.txt') },
    { args: ['batch', '--no-such-option', '-'], input: doc('c.txt') },
    { args: ['batch', '-', '--draft', 'one'], input: doc('d.txt') },
    { args: ['batch', '-', '--actor-type', 'robot'], input: doc('e.txt') },
    { args: ['batch', '-', '--json'], input: '{"operations": [' },
    { args: ['batch', '-'], input: doc('f.txt') },
  ];
  const shared = new SharedCaches();
  for (const step of sequence) {
    const once = await call(repo, shared, step.args, step.input);
    // The same call in a twin repository, on a parser of its own.
    const twin = new DiskRepo({ 'README.md': 'Hello\n' });
    try {
      for (const before of sequence.slice(0, sequence.indexOf(step)))
        await call(twin, undefined, before.args, before.input);
      const alone = await call(twin, undefined, step.args, step.input);
      const norm = (s: string): string =>
        s.replace(/\b[0-9a-f]{7,40}\b/g, '<oid>').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>');
      assert.equal(
        [once.status, norm(once.stdout), norm(once.stderr)],
        [alone.status, norm(alone.stdout), norm(alone.stderr)],
        `shadow ${step.args.join(' ')}`,
      );
    } finally {
      twin.cleanup();
    }
  }
  // Where each went: alice's batch on draft one, the rest on default; none after the usage error is lost.
  assert.match(repo.git('log', '--format=%an %s', 'refs/shadow/drafts/one'), /^alice /m);
  assert.is(repo.git('show', 'refs/shadow/drafts/default:f.txt'), 'f.txt\n');
  assert.is(repo.gitResult('show', 'refs/shadow/drafts/default:c.txt').status, 128);
});

R.run();
