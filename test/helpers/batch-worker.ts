/**
 * A writer process for the concurrency tests: opens shadow on a repository
 * and sends `count` batches to one draft as fast as it can, then prints one
 * JSON line per batch: {i, success, code?, batch?, commit?}.
 *
 *   node batch-worker.js <dir> <worker> <count> <disjoint|same-path|same-file-edits>
 */
import { openShadow } from '../../src/index.js';

const [dir, worker, countText, mode] = process.argv.slice(2) as [string, string, string, string];
const sh = await openShadow({ dir });
const count = Number(countText);
for (let i = 0; i < count; i++) {
  let operations;
  if (mode === 'disjoint')
    operations = [{ operation: 'write', path: `w${worker}/f${i}.txt`, content: `${worker}:${i}\n` }];
  else if (mode === 'same-path') operations = [{ operation: 'write', path: 'shared.txt', content: `${worker}:${i}\n` }];
  else
    operations = [
      { operation: 'edit', path: 'counters.txt', old_content: `w${worker}=${i}\n`, content: `w${worker}=${i + 1}\n` },
    ];
  try {
    const r = await sh.batch({ intent: `w${worker} #${i}`, operations }, { actor: `worker-${worker}` });
    process.stdout.write(
      `${JSON.stringify({ i, success: r.success, code: r.error?.code, batch: r.batch, commit: r.commit })}\n`,
    );
  } catch (e) {
    process.stdout.write(
      `${JSON.stringify({ i, success: false, code: (e as { code?: string }).code ?? 'THROWN', message: (e as Error).message })}\n`,
    );
  }
}
sh.close();
