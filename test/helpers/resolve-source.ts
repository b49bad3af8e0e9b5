import { hashObject, MODE, type Oid } from '../../src/git/format/git-objects.js';
import { F, MemStore, type Spec } from './mem-tree-store.js';
import {
  resolveBatch,
  type Resolution,
  type ResolveOptions,
  type ResolveSource,
} from '../../src/drafts/batch/resolve-batch.js';
import { editTree } from '../../src/git/format/tree-edit.js';
import type { FileOperation } from '../../src/drafts/batch/ops.js';

/*
 * resolveBatch over an in-memory source: a base tree built from a spec, a
 * run of a batch on it, and the files of the tree the run leads to.
 */

export const patcher = await import('../../src/drafts/text/text-patch.js');
export const MAX = 10 * 1024 * 1024;
export const OPTIONS: ResolveOptions = { maxContentBytes: MAX, patcher };

// ---------------------------------------------------------------- an in-memory source

export { F, type Spec } from './mem-tree-store.js';

/** The in-memory tree store, with the blob reads resolveBatch makes. */
export class MemSource extends MemStore implements ResolveSource {
  readBlob(oid: Oid): Buffer {
    const b = this.blobs.get(oid);
    if (!b) throw new Error(`blob ${oid} is not in the store`);
    return b;
  }

  /** Every file under `root`: path → `mode content` (a blob missing throws; empty trees pass). */
  override files(root: Oid, prefix = ''): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of this.readTree(root)) {
      const path = prefix + e.name;
      if (e.mode === MODE.tree) Object.assign(out, this.files(e.oid, `${path}/`));
      else out[path] = `${e.mode} ${this.readBlob(e.oid).toString('utf8')}`;
    }
    return out;
  }
}

export const LINES_20 = `${Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;

export const BASE: Spec = {
  'README.md': 'Hello\n',
  src: { 'app.ts': 'export const x = 1;\nexport const y = 2;\n' },
  'run.sh': new F('echo hi\n', MODE.executable),
  link: new F('README.md', MODE.symlink),
  'bin.dat': new F(Buffer.from([0xff, 0xfe, 0x00, 0x01])),
  docs: { 'guide.md': 'guide\n' },
  'twenty.txt': LINES_20,
  'dup.txt': 'x = 1\ny = 2\nx = 1\nz\nx = 1\n',
  'crlf.txt': 'first\r\nsecond\r\n',
};

export interface Run {
  r: Resolution;
  s: MemSource;
  root: Oid;
  /** The files of the tree the resolution leads to. */
  after(): Record<string, string>;
}

export function run(ops: FileOperation[], options: ResolveOptions = OPTIONS, spec: Spec = BASE): Run {
  const s = new MemSource();
  const root = s.build(spec);
  const r = resolveBatch(s, root, ops, options);
  return {
    r,
    s,
    root,
    after() {
      for (const [oid, bytes] of r.blobs) s.blobs.set(oid, bytes);
      const out = editTree(s, root, r.changes);
      for (const t of out.trees) s.trees.set(t.oid, t.entries);
      return s.files(out.root);
    },
  };
}

export const file = (content: string, mode: string = MODE.file): string => `${mode} ${content}`;
export const blobId = (content: string | Buffer): string =>
  hashObject('blob', typeof content === 'string' ? Buffer.from(content) : content);

export function twoHunkDiff(path = 'twenty.txt'): string {
  return [
    `--- a/${path}`,
    `+++ b/${path}`,
    '@@ -2,3 +2,3 @@',
    ' line 2',
    '-line 3',
    '+LINE 3',
    ' line 4',
    '@@ -15,3 +15,3 @@',
    ' line 15',
    '-line 16',
    '+LINE 16',
    ' line 17',
    '',
  ].join('\n');
}
export const PATCHED_20 = LINES_20.replace('line 3\n', 'LINE 3\n').replace('line 16\n', 'LINE 16\n');
