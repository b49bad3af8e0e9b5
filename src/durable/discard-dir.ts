import type { Context, FileSystem } from '../context.js';
import { errnoCode } from '../errors.js';
import { fsyncDir, listDir, parentOf, tryUnlink } from './durable-file.js';

/**
 * `shadow/trash/`: directories on their way out. A directory is renamed
 * here in one step (durably), then deleted file by file: a crash part-way
 * through a deletion leaves a whole directory where it was or a partial one
 * here, where nothing reads it and the next discard empties it.
 */

function trashDir(shadowDir: string): string {
  return `${shadowDir}/trash`;
}

/** Remove a tree: files, symlinks and directories below `path`, then `path`. */
function removeTree(fs: FileSystem, path: string): void {
  let isDir: boolean;
  try {
    isDir = fs.lstatSync(path).isDirectory();
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return;
    throw e;
  }
  if (!isDir) {
    tryUnlink(fs, path);
    return;
  }
  for (const name of listDir(fs, path)) removeTree(fs, `${path}/${name}`);
  try {
    fs.rmdirSync(path);
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw e;
  }
}

/**
 * Remove directory `dir` (inside `shadowDir`) and everything in it, as one
 * durable step: once this returns, a crash never brings back any of it.
 * Returns whether there was one. Leftovers of earlier discards go too.
 */
export function discardDir(ctx: Context, shadowDir: string, dir: string): boolean {
  const fs = ctx.fs;
  const trash = trashDir(shadowDir);
  const aside = `${trash}/${ctx.ids.token()}`;
  let moved = false;
  try {
    fs.mkdirSync(trash, { recursive: true });
    fs.renameSync(dir, aside);
    moved = true;
  } catch (e) {
    const code = errnoCode(e);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
  }
  if (moved) fsyncDir(fs, parentOf(dir));
  for (const name of listDir(fs, trash)) {
    try {
      removeTree(fs, `${trash}/${name}`);
    } catch (e) {
      // What is in the trash is read by nothing: a file that will not go
      // (a permission, another process emptying it too) waits for the next.
      if (!/^E[A-Z]+$/.test(errnoCode(e) ?? '')) throw e;
    }
  }
  return moved;
}
