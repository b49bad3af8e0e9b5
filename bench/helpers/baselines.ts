/**
 * The baselines shadow is measured against, each applying the same batches:
 * (a) git plumbing spawned per batch, (b) one long-running git fast-import,
 * (c) the checkpoint approach of today's agent tools (`git add -A && git
 * commit` in a separate git dir), plus the shadow CLI as a whole process.
 * Every process can run under strace to count its fsyncs and files written.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import type { Batch } from './workload.js';

const ZERO_OID = '0'.repeat(40);

/** fsyncs and files opened for writing, counted by strace. */
export interface TraceCounts {
  fsyncs: number;
  filesWritten: number;
}

const TRACED = 'trace=fsync,fdatasync,sync_file_range,open,openat,creat';

/** True when strace can trace a child here (it needs ptrace). */
export function straceWorks(): boolean {
  const r = spawnSync('strace', ['-f', '-qq', '--seccomp-bpf', '-e', 'trace=fsync', '-o', '/dev/null', 'true'], {
    stdio: 'ignore',
  });
  return r.status === 0;
}

/** Count fsyncs and write-opens in strace output files. */
export function parseTraces(files: readonly string[]): TraceCounts {
  const out: TraceCounts = { fsyncs: 0, filesWritten: 0 };
  for (const f of files) {
    let text = '';
    try {
      text = nodeFs.readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (/\b(fsync|fdatasync|sync_file_range)\(/.test(line) && !/= -1 /.test(line)) out.fsyncs++;
      else if (
        /\b(open|openat|creat)\(/.test(line) &&
        /O_WRONLY|O_RDWR|O_CREAT|creat\(/.test(line) &&
        !/= -1 /.test(line) &&
        !line.includes('"/dev/')
      ) {
        out.filesWritten++;
      }
    }
  }
  return out;
}

/**
 * Runs processes, optionally under strace (each traced process's syscalls
 * go to a file of their own in `traceDir`).
 */
export class Spawner {
  private traceDir: string | undefined;
  private traceFiles: string[] = [];
  private seq = 0;

  constructor(private readonly scratch: string) {}

  /** Trace every process started until `stopTrace`. */
  startTrace(): void {
    this.traceDir = join(this.scratch, `trace-${this.seq++}`);
    nodeFs.mkdirSync(this.traceDir, { recursive: true });
    this.traceFiles = [];
  }

  stopTrace(): TraceCounts {
    const counts = parseTraces(this.traceFiles);
    if (this.traceDir) nodeFs.rmSync(this.traceDir, { recursive: true, force: true });
    this.traceDir = undefined;
    this.traceFiles = [];
    return counts;
  }

  /** The command line to run `cmd args`, under strace when tracing. */
  wrap(cmd: string, args: readonly string[]): [string, string[]] {
    if (!this.traceDir) return [cmd, [...args]];
    const file = join(this.traceDir, `p${this.seq++}.txt`);
    this.traceFiles.push(file);
    return ['strace', ['-f', '-qq', '--seccomp-bpf', '-e', TRACED, '-o', file, cmd, ...args]];
  }

  /** Run to completion; throws on a non-zero exit. Returns stdout. */
  run(
    cmd: string,
    args: readonly string[],
    options: { cwd: string; env: Record<string, string>; input?: string | Buffer },
  ): string {
    const [c, a] = this.wrap(cmd, args);
    const r = spawnSync(c, a, {
      cwd: options.cwd,
      env: options.env,
      input: options.input,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (r.error) throw r.error;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    return r.stdout;
  }
}

/**
 * (a) Native git plumbing, spawned per batch, with a temporary index:
 * read-tree of the parent, hash-object -w --stdin-paths (the contents go
 * through temporary files), update-index --index-info, write-tree,
 * commit-tree, update-ref with the old value (compare-and-swap).
 */
export class Plumbing {
  private parent: string;
  private current: string | undefined;
  private readonly index: string;
  private readonly blobDir: string;
  private readonly env: Record<string, string>;

  constructor(
    private readonly repo: string,
    env: Record<string, string>,
    scratch: string,
    private readonly spawner: Spawner,
    private readonly ref = 'refs/heads/plumbing-bench',
  ) {
    this.index = join(scratch, 'plumbing.index');
    this.blobDir = join(scratch, 'plumbing-blobs');
    nodeFs.mkdirSync(this.blobDir, { recursive: true });
    this.env = { ...env, GIT_INDEX_FILE: this.index };
    this.parent = this.git(['rev-parse', 'refs/heads/main']).trim();
  }

  private git(args: string[], input?: string): string {
    return this.spawner.run('git', args, { cwd: this.repo, env: this.env, input });
  }

  batch(batch: Batch, i: number): void {
    this.git(['read-tree', this.parent]);
    const files = batch.map((w, j) => {
      const f = join(this.blobDir, `b${j}`);
      nodeFs.writeFileSync(f, w.content);
      return f;
    });
    const oids = this.git(['hash-object', '-w', '--stdin-paths'], `${files.join('\n')}\n`)
      .trim()
      .split('\n');
    this.git(['update-index', '--index-info'], batch.map((w, j) => `100644 ${oids[j]}\t${w.path}\n`).join(''));
    const tree = this.git(['write-tree']).trim();
    const commit = this.git(['commit-tree', tree, '-p', this.parent, '-m', `plumbing batch ${i}`]).trim();
    this.git(['update-ref', this.ref, commit, this.current ?? ZERO_OID]);
    this.current = commit;
    this.parent = commit;
  }
}

/**
 * (b) One long-running `git fast-import --done`: each batch is a commit with
 * inline data, then `checkpoint` (fast-import writes its pack and updates
 * the refs) and `progress <token>`; the batch is done when the progress line
 * comes back on stdout.
 */
export class FastImport {
  private readonly proc: ChildProcessWithoutNullStreams;
  private pending = '';
  private waiting: { token: string; resolve: () => void; reject: (e: Error) => void } | undefined;
  private readonly exited: Promise<number | null>;
  private stderr = '';
  private first = true;
  private seq = 0;

  constructor(
    repo: string,
    env: Record<string, string>,
    spawner: Spawner,
    private readonly ref = 'refs/heads/fi-bench',
  ) {
    const [cmd, args] = spawner.wrap('git', ['fast-import', '--done', '--quiet']);
    this.proc = spawn(cmd, args, { cwd: repo, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (d: string) => {
      this.pending += d;
      let nl: number;
      while ((nl = this.pending.indexOf('\n')) !== -1) {
        const line = this.pending.slice(0, nl);
        this.pending = this.pending.slice(nl + 1);
        if (this.waiting && line === `progress ${this.waiting.token}`) {
          const w = this.waiting;
          this.waiting = undefined;
          w.resolve();
        }
      }
    });
    this.proc.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => this.proc.on('close', (code) => resolve(code)));
    void this.exited.then((code) => {
      const w = this.waiting;
      this.waiting = undefined;
      w?.reject(new Error(`git fast-import exited (${code}) during a batch: ${this.stderr}`));
    });
  }

  async batch(batch: Batch, i: number): Promise<void> {
    const parts: Buffer[] = [];
    const message = `fast-import batch ${i}\n`;
    parts.push(
      Buffer.from(
        `commit ${this.ref}\ncommitter Bench <bench@example.com> ${1700000000 + i} +0000\ndata ${Buffer.byteLength(message)}\n${message}`,
      ),
    );
    if (this.first) parts.push(Buffer.from('from refs/heads/main^0\n'));
    this.first = false;
    for (const w of batch)
      parts.push(Buffer.from(`M 100644 inline ${w.path}\ndata ${Buffer.byteLength(w.content)}\n${w.content}\n`));
    const token = `b${this.seq++}`;
    parts.push(Buffer.from(`\ncheckpoint\n\nprogress ${token}\n\n`));
    const done = new Promise<void>((resolve, reject) => (this.waiting = { token, resolve, reject }));
    this.proc.stdin.write(Buffer.concat(parts));
    await done;
  }

  async close(): Promise<void> {
    this.proc.stdin.end('done\n');
    const code = await this.exited;
    if (code !== 0) throw new Error(`git fast-import failed (${code}): ${this.stderr}`);
  }
}

/**
 * (c) The checkpoint approach of today's agent tools: the agent writes the
 * files into the working tree, then `git add -A && git commit` in a separate
 * git dir whose work tree is the repository.
 */
export class CheckpointRepo {
  private readonly gitArgs: string[];
  private readonly written = new Map<string, boolean>();

  constructor(
    private readonly repo: string,
    readonly gitdir: string,
    private readonly env: Record<string, string>,
    private readonly spawner: Spawner,
  ) {
    this.gitArgs = [`--git-dir=${gitdir}`, `--work-tree=${repo}`];
  }

  get args(): readonly string[] {
    return this.gitArgs;
  }

  private git(args: string[]): string {
    return this.spawner.run('git', [...this.gitArgs, ...args], { cwd: this.repo, env: this.env });
  }

  /** Create the git dir and its first checkpoint of the whole working tree (not timed). */
  init(): void {
    nodeFs.rmSync(this.gitdir, { recursive: true, force: true });
    this.git(['init', '-q']);
    this.git(['config', 'user.name', 'Bench User']);
    this.git(['config', 'user.email', 'bench@example.com']);
    // An automatic gc in the middle of the measured batches would measure gc.
    this.git(['config', 'gc.auto', '0']);
    this.git(['add', '-A']);
    this.git(['commit', '-q', '-m', 'initial checkpoint']);
  }

  batch(batch: Batch, i: number): void {
    for (const w of batch) {
      if (!this.written.has(w.path)) this.written.set(w.path, w.existing);
      nodeFs.writeFileSync(join(this.repo, w.path), w.content);
    }
    this.git(['add', '-A']);
    this.git(['commit', '-q', '-m', `checkpoint ${i}`]);
  }

  /**
   * Put the working tree back as it was: tracked files checked out again, new
   * files removed. The git dir stays (the next case's first batch, a warm-up,
   * records the reverted files).
   */
  restore(env: Record<string, string>): void {
    const tracked = [...this.written].filter(([, existing]) => existing).map(([p]) => p);
    for (const [p, existing] of this.written) if (!existing) nodeFs.rmSync(join(this.repo, p), { force: true });
    for (let i = 0; i < tracked.length; i += 500) {
      const r = spawnSync('git', ['checkout', '-q', 'HEAD', '--', ...tracked.slice(i, i + 500)], {
        cwd: this.repo,
        env,
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`restoring the working tree failed: ${r.stderr}`);
    }
    this.written.clear();
  }
}

/** The shadow CLI as a whole process per batch: `node shadow.cjs batch <file>`. */
export class ShadowCli {
  private readonly file: string;

  constructor(
    private readonly bin: string,
    private readonly repo: string,
    private readonly env: Record<string, string>,
    scratch: string,
    private readonly spawner: Spawner,
    private readonly draft: string,
  ) {
    this.file = join(scratch, 'cli-batch.json');
  }

  batch(batch: Batch, i: number): void {
    const doc = {
      intent: `cli batch ${i}`,
      operations: batch.map((w) => ({ operation: 'write', path: w.path, content: w.content })),
    };
    nodeFs.writeFileSync(this.file, JSON.stringify(doc));
    this.spawner.run(process.execPath, [this.bin, 'batch', this.file, '--draft', this.draft], {
      cwd: this.repo,
      env: this.env,
    });
  }
}
