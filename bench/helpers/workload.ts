/**
 * Deterministic inputs: the file layout of a generated repository, file
 * contents, and the batches every system under test applies.
 */

/** mulberry32: a small seeded PRNG, so every run generates the same inputs. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Files per leaf directory. */
export const FILES_PER_DIR = 50;

/** The layout of a repository of `n` files. */
export interface Layout {
  n: number;
  /** Leaf directories (`d07/s12`), each with up to FILES_PER_DIR files. */
  leafDirs: string[];
  /** Top-level directories. */
  topDirs: number;
  /** Every generated file path (not counting the root's README.md and .gitignore). */
  paths: string[];
}

/**
 * `n` files in leaf directories of 50, two levels deep: about √(n/50)
 * top-level directories of about √(n/50) subdirectories each
 * (`d07/s12/f034.txt`). At n = 50,000: 32 top-level directories, 1,000 leaf
 * directories. Two levels keep every tree small, as in real repositories
 * (a root with 1,000 entries would be rare).
 */
export function layout(n: number): Layout {
  const leaves = Math.ceil(n / FILES_PER_DIR);
  const top = Math.ceil(Math.sqrt(leaves));
  const perTop = Math.ceil(leaves / top);
  const w = (x: number): number => String(Math.max(1, x - 1)).length;
  const pad = (x: number, width: number): string => String(x).padStart(width, '0');
  const leafDirs: string[] = [];
  const paths: string[] = [];
  for (let i = 0; i < leaves; i++) {
    const dir = `d${pad(Math.floor(i / perTop), w(top))}/s${pad(i % perTop, w(perTop))}`;
    leafDirs.push(dir);
    const files = Math.min(FILES_PER_DIR, n - i * FILES_PER_DIR);
    for (let j = 0; j < files; j++) paths.push(`${dir}/f${pad(j, 3)}.txt`);
  }
  return { n, leafDirs, topDirs: top, paths };
}

const WORDS = (
  'the of and to in is that for it as with was on be by this are or from at which an but not have ' +
  'const let function return import export class interface type async await if else while for new ' +
  'value result error path file tree commit batch draft shadow buffer string number object index'
).split(' ');

/** Text-like content of 200 to 3,000 bytes (about 1.6 KB on average), starting with `header`. */
export function content(rand: () => number, header: string): string {
  const size = 200 + Math.floor(rand() * 2800);
  const lines = [header];
  let len = header.length + 1;
  let lineNo = 1;
  while (len < size) {
    const words: string[] = [];
    const count = 3 + Math.floor(rand() * 9);
    for (let i = 0; i < count; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)]!);
    const line = `${'  '.repeat(Math.floor(rand() * 3))}${words.join(' ')}; // ${lineNo++}`;
    lines.push(line);
    len += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

/** One file a batch writes. */
export interface FileWrite {
  path: string;
  content: string;
  /** True when the path is tracked in the generated repository (a modification), false for a new file. */
  existing: boolean;
}

export type Batch = FileWrite[];

/**
 * How many leaf directories the batches draw from, at every N: the number
 * the smallest repository (N = 1,000) has. A batch spread over more
 * directories rewrites more trees in any repository; drawing from as many
 * at every N keeps a batch's shape (the trees it rewrites) the same, so
 * that only N varies between sizes, which is what "flat in N" compares.
 */
export const BATCH_DIRS = 20;

function shuffle<T>(items: T[], rand: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/**
 * `count` batches of `k` writes against the repository of `layout`, in
 * BATCH_DIRS leaf directories chosen by the seed. Writes alternate between
 * modifying a tracked file of those directories (drawn without replacement
 * from a shuffle, so each is a first touch; the shuffle wraps around only
 * when exhausted) and creating a new file in one of them. With k = 1 the
 * alternation runs across batches. The same seed gives the same batches, so
 * every system applies exactly the same writes.
 */
export function makeBatches(lay: Layout, k: number, count: number, tag: string): Batch[] {
  const rand = prng(lay.n * 1000 + k);
  const dirs = shuffle([...lay.leafDirs], rand).slice(0, BATCH_DIRS);
  const inDirs = new Set(dirs);
  const order = shuffle(
    lay.paths.filter((p) => inDirs.has(p.slice(0, p.lastIndexOf('/')))),
    rand,
  );
  let next = 0;
  const batches: Batch[] = [];
  for (let b = 0; b < count; b++) {
    const batch: Batch = [];
    for (let j = 0; j < k; j++) {
      const g = b * k + j;
      if (g % 2 === 0) {
        const path = order[next++ % order.length]!;
        batch.push({ path, content: content(rand, `// ${path}: edited by batch ${b}`), existing: true });
      } else {
        const dir = dirs[Math.floor(rand() * dirs.length)]!;
        const path = `${dir}/new-${tag}-${g}.txt`;
        batch.push({ path, content: content(rand, `// ${path}: created by batch ${b}`), existing: false });
      }
    }
    batches.push(batch);
  }
  return batches;
}
