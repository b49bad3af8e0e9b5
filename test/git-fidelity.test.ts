import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DiskRepo } from './helpers/disk-repo.js';
import { openShadow, type Shadow } from '../src/index.js';

/**
 * Git is the oracle: for a corpus of repositories with line-ending rules at
 * several levels, autocrlf, ident, an encoding, a clean/smudge filter, a
 * process filter and the `binary` macro, every blob shadow stores equals
 * `git hash-object --path`, every file apply writes equals what `git
 * checkout` writes, `git status` after apply lists exactly the published
 * paths, and an untouched file is never captured nor stale.
 */

const ROT13 = fileURLToPath(new URL('../../test/fixtures/rot13-filter.mjs', import.meta.url));
const DRAFT = 'refs/shadow/drafts/default';

/** Contents every corpus writes: the line-ending cases git's rules tell apart. */
const SAMPLES: Record<string, Buffer> = {
  lf: Buffer.from('alpha\nbeta\ngamma\n'),
  crlf: Buffer.from('alpha\r\nbeta\r\ngamma\r\n'),
  mixed: Buffer.from('alpha\r\nbeta\ngamma\r\n'),
  lonecr: Buffer.from('alpha\rbeta\r\ngamma\n'),
  nul: Buffer.from('alpha\r\n\0beta\n'),
  noeol: Buffer.from('alpha\r\nbeta'),
  ident: Buffer.from('id: $Id$\r\nkeep\n'),
  empty: Buffer.alloc(0),
};

interface Corpus {
  name: string;
  /** Files of the first commit (attributes included). */
  files: Record<string, string>;
  config?: Record<string, string>;
  /** Directories the samples are written into (each with its own rules). */
  dirs: string[];
  /** Extension of sample files. */
  ext?: string;
  /** The bytes a sample stands as in this corpus's working tree (an encoding). */
  encode?: (b: Buffer) => Buffer;
}

const utf16 = (b: Buffer): Buffer => Buffer.from(b.toString('latin1'), 'utf16le');

const CORPORA: Corpus[] = [
  {
    name: 'eol rules on three levels',
    files: {
      '.gitattributes': '* text=auto\n*.dat -text\n',
      'win/.gitattributes': '*.txt eol=crlf\n',
      'win/deep/.gitattributes': '*.txt -text\n',
      'unix/.gitattributes': '*.txt text eol=lf\n',
      'plain/keep.txt': 'x\n',
    },
    dirs: ['', 'win', 'win/deep', 'unix', 'plain'],
  },
  { name: 'core.autocrlf=true', files: { 'a.txt': 'a\n' }, config: { 'core.autocrlf': 'true' }, dirs: ['', 'sub'] },
  { name: 'core.autocrlf=input', files: { 'a.txt': 'a\n' }, config: { 'core.autocrlf': 'input' }, dirs: [''] },
  {
    name: 'core.eol=crlf with text',
    files: { '.gitattributes': '*.txt text\n' },
    config: { 'core.eol': 'crlf' },
    dirs: [''],
  },
  { name: 'binary macro', files: { '.gitattributes': '* text\n*.txt binary\n' }, dirs: [''] },
  { name: 'ident', files: { '.gitattributes': '*.txt ident eol=crlf\n' }, dirs: [''] },
  {
    name: 'clean/smudge filter',
    files: { '.gitattributes': '*.txt filter=up\n' },
    config: { 'filter.up.clean': 'tr a-z A-Z', 'filter.up.smudge': 'tr A-Z a-z' },
    dirs: [''],
  },
  {
    name: 'process filter',
    files: { '.gitattributes': '*.txt filter=rot\n' },
    config: { 'filter.rot.process': `node ${ROT13}`, 'filter.rot.required': 'true' },
    dirs: [''],
  },
  {
    name: 'working-tree-encoding=UTF-16',
    files: { '.gitattributes': '*.txt text working-tree-encoding=UTF-16LE eol=crlf\n' },
    dirs: [''],
    encode: utf16,
  },
  { name: 'info/attributes over .gitattributes', files: { '.gitattributes': '*.txt -text\n' }, dirs: [''] },
];

