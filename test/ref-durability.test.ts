import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FileSystem } from '../src/index.js';
import { Repository } from '../src/git/repository.js';
import { CrashFs } from './helpers/crash-fs.js';
import { crashStates } from './helpers/crash-states.js';
import { testContext } from './helpers/context.js';
import { memRepo } from './helpers/mem-repo.js';
import { withReplacingRename } from './helpers/memfs-rename.js';

/*
 * The ref store's writes under power loss (crash-states.ts gives the model),
 * on every disk a crash may leave: a ref's move and its reflog line are
 * durable together (never the move without its line), and a deletion is
 * durable once it returns, loose or packed.
 */

const REF = 'refs/shadow/drafts/d';

function repoOn(fs: FileSystem): Repository {
  return Repository.open(testContext(fs), '/repo');
}

/** The reflog's lines on a disk, as git writes them: `<old> <new> ...`. */
function reflogMoves(fs: FileSystem, ref: string): Array<[string, string]> {
  const path = `/repo/.git/logs/${ref}`;
  if (!fs.existsSync(path)) return [];
  return String(fs.readFileSync(path, 'utf8'))
    .split('\n')
    .map((l) => /^([0-9a-f]{40}) ([0-9a-f]{40}) /.exec(l))
    .filter((m) => m !== null)
    .map((m) => [m[1]!, m[2]!]);
}

const R = suite('ref store: moves and deletions under power loss');

for (const existing of [false, true]) {
  R(
    `a move keeps its reflog line on every disk where it survived (${existing ? 'a log that exists' : 'a new log'})`,
    async () => {
      const repo = await memRepo();
      const base = withReplacingRename(repo.fs);
      const head = repoOn(base).refs.resolve('HEAD')!;
      const who = repoOn(base).committer();
      if (existing) await repoOn(base).refs.update({ ref: REF, expected: null, next: head, message: 'made', who });
      const crash = new CrashFs(base);
      const next = existing ? 'f'.repeat(40) : head;
      await repoOn(crash.fs).refs.update({ ref: REF, expected: existing ? head : null, next, message: 'moved', who });
      const returned = crash.events.length;
      await new Promise((r) => setImmediate(r));
      for (const s of crashStates(crash)) {
        const fs = s.mount() as unknown as FileSystem;
        const at = repoOn(fs).refs.resolve(REF);
        if (s.at >= returned) assert.is(at, next, `crash at ${s.at}: a move that returned is durable`);
        if (at === next)
          assert.ok(
            reflogMoves(fs, REF).some(([, n]) => n === next),
            `crash at ${s.at}: the move survived without its reflog line`,
          );
      }
    },
  );
}

for (const packed of [false, true]) {
  R(`a deletion is durable when it returns (${packed ? 'packed and loose' : 'loose'})`, async () => {
    const repo = await memRepo();
    const base = withReplacingRename(repo.fs);
    const head = repoOn(base).refs.resolve('HEAD')!;
    const who = repoOn(base).committer();
    const ref = 'refs/shadow/checkpoints/d/cp';
    await repoOn(base).refs.update({ ref, expected: null, next: head, message: 'made', who, reflog: false });
    if (packed)
      base.writeFileSync('/repo/.git/packed-refs', `# pack-refs with: peeled fully-peeled sorted \n${head} ${ref}\n`);
    const crash = new CrashFs(base);
    await repoOn(crash.fs).refs.delete(ref, head);
    const returned = crash.events.length;
    await new Promise((r) => setImmediate(r));
    let checked = 0;
    for (const s of crashStates(crash)) {
      const fs = s.mount() as unknown as FileSystem;
      const at = repoOn(fs).refs.resolve(ref);
      assert.ok(at === head || at === undefined, `crash at ${s.at}: ${at}`);
      if (s.at >= returned) {
        checked++;
        assert.is(at, undefined, `crash at ${s.at}: a deletion that returned is durable`);
      }
    }
    assert.ok(checked > 0);
  });
}

R.run();
