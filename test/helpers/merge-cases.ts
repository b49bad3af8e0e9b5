import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prng } from './prng.js';

/**
 * Random three-way merge cases, seeded, and what git merge-file makes of
 * them: the corpus every merge of shadow's is held to (the merge itself,
 * apply's, unapply's reverse merge).
 */

/** Lines that recur, as in code: the source of ambiguous alignments. */
const COMMON = ['', '}', '  }', '{', 'return x;', '  return x;', 'end', '---', '  ', '// note', 'foo();', 'bar();'];

export interface Case {
  seed: number;
  kind: string;
  base: Buffer;
  ours: Buffer;
  theirs: Buffer;
}

export function genCase(seed: number): Case {
  const r = prng(seed);
  const int = (n: number): number => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  let fresh = 0;
  const repeatRate = pick([0, 0.2, 0.35, 0.6]);
  const line = (): string => (r() < repeatRate ? pick(COMMON) : `line ${seed}.${fresh++}`);
  const lines = (n: number): string[] => Array.from({ length: n }, line);
  const base = r() < 0.08 ? [] : lines(1 + int(r() < 0.2 ? 60 : 25));
  const kind = pick(['far', 'near', 'near', 'same', 'random', 'moves']);

  /** One edit at `at` (clamped), of a random sort. */
  const edit = (out: string[], at: number): void => {
    const i = Math.max(0, Math.min(at, out.length));
    const sort = out.length === 0 ? 0 : int(kind === 'moves' ? 5 : 4);
    if (sort === 0) out.splice(i, 0, ...lines(1 + int(3)));
    else if (sort === 1) out.splice(Math.min(i, out.length - 1), 1 + int(2));
    else if (sort === 2) out[Math.min(i, out.length - 1)] = line();
    else if (sort === 3) out.splice(Math.min(i, out.length - 1), 1 + int(2), ...lines(1 + int(2)));
    else {
      const block = out.splice(Math.min(i, out.length - 1), 1 + int(3));
      out.splice(int(out.length + 1), 0, ...block);
    }
  };
  const side = (from: number, to: number, count: number): string[] => {
    const out = [...base];
    for (let k = 0; k < count; k++) edit(out, from + int(Math.max(1, to - from)));
    return out;
  };
  const n = base.length;
  const focus = int(n + 1);
  let ours: string[];
  let theirs: string[];
  if (kind === 'far') {
    ours = side(0, Math.floor(n / 2) - 1, 1 + int(2));
    theirs = side(Math.floor(n / 2) + 1, n + 1, 1 + int(2));
  } else if (kind === 'near') {
    ours = side(focus - 2, focus + 2, 1 + int(2));
    theirs = side(focus - 2, focus + 2, 1 + int(2));
  } else if (kind === 'same') {
    ours = side(focus - 2, focus + 2, 1);
    theirs = r() < 0.5 ? [...ours] : [...ours.slice(0, ours.length), ...lines(int(2))];
  } else {
    ours = side(0, n + 1, 1 + int(3));
    theirs = side(0, n + 1, 1 + int(3));
  }
  const eol = pick(['lf', 'lf', 'lf', 'crlf', 'mixed']);
  const join = (ls: string[], crlf: boolean): Buffer => {
    const noFinal = ls.length > 0 && r() < 0.15;
    const text = ls
      .map(
        (l, i) =>
          l + (i === ls.length - 1 && noFinal ? '' : crlf || (eol === 'mixed' && (i + seed) % 3 === 0) ? '\r\n' : '\n'),
      )
      .join('');
    return Buffer.from(text);
  };
  const crlf = eol === 'crlf';
  // Now and then the person turns the line ends around.
  return {
    seed,
    kind,
    base: join(base, crlf),
    ours: join(ours, r() < 0.05 ? !crlf : crlf),
    theirs: join(theirs, crlf),
  };
}

/** What `git merge-file -p` made of each case (files <i>.o, <i>.a, <i>.b in `dir`, with these labels): its bytes and its exit status (the number of conflicts). */
export async function gitMerges(
  dir: string,
  count: number,
  env: Record<string, string>,
  LABELS: { ours: string; theirs: string },
): Promise<Array<{ out: Buffer; status: number }>> {
  // Two shells (one per core), each running git merge-file for half of the cases: one spawn of node, not hundreds.
  const half = Math.ceil(count / 2);
  const run = (from: number, to: number): Promise<void> =>
    new Promise((done, fail) => {
      const script = `i=${from}; while [ $i -lt ${to} ]; do git merge-file -p -L "${LABELS.ours}" -L base -L "${LABELS.theirs}" $i.a $i.o $i.b > $i.out; echo $? > $i.rc; i=$((i+1)); done`;
      const child = spawn('sh', ['-c', script], { cwd: dir, env, stdio: 'ignore' });
      child.on('error', fail);
      child.on('close', (code) => (code === 0 ? done() : fail(new Error(`sh exited ${code}`))));
    });
  await Promise.all([run(0, half), run(half, count)]);
  return Array.from({ length: count }, (_, i) => ({
    out: readFileSync(join(dir, `${i}.out`)),
    status: Number(readFileSync(join(dir, `${i}.rc`), 'utf8')),
  }));
}
