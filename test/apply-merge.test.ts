import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileOperation } from '../src/index.js';
import { callTool } from '../src/agent-tools/call-tool.js';
import { DiskRepo, treeHashes, withShadow } from './helpers/disk-repo.js';

/*
 * `shadow apply` merging the person's changes with the draft's, on real
 * repositories, through the CLI as people run it: the bytes on disk against
 * what `git merge-file` makes of the same three versions, exit statuses and
 * error codes, nothing written anywhere when a merge stops, unapply, a kill
 * in the middle of a merged apply, and git gc.
 */

const WORKER = fileURLToPath(new URL('./helpers/apply-worker.js', import.meta.url));

const lines = (n: number, f: (i: number) => string = (i) => `line ${i}`): string =>
  Array.from({ length: n }, (_, i) => `${f(i + 1)}\n`).join('');
/** `text` with its line `n` (1-based) replaced. */
const withLine = (text: string, n: number, line: string): string =>
  text.replace(/.*\n/g, (l, offset: number) => (text.slice(0, offset).split('\n').length === n ? `${line}\n` : l));

const BASE = lines(12);
const FILES = { 'f.txt': BASE, 'other.txt': 'other\n', 'README.md': 'Hello\n' };

async function draft(repo: DiskRepo, operations: FileOperation[]): Promise<void> {
  await withShadow(repo, async (sh) => {
    const r = await sh.batch({ intent: 'the agent works', operations });
    assert.ok(r.success, JSON.stringify(r.error));
  });
}

interface Run {
  status: number;
  stdout: string;
  stderr: string;
  json: any;
}

function cli(repo: DiskRepo, args: string[], json = true): Run {
  const r = repo.shadow(json ? [...args, '--json'] : args);
  let parsed: any;
  try {
    parsed = JSON.parse(r.stdout);
  } catch {
    parsed = undefined;
  }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, json: parsed };
}

/** What `git merge-file -p` makes of the three versions, with shadow's labels: bytes and exit status. */
function gitMergeFile(
  repo: DiskRepo,
  base: string | Buffer,
  ours: string | Buffer,
  theirs: string | Buffer,
  draftName = 'default',
): { out: Buffer; status: number } {
  const dir = fs.mkdtempSync(join(repo.root, 'merge-'));
  fs.writeFileSync(join(dir, 'base'), base);
  fs.writeFileSync(join(dir, 'ours'), ours);
  fs.writeFileSync(join(dir, 'theirs'), theirs);
  const r = spawnSync(
    'git',
    ['merge-file', '-p', '-L', 'working tree', '-L', 'base', '-L', `draft ${draftName}`, 'ours', 'base', 'theirs'],
    { cwd: dir, env: repo.env },
  );
  fs.rmSync(dir, { recursive: true });
  return { out: r.stdout, status: r.status ?? -1 };
}

