/** bench/batch's start-up measurement: \`node -e 0\` against \`shadow --version\`, interleaved, and its table. */
import { spawnSync } from 'node:child_process';
import { median, ms, p90, table } from '../helpers/stats.js';
import { SHADOW_BIN } from './options.js';

export interface Startup {
  node: number[];
  version: number[];
}

export function measureStartup(runs: number, env: Record<string, string>): Startup {
  const out: Startup = { node: [], version: [] };
  const time = (args: string[]): number => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
    const t = performance.now() - t0;
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${r.stderr}`);
    return t;
  };
  for (let i = 0; i < 3; i++) {
    time(['-e', '0']);
    time([SHADOW_BIN, '--version']);
  }
  for (let i = 0; i < runs; i++) {
    out.node.push(time(['-e', '0']));
    out.version.push(time([SHADOW_BIN, '--version']));
  }
  return out;
}

/** The start-up table: each process's median and p90, and the ratio to `node -e 0`. */
export function printStartup(startup: Startup): void {
  console.log(`\nstart-up (${startup.node.length} runs each, interleaved)`);
  console.log(
    table(
      ['process', 'median ms', 'p90 ms', 'ratio'],
      [
        ['node -e 0', ms(median(startup.node)), ms(p90(startup.node)), '1.00x'],
        [
          'node shadow.cjs --version',
          ms(median(startup.version)),
          ms(p90(startup.version)),
          `${(median(startup.version) / median(startup.node)).toFixed(2)}x`,
        ],
      ],
    ),
  );
}
