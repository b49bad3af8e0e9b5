import { Volume, createFsFromVolume } from 'memfs';
import * as git from 'isomorphic-git';
import { openShadow, type FileSystem, type Shadow } from '../../src/index.js';
import { testContext, type TestContext } from './context.js';

/** A git repository in a fresh memfs volume, built with isomorphic-git (an independent git implementation). */
export interface MemRepo {
  dir: string;
  // Both shadow's FileSystem and isomorphic-git's client.
  fs: FileSystem & git.CallbackFsClient;
  ctx: TestContext;
  /** Open a shadow handle on the repository. */
  open(): Promise<Shadow>;
  read(path: string): string;
  write(path: string, content: string): void;
  exists(path: string): boolean;
}

export const AUTHOR = { name: 'Test User', email: 'test@example.com', timestamp: 1795348800, timezoneOffset: 0 };

/**
 * Make `/repo` with `files` committed on `main` (no commit when `files` is
 * null) and user.name/user.email set.
 */
export async function memRepo(
  files: Record<string, string> | null = { 'README.md': 'Hello\n' },
  env: Record<string, string> = {},
): Promise<MemRepo> {
  const vol = new Volume();
  const fs = createFsFromVolume(vol) as unknown as MemRepo['fs'];
  const dir = '/repo';
  vol.mkdirSync(dir, { recursive: true });
  await git.init({ fs, dir, defaultBranch: 'main' });
  await git.setConfig({ fs, dir, path: 'user.name', value: 'Test User' });
  await git.setConfig({ fs, dir, path: 'user.email', value: 'test@example.com' });
  if (files) {
    for (const [path, content] of Object.entries(files)) {
      const slash = path.lastIndexOf('/');
      if (slash > 0) vol.mkdirSync(`${dir}/${path.slice(0, slash)}`, { recursive: true });
      vol.writeFileSync(`${dir}/${path}`, content);
      await git.add({ fs, dir, filepath: path });
    }
    await git.commit({ fs, dir, message: 'initial commit', author: AUTHOR });
  }
  const ctx = testContext(fs, env);
  return {
    dir,
    fs,
    ctx,
    open: () => openShadow({ dir, fs: ctx.fs, clock: ctx.clock, ids: ctx.ids, env: ctx.env }),
    read: (path) => String(vol.readFileSync(`${dir}/${path}`, 'utf8')),
    write: (path, content) => {
      const slash = path.lastIndexOf('/');
      if (slash > 0) vol.mkdirSync(`${dir}/${path.slice(0, slash)}`, { recursive: true });
      vol.writeFileSync(`${dir}/${path}`, content);
    },
    exists: (path) => vol.existsSync(`${dir}/${path}`),
  };
}