function journals(repo: DiskRepo): string[] {
  try {
    return fs.readdirSync(repo.path('.git/shadow/journal')).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
}

function records(repo: DiskRepo): string[] {
  try {
    return fs.readdirSync(repo.path('.git/shadow/drafts/default/applies')).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
}

function refs(repo: DiskRepo): string {
  return repo.git('for-each-ref', '--format=%(refname) %(objectname)');
}

/** Everything a refused apply must leave as it was: the files (bytes and identity), the refs, the index, shadow's records. */
function snapshot(repo: DiskRepo): unknown {
  const identity: Record<string, string> = {};
  for (const p of Object.keys(treeHashes(repo.dir))) {
    const st = fs.lstatSync(repo.path(p), { bigint: true });
    identity[p] = `${st.ino}:${st.mtimeNs}:${st.mode}`;
  }
  const index = createHash('sha256')
    .update(fs.readFileSync(repo.path('.git/index')))
    .digest('hex');
  return {
    files: treeHashes(repo.dir),
    identity,
    refs: refs(repo),
    index,
    journals: journals(repo),
    records: records(repo),
  };
}

function fsckClean(repo: DiskRepo): void {
  const r = repo.gitResult('fsck', '--strict', '--no-progress', '--no-dangling');
  assert.is(r.status, 0, `git fsck: ${r.stdout}${r.stderr}`);
}

type Fixture = { repo: DiskRepo };
const Merge = suite<Fixture>("apply merges the person's changes");
Merge.before.each((c) => {
  c.repo = new DiskRepo(FILES);
});
Merge.after.each((c) => c.repo.cleanup());

Merge(
  'the person edits line 2, the draft line 9: apply publishes what git merge-file makes, and says merged',
  async ({ repo }) => {
    const theirs = withLine(BASE, 9, 'line 9 by the draft');
    await draft(repo, [
      { operation: 'write', path: 'f.txt', content: theirs },
      { operation: 'write', path: 'new.txt', content: 'new\n' },
    ]);
    const ours = withLine(BASE, 2, 'line 2 by the person');
    repo.write('f.txt', ours);
    const want = gitMergeFile(repo, BASE, ours, theirs);
    assert.is(want.status, 0, 'git merges it cleanly');

    const dry = cli(repo, ['apply', '--dry-run']);
    assert.is(dry.status, 0, dry.stdout + dry.stderr);
    assert.equal(
      dry.json.paths.map((p: any) => [p.path, p.merge]),
      [
        ['f.txt', 'merged'],
        ['new.txt', 'clean'],
      ],
    );
    assert.equal(dry.json.conflicts, []);
    assert.is(repo.read('f.txt'), ours, 'the dry run wrote');
    const text = cli(repo, ['apply', '--dry-run'], false);
    assert.match(text.stdout, /modify\s+merged\s+f\.txt/);
    assert.match(text.stdout, /create\s+clean\s+new\.txt/);

    const r = cli(repo, ['apply']);
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.equal(fs.readFileSync(repo.path('f.txt')), want.out, 'the bytes git merge-file makes');
    const f = r.json.paths.find((p: any) => p.path === 'f.txt');
    assert.is(f.merge, 'merged');
    assert.is(f.merged, repo.git('hash-object', 'f.txt').trim(), 'the result names the merged blob it wrote');
    assert.is(repo.read('new.txt'), 'new\n');
    assert.is(repo.read('other.txt'), 'other\n');
    fsckClean(repo);

    // The person's change stays theirs: the draft's base is its own content, so nothing is left to publish,
    // and the draft's next change to the file merges with the person's again.
    const again = cli(repo, ['apply', '--dry-run']);
    assert.equal(again.json.paths, []);
    await draft(repo, [
      { operation: 'edit', path: 'f.txt', old_content: 'line 11\n', content: 'line 11 by the draft\n' },
    ]);
    const second = cli(repo, ['apply']);
    assert.is(second.status, 0, second.stdout + second.stderr);
    assert.is(
      repo.read('f.txt'),
      withLine(
        withLine(withLine(BASE, 2, 'line 2 by the person'), 9, 'line 9 by the draft'),
        11,
        'line 11 by the draft',
      ),
    );
  },
);

Merge(
  'lines both changed: CONFLICT (exit 1) naming each hunk with both sides; nothing is written anywhere, the clean path of the same apply included',
  async ({ repo }) => {
    const theirs = withLine(BASE, 5, 'line 5 by the draft');
    await draft(repo, [
      { operation: 'write', path: 'f.txt', content: theirs },
      { operation: 'write', path: 'other.txt', content: 'other, by the draft\n' },
    ]);
    const ours = withLine(BASE, 5, 'line 5 by the person');
    repo.write('f.txt', ours);
    assert.is(gitMergeFile(repo, BASE, ours, theirs).status, 1, 'git reports one conflict');
    const before = snapshot(repo);

    const dry = cli(repo, ['apply', '--dry-run']);
    assert.is(dry.status, 1);
    assert.is(dry.json.error.code, 'CONFLICT', dry.stdout);
    assert.equal(
      dry.json.error.data.paths.map((p: any) => [p.path, p.merge]),
      [
        ['f.txt', 'conflict'],
        ['other.txt', 'clean'],
      ],
    );
    for (const args of [['apply'], ['apply', '--conflict=refuse']]) {
      const r = cli(repo, args);
      assert.is(r.status, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.is(r.json.error.code, 'CONFLICT');
      const [c] = r.json.error.data.conflicts;
      assert.is(c.path, 'f.txt');
      assert.is(c.reason, 'overlap');
      assert.equal(c.hunks, [
        {
          base: { line: 5, count: 1, text: 'line 5\n' },
          ours: { line: 5, count: 1, text: 'line 5 by the person\n' },
          theirs: { line: 5, count: 1, text: 'line 5 by the draft\n' },
        },
      ]);
      assert.equal(
        r.json.error.data.conflicts,
        dry.json.error.data.conflicts,
        'the dry run reports what the apply does',
      );
      assert.equal(snapshot(repo), before, `${args.join(' ')}: something was written`);
    }
    // People see both sides.
    const text = cli(repo, ['apply'], false);
    assert.is(text.status, 1);
    assert.match(
      text.stdout,
      /<<<<<<< working tree\n\s+line 5 by the person\n\s+=======\n\s+line 5 by the draft\n\s+>>>>>>> draft default/,
    );
    assert.match(
      text.stderr,
      /error: apply stopped before writing anything: 1 path was changed in the working tree on the same lines as the draft: f\.txt \(line 5\)/,
    );
    assert.match(text.stderr, /--conflict=markers/);
    assert.equal(snapshot(repo), before);
  },
);

Merge(
  '--conflict=markers writes the bytes git merge-file writes, labels included, and publishes the rest',
  async ({ repo }) => {
    const theirs = withLine(withLine(BASE, 5, 'line 5 by the draft'), 11, 'line 11 by the draft');
    await draft(repo, [
      { operation: 'write', path: 'f.txt', content: theirs },
      { operation: 'write', path: 'other.txt', content: 'other, by the draft\n' },
    ]);
    const ours = withLine(withLine(BASE, 5, 'line 5 by the person'), 1, 'line 1 by the person');
    repo.write('f.txt', ours);
    const want = gitMergeFile(repo, BASE, ours, theirs);
    assert.is(want.status, 1);

    const dry = cli(repo, ['apply', '--dry-run', '--conflict=markers']);
    assert.is(dry.status, 0, 'markers settle it: the dry run sees no stop');
    assert.is(dry.json.paths[0].merge, 'conflict');
    assert.is(dry.json.paths[0].hunks.length, 1);
    const r = cli(repo, ['apply', '--conflict=markers']);
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.equal(fs.readFileSync(repo.path('f.txt')), want.out);
    assert.match(repo.read('f.txt'), /^<<<<<<< working tree\n/m);
    assert.match(repo.read('f.txt'), /^>>>>>>> draft default\n/m);
    assert.is(repo.read('other.txt'), 'other, by the draft\n');
    assert.equal(r.json.conflicts, []);
    assert.is(r.json.paths[0].merge, 'conflict');
    fsckClean(repo);

    // unapply puts the person's bytes back, markers gone.
    const u = cli(repo, ['unapply']);
    assert.is(u.status, 0, u.stdout + u.stderr);
    assert.is(repo.read('f.txt'), ours);
    assert.is(repo.read('other.txt'), 'other\n');
  },
);

Merge(
  "unapply after a merged apply puts the person's pre-merge bytes back, even after git gc --prune=now",
  async ({ repo }) => {
    const theirs = withLine(BASE, 10, 'line 10 by the draft');
    await draft(repo, [{ operation: 'write', path: 'f.txt', content: theirs }]);
    // Bytes no commit holds: only the merge's keeping makes them survive gc.
    const ours = `${withLine(BASE, 1, 'line 1 by the person, unsaved anywhere else')}tail by the person\n`;
    repo.write('f.txt', ours);
    const r = cli(repo, ['apply']);
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.equal(fs.readFileSync(repo.path('f.txt')), gitMergeFile(repo, BASE, ours, theirs).out);
    assert.ok(repo.ref('refs/shadow/merges/default'), 'the merge keeps its blobs reachable');
    repo.git('gc', '--prune=now', '--quiet');
    fsckClean(repo);
    const u = cli(repo, ['unapply']);
    assert.is(u.status, 0, u.stdout + u.stderr);
    assert.is(repo.read('f.txt'), ours);
    // Applying again merges again.
    const again = cli(repo, ['apply']);
    assert.is(again.status, 0, again.stdout + again.stderr);
    assert.equal(fs.readFileSync(repo.path('f.txt')), gitMergeFile(repo, BASE, ours, theirs).out);
    // Dropping the draft archives the merges' ref with it; a purge removes it.
    const drop = cli(repo, ['draft', 'drop', 'default']);
    assert.is(drop.status, 0, drop.stdout + drop.stderr);
    assert.is(repo.ref('refs/shadow/merges/default'), undefined);
    assert.match(refs(repo), /refs\/shadow\/archive\/default\/[^ ]+\/merges /);
  },
);

Merge(
  'what cannot merge stays a conflict: delete/modify both ways, binary, a symlink, modes changed apart: STALE_BASE, each named, nothing written',
  async ({ repo }) => {
    repo.write('gone.txt', 'gone\n');
    repo.write('bin.dat', Buffer.from([1, 0, 2, 10, 3, 10]));
    repo.write('mode.sh', 'echo\n');
    repo.git('add', '-A');
    repo.git('commit', '-q', '-m', 'more');
    await draft(repo, [
      { operation: 'write', path: 'f.txt', content: withLine(BASE, 3, 'three') },
      { operation: 'delete', path: 'gone.txt' },
      {
        operation: 'write',
        path: 'bin.dat',
        content: Buffer.from([1, 0, 2, 10, 3, 10, 4]).toString('base64'),
        encoding: 'base64',
      },
      { operation: 'chmod', path: 'mode.sh', mode: '100755' },
      { operation: 'write', path: 'other.txt', content: 'other, by the draft\n' },
    ]);
    fs.rmSync(repo.path('f.txt')); // deleted by the person, changed by the draft
    repo.write('gone.txt', 'gone, but changed\n'); // changed by the person, deleted by the draft
    repo.write('bin.dat', Buffer.from([9, 0, 2, 10, 3, 10])); // binary, changed on both sides
    fs.writeFileSync(repo.path('mode.sh'), 'echo changed\n'); // the content by the person, the mode by the draft: merges
    const before = snapshot(repo);
    const r = cli(repo, ['apply']);
    assert.is(r.status, 1, r.stdout + r.stderr);
    assert.is(r.json.error.code, 'STALE_BASE');
    assert.equal(
      r.json.error.data.conflicts.map((c: any) => [c.path, c.found, c.reason]),
      [
        ['bin.dat', 'modified', 'binary'],
        ['f.txt', 'deleted', 'delete/modify'],
        ['gone.txt', 'modified', 'delete/modify'],
      ],
    );
    assert.match(r.json.error.message, /not merged: binary/);
    assert.equal(snapshot(repo), before);
    const dry = cli(repo, ['apply', '--dry-run', '--conflict=markers']);
    assert.is(dry.json.error.code, 'STALE_BASE', 'markers cannot settle these');
    assert.equal(dry.json.error.data.paths.find((p: any) => p.path === 'mode.sh').merge, 'merged');
  },
);

Merge(
  'an overlap and a path that cannot merge, at once: STALE_BASE lists both, the overlap with its hunks',
  async ({ repo }) => {
    await draft(repo, [
      { operation: 'write', path: 'f.txt', content: withLine(BASE, 4, 'four by the draft') },
      { operation: 'write', path: 'other.txt', content: 'other, by the draft\n' },
    ]);
    repo.write('f.txt', withLine(BASE, 4, 'four by the person'));
    fs.rmSync(repo.path('other.txt'));
    const r = cli(repo, ['apply']);
    assert.is(r.json.error.code, 'STALE_BASE');
    assert.equal(
      r.json.error.data.conflicts.map((c: any) => [c.path, c.reason, c.hunks?.length]),
      [
        ['f.txt', 'overlap', 1],
        ['other.txt', 'delete/modify', undefined],
      ],
    );
  },
);

Merge('the person made a file executable, the draft changed its content: both land', async ({ repo }) => {
  await draft(repo, [{ operation: 'write', path: 'f.txt', content: withLine(BASE, 7, 'seven') }]);
  fs.chmodSync(repo.path('f.txt'), 0o755);
  const r = cli(repo, ['apply']);
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.is(repo.read('f.txt'), withLine(BASE, 7, 'seven'));
  assert.is(fs.statSync(repo.path('f.txt')).mode & 0o777, 0o755);
  assert.is(r.json.paths[0].merge, 'merged');
});

Merge('a file the person already changed as the draft did: merged, not rewritten', async ({ repo }) => {
  const theirs = withLine(BASE, 6, 'six');
  await draft(repo, [{ operation: 'write', path: 'f.txt', content: theirs }]);
  repo.write('f.txt', theirs);
  const st = fs.statSync(repo.path('f.txt'), { bigint: true });
  const r = cli(repo, ['apply']);
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.is(r.json.paths[0].merge, 'merged');
  const now = fs.statSync(repo.path('f.txt'), { bigint: true });
  assert.is(`${now.ino}:${now.mtimeNs}`, `${st.ino}:${st.mtimeNs}`, 'the file was rewritten');
  assert.equal(cli(repo, ['apply', '--dry-run']).json.paths, []);
});

Merge(
  'CRLF checkouts: the merge runs on the blobs, and the merged file is written with the line ends the path checks out with',
  async ({ repo }) => {
    repo.write('.gitattributes', '*.txt text eol=crlf\n');
    repo.git('add', '-A');
    repo.git('commit', '-q', '-m', 'crlf');
    fs.rmSync(repo.path('f.txt'));
    repo.git('checkout', '--', 'f.txt');
    const crlf = (s: string): string => s.replace(/\n/g, '\r\n');
    assert.is(repo.read('f.txt'), crlf(BASE));
    const theirs = withLine(BASE, 9, 'nine');
    await draft(repo, [{ operation: 'write', path: 'f.txt', content: crlf(theirs) }]);
    const ours = withLine(BASE, 2, 'two');
    repo.write('f.txt', crlf(ours));
    const r = cli(repo, ['apply']);
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.is(repo.read('f.txt'), crlf(gitMergeFile(repo, BASE, ours, theirs).out.toString()));
    assert.is(repo.git('status', '--porcelain', 'f.txt'), ' M f.txt\n');
  },
);

Merge(
  "--commit: the branch takes the draft's commits, the person's change stays in the working tree, unstaged",
  async ({ repo }) => {
    const theirs = withLine(BASE, 12, 'twelve');
    await draft(repo, [{ operation: 'write', path: 'f.txt', content: theirs }]);
    const ours = withLine(BASE, 1, 'one');
    repo.write('f.txt', ours);
    const r = cli(repo, ['apply', '--commit']);
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.is(repo.git('show', 'HEAD:f.txt'), theirs);
    assert.equal(fs.readFileSync(repo.path('f.txt')), gitMergeFile(repo, BASE, ours, theirs).out);
    assert.is(repo.git('diff', '--cached', '--name-only'), '');
    assert.is(repo.git('diff', '--name-only'), 'f.txt\n');
    const u = cli(repo, ['unapply']);
    assert.is(u.status, 0, u.stdout + u.stderr);
    assert.is(repo.read('f.txt'), ours);
  },
);

Merge(
  "the agents' tools: apply_status says merged or conflict; apply (when allowed) refuses an overlap, or writes markers when asked",
  async ({ repo }) => {
    const theirs = withLine(BASE, 5, 'five by the draft');
    await draft(repo, [{ operation: 'write', path: 'f.txt', content: theirs }]);
    const ours = withLine(BASE, 5, 'five by the person');
    repo.write('f.txt', ours);
    await withShadow(repo, async (sh) => {
      const conn = { sh, draft: 'default', actor: 'agent', allowApply: true };
      const status = JSON.parse((await callTool(conn, 'apply_status', {})).text);
      assert.equal([status.can_apply, status.paths], [false, ['modify f.txt (conflict)']]);
      const refused = await callTool(conn, 'apply', {});
      assert.is(refused.isError, true);
      assert.match(refused.text, /^CONFLICT/);
      assert.is(repo.read('f.txt'), ours);
      const bad = await callTool(conn, 'apply', { conflict: 'theirs' });
      assert.match(bad.text, /^INVALID_ARGUMENT/);
      const marked = await callTool(conn, 'apply', { conflict: 'markers' });
      assert.is(marked.isError, false, marked.text);
    });
    assert.equal(fs.readFileSync(repo.path('f.txt')), gitMergeFile(repo, BASE, ours, theirs).out);
  },
);

Merge.run();

// ---------------------------------------------------------------- a kill in a merged apply

const Kill = suite('a merged apply killed with SIGKILL');

function runWorker(repo: DiskRepo, point: string): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [WORKER, repo.dir, 'apply', point], {
      cwd: repo.dir,
      env: repo.env,
      stdio: 'ignore',
    });
    child.once('exit', (_code, signal) => resolve(signal));
  });
}

