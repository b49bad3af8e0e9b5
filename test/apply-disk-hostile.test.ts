import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { PathConflict } from '../src/index.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { BASE_DRAFT, BASE_FILES, cli, draft, journals, records, scan } from './helpers/apply-disk-repo.js';

/*
 * `shadow apply` on real directories whose working tree changed under the
 * draft (FIFOs and symlinks included): refused before anything is written.
 */

function blobOid(content: string): string {
  const body = Buffer.from(content);
  return createHash('sha1').update(`blob ${body.length}\0`).update(body).digest('hex');
}

interface Hostile {
  name: string;
  make(repo: DiskRepo, outside: string): void;
  /** Conflicts the apply must report (at least these). */
  conflicts: Array<Pick<PathConflict, 'path' | 'expected' | 'found'>>;
}

const HOSTILE: Hostile[] = [
  {
    name: 'a file of the set is now a directory',
    make: (r) => {
      fs.rmSync(r.path('a.txt'));
      r.write('a.txt/inside.txt', 'i\n');
    },
    conflicts: [{ path: 'a.txt', expected: blobOid('a\n'), found: 'type changed' }],
  },
  {
    name: 'a file of the set is now a symlink to /etc',
    make: (r) => {
      fs.rmSync(r.path('src/app.ts'));
      fs.symlinkSync('/etc', r.path('src/app.ts'));
    },
    conflicts: [{ path: 'src/app.ts', expected: blobOid('export {}\n'), found: 'type changed' }],
  },
  {
    name: 'a file of the set is now a symlink to a file inside the workspace',
    make: (r) => {
      fs.rmSync(r.path('a.txt'));
      fs.symlinkSync('README.md', r.path('a.txt'));
    },
    conflicts: [{ path: 'a.txt', expected: blobOid('a\n'), found: 'type changed' }],
  },
  {
    name: 'a file of the set is now a FIFO',
    make: (r) => {
      fs.rmSync(r.path('a.txt'));
      const m = spawnSync('mkfifo', [r.path('a.txt')]);
      assert.is(m.status, 0, 'mkfifo');
    },
    conflicts: [{ path: 'a.txt', expected: blobOid('a\n'), found: 'type changed' }],
  },
  {
    name: 'a parent directory of the set is a symlink leading outside',
    make: (r, outside) => {
      fs.renameSync(r.path('src'), join(outside, 'src'));
      fs.symlinkSync(join(outside, 'src'), r.path('src'));
    },
    conflicts: [{ path: 'src/app.ts', expected: blobOid('export {}\n'), found: 'type changed' }],
  },
  {
    name: 'the new parent directory of a created file is a symlink leading outside',
    make: (r, outside) => {
      fs.mkdirSync(join(outside, 'elsewhere'));
      fs.symlinkSync(join(outside, 'elsewhere'), r.path('newdir'));
    },
    conflicts: [{ path: 'newdir/x.txt', expected: null, found: 'type changed' }],
  },
  // A file of the set made executable is no refusal any more: the person's mode and the draft's content merge (test/apply-merge.test.ts).
];

const Hostility = suite('apply on disk: hostile working trees');

for (const h of HOSTILE) {
  Hostility(
    `${h.name}: exit 1, STALE_BASE naming path, expected and found; nothing written anywhere; --dry-run says the same`,
    async () => {
      const repo = new DiskRepo(BASE_FILES);
      try {
        const outside = join(repo.root, 'outside');
        fs.mkdirSync(outside);
        await draft(repo, [BASE_DRAFT]);
        h.make(repo, outside);
        const before = scan(repo.dir);
        const outsideBefore = scan(outside, false);
        const head = repo.ref('main');

        const reported: Array<[string, PathConflict[]]> = [];
        for (const args of [['apply', '--dry-run'], ['apply']]) {
          const r = cli(repo, args);
          assert.is(r.status, 1, `${h.name}: ${args.join(' ')} exit status (${r.stderr})`);
          assert.is(r.json?.error?.code, 'STALE_BASE', `${h.name}: ${args.join(' ')}: ${r.stdout}`);
          reported.push([args.join(' '), r.json.error.data.conflicts]);
        }
        for (const [how, conflicts] of reported) {
          const got = conflicts.map((c) => ({ path: c.path, expected: c.expected, found: c.found }));
          for (const want of h.conflicts)
            assert.ok(
              got.some((c) => JSON.stringify(c) === JSON.stringify(want)),
              `${h.name}: ${how} reports ${JSON.stringify(want)}, got ${JSON.stringify(got)}`,
            );
        }
        assert.equal(reported[0]![1], reported[1]![1], `${h.name}: the dry run reports what the apply does`);
        assert.equal(scan(repo.dir), before, `${h.name}: the working tree changed`);
        assert.equal(scan(outside, false), outsideBefore, `${h.name}: something was written outside the workspace`);
        assert.equal(journals(repo), [], h.name);
        assert.equal(records(repo), [], h.name);
        assert.is(fs.existsSync(repo.path('.git/shadow/apply.lock')), false, h.name);
        assert.is(repo.ref('main'), head);
      } finally {
        repo.cleanup();
      }
    },
  );
}

Hostility.run();