function makeRepo(c: Corpus): DiskRepo {
  const repo = new DiskRepo(null);
  for (const [k, v] of Object.entries(c.config ?? {})) repo.git('config', k, v);
  for (const [p, v] of Object.entries(c.files)) repo.write(p, v);
  if (c.name.startsWith('info/attributes')) repo.write('.git/info/attributes', '*.txt text eol=crlf\n');
  repo.git('add', '-A');
  repo.git('commit', '-q', '-m', 'rules');
  return repo;
}

function samplePath(dir: string, name: string, ext = 'txt'): string {
  return `${dir ? `${dir}/` : ''}${name}.${ext}`;
}

/** What `git hash-object --path` stores for `bytes` at `path`. */
function gitBlob(repo: DiskRepo, path: string, bytes: Buffer): string {
  const r = spawnSync('git', ['hash-object', '--stdin', `--path=${path}`], {
    cwd: repo.dir,
    env: repo.env,
    input: bytes,
  });
  assert.is(r.status, 0, `git hash-object: ${r.stderr}`);
  return r.stdout.toString().trim();
}

async function open(repo: DiskRepo): Promise<Shadow> {
  return openShadow({ dir: repo.dir, env: repo.env });
}

/** Files a real `git checkout` of `commit` writes, read from a fresh worktree. */
function checkoutBytes(repo: DiskRepo, commit: string, paths: string[]): Map<string, Buffer> {
  const where = mkdtempSync(join(tmpdir(), 'shadow-checkout-'));
  const wt = join(where, 'wt');
  try {
    repo.git('worktree', 'add', '-q', '--detach', wt, commit);
    const out = new Map<string, Buffer>();
    for (const p of paths) out.set(p, readFileSync(join(wt, p)));
    repo.git('worktree', 'remove', '--force', wt);
    return out;
  } finally {
    rmSync(where, { recursive: true, force: true });
  }
}

const Oracle = suite('git fidelity: blobs and checkouts against native git');

for (const c of CORPORA) {
  Oracle(
    `${c.name}: blobs equal git hash-object --path, files equal git checkout, status lists the published paths`,
    async () => {
      const repo = makeRepo(c);
      try {
        const sh = await open(repo);
        const paths: string[] = [];
        const operations: unknown[] = [];
        const samples = Object.entries(SAMPLES).map(([name, b]): [string, Buffer] => [
          name,
          c.encode ? c.encode(b) : b,
        ]);
        for (const dir of c.dirs) {
          for (const [name, bytes] of samples) {
            const path = samplePath(dir, name, c.ext);
            paths.push(path);
            operations.push({ operation: 'write', path, content: bytes.toString('base64'), encoding: 'base64' });
          }
        }
        const r = await sh.batch({ operations });
        assert.ok(r.success, JSON.stringify(r.results.filter((x) => !x.success)));
        for (const dir of c.dirs) {
          for (const [name, bytes] of samples) {
            const path = samplePath(dir, name, c.ext);
            assert.is(
              repo.ref(`${DRAFT}:${path}`),
              gitBlob(repo, path, bytes),
              `${path}: the blob git add would store`,
            );
          }
        }
        const applied = await sh.apply();
        assert.equal(applied.conflicts, []);
        const tip = repo.ref(DRAFT)!;
        const expected = checkoutBytes(repo, tip, paths);
        for (const p of paths)
          assert.ok(readFileSync(repo.path(p)).equals(expected.get(p)!), `${p}: the bytes git checkout writes`);
        const status = repo
          .git('status', '--porcelain', '--untracked-files=all')
          .split('\n')
          .filter(Boolean)
          .map((l) => l.slice(3))
          .sort();
        assert.equal(status, [...paths].sort(), 'git status lists exactly the published paths');
        // What apply wrote reads back as the draft's blobs: a second look finds nothing stale.
        for (const p of paths)
          assert.is((await sh.cat(p)).oid, repo.ref(`${DRAFT}:${p}`), `${p}: read back as its blob`);
        sh.close();
        const fsck = repo.gitResult('fsck', '--strict', '--no-progress', '--no-dangling');
        assert.is(fsck.status, 0, fsck.stderr);
      } finally {
        repo.cleanup();
      }
    },
  );
}

