import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run bench`: every benchmark in turn (one at a time: they time the
 * disk and the CPU), each printing its own tables and targets; then which
 * of them missed a target. `npm run bench -- apply plan` runs those only.
 */

const BENCHES = [
  'calls',
  'batch',
  'batch-memory',
  'apply',
  'apply-merge',
  'rebase',
  'diff',
  'blame',
  'secrets',
  'plan',
  'session',
  'worktree',
  'attributes',
  'mcp-latency',
  'remotes',
  'page',
  'install',
  'pack-merge',
];
const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const chosen = BENCHES.filter((b) => only.length === 0 || only.includes(b));
if (chosen.length === 0) {
  console.error(`no benchmark named ${only.join(', ')}; they are: ${BENCHES.join(', ')}`);
  process.exit(2);
}
const missed: string[] = [];
for (const name of chosen) {
  console.log(`\n######## bench/${name}.bench.ts\n`);
  const r = spawnSync(process.execPath, [join(here, `${name}.bench.js`)], { stdio: 'inherit' });
  if (r.status !== 0) missed.push(`${name} (exit ${r.status ?? r.signal})`);
}
console.log(
  `\n${chosen.length - missed.length} of ${chosen.length} benchmarks met every target${missed.length > 0 ? `; missed: ${missed.join(', ')}` : ''}`,
);
process.exit(missed.length > 0 ? 1 : 0);
