/** A benchmark run's scratch directory under the cache: made with a HOME inside, removed when the process exits (unless kept). */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';

/**
 * `<cacheDir>/<name>-<pid>`, with `home/` in it; removed on exit unless
 * `keep`. SIGINT exits (130) so that the removal runs.
 */
export function scratchRun(cacheDir: string, name: string, keep: boolean): { root: string; home: string } {
  nodeFs.mkdirSync(cacheDir, { recursive: true });
  const root = join(cacheDir, `${name}-${process.pid}`);
  const home = join(root, 'home');
  nodeFs.mkdirSync(home, { recursive: true });
  const cleanup = (): void => {
    if (!keep) nodeFs.rmSync(root, { recursive: true, force: true });
  };
  process.on('exit', cleanup);
  process.on('SIGINT', () => process.exit(130));
  return { root, home };
}