const Untouched = suite('git fidelity: an untouched file is never captured nor stale');

for (const c of CORPORA) {
  Untouched(`${c.name}: a checked-out file edited through shadow gets no capture commit and applies`, async () => {
    const repo = makeRepo(c);
    try {
      // Files checked out by git, as a fresh clone has them.
      const enc = c.encode ?? ((b: Buffer) => b);
      for (const dir of c.dirs)
        repo.write(samplePath(dir, 'tracked', c.ext), enc(Buffer.from('first line\nsecond line\n')));
      repo.git('add', '-A');
      repo.git('commit', '-q', '-m', 'tracked');
      for (const dir of c.dirs) rmSync(repo.path(samplePath(dir, 'tracked', c.ext)));
      repo.git('checkout', '--', '.');
      assert.is(repo.git('status', '--porcelain'), '');
      const head = repo.ref('HEAD')!;
      const sh = await open(repo);
      for (const dir of c.dirs) {
        const path = samplePath(dir, 'tracked', c.ext);
        // An encoded file is not UTF-8 text to edit: it is rewritten whole.
        const r = c.encode
          ? await sh.write(path, enc(Buffer.from('first line\nsecond line, edited\n')))
          : await sh.edit(path, 'second line\n', 'second line, edited\n');
        assert.ok(r.success, `${path}: ${JSON.stringify(r.results)}`);
      }
      // One commit per batch straight on HEAD: nothing was captured.
      const parents = repo.git('rev-list', '--parents', `${head}..${DRAFT}`).trim().split('\n');
      assert.is(parents.length, c.dirs.length);
      assert.ok(parents[parents.length - 1]!.endsWith(head), 'the first batch sits on HEAD');
      const applied = await sh.apply();
      assert.equal(applied.conflicts, []);
      for (const dir of c.dirs) {
        const path = samplePath(dir, 'tracked', c.ext);
        const expected = checkoutBytes(repo, repo.ref(DRAFT)!, [path]).get(path)!;
        assert.ok(readFileSync(repo.path(path)).equals(expected), `${path}: as git checkout writes it`);
      }
      sh.close();
    } finally {
      repo.cleanup();
    }
  });
}

const Edits = suite('git fidelity: what agents read and edit');

Edits('the view shows the working-tree form; an LF edit matches a CRLF file and keeps its CRLF', async () => {
  const repo = makeRepo({
    name: 'crlf',
    files: { '.gitattributes': '*.txt eol=crlf\n', 'f.txt': 'one\ntwo\nthree\n' },
    dirs: [''],
  });
  try {
    rmSync(repo.path('f.txt'));
    repo.git('checkout', '--', 'f.txt');
    assert.is(repo.read('f.txt'), 'one\r\ntwo\r\nthree\r\n');
    const sh = await open(repo);
    assert.is(
      (await sh.cat('f.txt')).content.toString(),
      'one\r\ntwo\r\nthree\r\n',
      'untouched: as the working tree has it',
    );
    const r = await sh.edit('f.txt', 'two\nthree\n', 'TWO\nTHREE\n');
    assert.ok(r.success, JSON.stringify(r.results));
    assert.is((await sh.cat('f.txt')).content.toString(), 'one\r\nTWO\r\nTHREE\r\n', 'touched: as apply will write it');
    assert.is(repo.git('cat-file', 'blob', `${DRAFT}:f.txt`), 'one\nTWO\nTHREE\n', 'the blob is what git add stores');
    const found = await sh.search('TWO');
    assert.is(found.matches.length, 1, 'search reads the same form cat shows');
    await sh.apply();
    assert.is(repo.read('f.txt'), 'one\r\nTWO\r\nTHREE\r\n');
    assert.is(repo.git('status', '--porcelain'), ' M f.txt\n');
    sh.close();
  } finally {
    repo.cleanup();
  }
});

