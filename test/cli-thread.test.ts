import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { DiskRepo } from './helpers/disk-repo.js';

/**
 * The CLI thread (helpers/cli-thread.ts) answers as the executable does: the
 * same calls, run once in the thread and once as a process of their own,
 * give the same status and the same bytes, and a call's work has ended when
 * its answer arrives.
 */

const READS: Array<{ args: string[]; input?: string }> = [
  { args: ['--version'] },
  { args: ['status'] },
  { args: ['status', '--json'] },
  { args: ['log'] },
  { args: ['diff'] },
  { args: ['diff', '--stat'] },
  { args: ['cat', 'notes.txt'] },
  { args: ['cat', 'missing.txt'] },
  { args: ['cat', 'missing.txt', '--json'] },
  { args: ['no-such-command'] },
  { args: ['log', '--no-such-option'] },
  { args: ['help', 'batch'] },
  {
    args: ['batch', '-', '--dry-run', '--json'],
    input: '{"operations":[{"operation":"write","path":"x","content":"y"}]',
  },
];

test('read-only calls: the thread and a process give the same status, stdout and stderr', () => {
  const repo = new DiskRepo({ 'README.md': 'Hello\n' });
  try {
    const seeded = repo.shadow(['write', 'notes.txt'], { input: 'one\ntwo\n', process: true });
    assert.is(seeded.status, 0, seeded.stderr);
    for (const { args, input } of READS) {
      const inThread = repo.shadow(args, { input });
      const asProcess = repo.shadow(args, { input, process: true });
      const what = `shadow ${args.join(' ')}`;
      assert.is(inThread.status, asProcess.status, `${what}: status`);
      assert.is(inThread.stdout, asProcess.stdout, `${what}: stdout`);
      assert.is(inThread.stderr, asProcess.stderr, `${what}: stderr`);
    }
  } finally {
    repo.cleanup();
  }
});

test('a batch in the thread: the same refs and bytes as in a process, and input from stdin', () => {
  const a = new DiskRepo({ 'README.md': 'Hello\n' });
  const b = new DiskRepo({ 'README.md': 'Hello\n' });
  try {
    const batch = JSON.stringify({ operations: [{ operation: 'write', path: 'src/a.txt', content: 'a\n' }] });
    const inThread = a.shadow(['batch', '-', '--json'], { input: batch });
    const asProcess = b.shadow(['batch', '-', '--json'], { input: batch, process: true });
    assert.is(inThread.status, 0, inThread.stderr);
    assert.is(asProcess.status, 0, asProcess.stderr);
    const tree = (r: DiskRepo): string => r.git('rev-parse', 'refs/shadow/drafts/default^{tree}');
    assert.is(tree(a), tree(b));
    assert.is(a.shadow(['cat', 'src/a.txt']).stdout, 'a\n');
  } finally {
    a.cleanup();
    b.cleanup();
  }
});

test('the answer comes once the call has ended: the pack merge the eighth batch starts is done', () => {
  const repo = new DiskRepo({ 'README.md': 'Hello\n' });
  try {
    const packs = (): string[] => readdirSync(repo.path('.git/objects/pack')).filter((f) => f.endsWith('.pack'));
    // Each batch leaves a pack; the eighth's merge runs after the batch has answered, and a process exits only after it.
    for (let i = 1; i <= 8; i++) {
      const r = repo.shadow(['write', `f${i}.txt`], { input: `${i}\n` });
      assert.is(r.status, 0, r.stderr);
      assert.is(packs().length, i < 8 ? i : 1, `packs after batch ${i}`);
    }
  } finally {
    repo.cleanup();
  }
});

test.run();
