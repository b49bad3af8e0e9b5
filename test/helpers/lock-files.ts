import * as nodeFs from 'node:fs';
import { join } from 'node:path';

/** Lock files under a git dir that block the next command: any but the process locks of `gone` pids (the next taker takes those over). */
export function blockingLocks(gitDir: string, gone: (pid: number) => boolean): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const e of nodeFs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name), `${rel}${e.name}/`);
      else if (e.name.endsWith('.lock')) {
        let holder: { pid?: number } | undefined;
        try {
          holder = JSON.parse(nodeFs.readFileSync(join(dir, e.name), 'utf8'));
        } catch {
          holder = undefined;
        }
        if (holder?.pid === undefined || !gone(holder.pid)) out.push(`${rel}${e.name}`);
      }
    }
  };
  walk(gitDir, '');
  return out;
}