Edits('a CRLF file git stores as it is (no conversion) takes an LF edit and keeps CRLF', async () => {
  const repo = new DiskRepo({ 'w.txt': 'a\r\nb\r\nc\r\n' });
  try {
    const sh = await open(repo);
    const r = await sh.edit('w.txt', 'b\nc\n', 'B\nC\n');
    assert.ok(r.success, JSON.stringify(r.results));
    assert.is(repo.git('cat-file', 'blob', `${DRAFT}:w.txt`), 'a\r\nB\r\nC\r\n');
    sh.close();
  } finally {
    repo.cleanup();
  }
});

Edits('text=auto leaves a CRLF file already committed with CRLF alone, as git status does', async () => {
  const repo = new DiskRepo({ 'old.txt': 'a\r\nb\r\n', 'other.txt': 'x\n' });
  try {
    repo.write('.gitattributes', '* text=auto\n');
    repo.git('add', '.gitattributes');
    repo.git('commit', '-q', '-m', 'attributes');
    assert.is(repo.git('status', '--porcelain'), '', 'git: unchanged');
    const head = repo.ref('HEAD')!;
    const sh = await open(repo);
    const r = await sh.edit('old.txt', 'a\r\n', 'A\r\n');
    assert.ok(r.success, JSON.stringify(r.results));
    assert.is(repo.git('rev-parse', `${DRAFT}~1`).trim(), head, 'no capture commit');
    sh.close();
  } finally {
    repo.cleanup();
  }
});

Edits('a filtered file reads smudged, is stored cleaned, and applies without STALE_BASE', async () => {
  const repo = makeRepo({
    name: 'filter',
    files: { '.gitattributes': '*.bin filter=x\n', 'k.bin': 'keep me\n' },
    config: { 'filter.x.clean': 'tr a-z A-Z', 'filter.x.smudge': 'tr A-Z a-z' },
    dirs: [''],
  });
  try {
    assert.is(repo.git('cat-file', 'blob', 'HEAD:k.bin'), 'KEEP ME\n');
    const sh = await open(repo);
    assert.is((await sh.cat('k.bin')).content.toString(), 'keep me\n');
    const r = await sh.edit('k.bin', 'keep', 'kept');
    assert.ok(r.success, JSON.stringify(r.results));
    assert.is(repo.git('cat-file', 'blob', `${DRAFT}:k.bin`), 'KEPT ME\n');
    await sh.write('n.bin', 'hi\n');
    assert.is(repo.git('cat-file', 'blob', `${DRAFT}:n.bin`), 'HI\n');
    const applied = await sh.apply({ commit: true });
    assert.equal(applied.conflicts, []);
    assert.is(repo.read('k.bin'), 'kept me\n');
    assert.is(repo.read('n.bin'), 'hi\n');
    assert.is(repo.git('cat-file', 'blob', 'HEAD:n.bin'), 'HI\n', 'the commit holds the cleaned blob');
    assert.is(repo.git('status', '--porcelain'), '');
    sh.close();
  } finally {
    repo.cleanup();
  }
});

Edits('a required filter that fails refuses the batch with FILTER_FAILED, nothing written', async () => {
  const repo = makeRepo({
    name: 'broken',
    files: { '.gitattributes': '*.bin filter=bad\n' },
    config: { 'filter.bad.clean': 'false', 'filter.bad.required': 'true' },
    dirs: [''],
  });
  try {
    const sh = await open(repo);
    const before = repo.ref(DRAFT);
    const r = await sh.write('n.bin', 'x\n');
    assert.is(r.success, false);
    assert.is(r.results[0]!.error?.code, 'FILTER_FAILED');
    assert.match(r.results[0]!.error!.message, /n\.bin/);
    assert.is(repo.ref(DRAFT), before, 'the draft did not move');
    sh.close();
  } finally {
    repo.cleanup();
  }
});

Oracle.run();
Untouched.run();
Edits.run();