for (const point of ['rename:1', 'rename:2', 'record']) {
  Kill(
    `killed at ${point}: every path old or new, recovery finishes the merge from the journal, unapply gives the person's bytes back`,
    async () => {
      const repo = new DiskRepo(FILES);
      try {
        const theirs = withLine(BASE, 8, 'eight by the draft');
        await draft(repo, [
          { operation: 'write', path: 'f.txt', content: theirs },
          { operation: 'write', path: 'other.txt', content: 'other, by the draft\n' },
        ]);
        const ours = withLine(BASE, 3, 'three by the person');
        repo.write('f.txt', ours);
        const merged = gitMergeFile(repo, BASE, ours, theirs).out;
        assert.is(await runWorker(repo, point), 'SIGKILL');
        assert.is(journals(repo).length, 1, 'the journal waits for recovery');
        const f = fs.readFileSync(repo.path('f.txt'));
        assert.ok(f.equals(merged) || f.toString() === ours, `f.txt is neither old nor new: ${f}`);
        assert.ok(['other\n', 'other, by the draft\n'].includes(repo.read('other.txt')));

        const rec = cli(repo, ['recover']);
        assert.is(rec.status, 0, rec.stdout + rec.stderr);
        assert.is(rec.json.finished.length, 1);
        assert.equal(rec.json.finished[0].conflicts, []);
        assert.equal(fs.readFileSync(repo.path('f.txt')), merged);
        assert.is(repo.read('other.txt'), 'other, by the draft\n');
        assert.equal(journals(repo), []);
        assert.is(records(repo).length, 1);
        assert.equal(
          Object.keys(treeHashes(repo.dir)).filter((p) => p.includes('.shadow-tmp-')),
          [],
        );
        fsckClean(repo);
        const u = cli(repo, ['unapply']);
        assert.is(u.status, 0, u.stdout + u.stderr);
        assert.is(repo.read('f.txt'), ours);
        assert.is(repo.read('other.txt'), 'other\n');
      } finally {
        repo.cleanup();
      }
    },
  );
}

Kill.run();
