import { spawn, spawnSync } from 'node:child_process';
import { DiskRepo } from '/work/main/dist/test/helpers/disk-repo.js';
import { openShadow } from '/work/main/dist/src/index.js';
const repo = new DiskRepo({ 'README.md': 'Hello\n' });
const child = spawn('sh', ['-c', 'for i in $(seq 1 40); do git gc --prune=now -q 2>/dev/null; echo $i; done'], { cwd: repo.dir, env: repo.env, stdio: ['ignore', 'pipe', 'inherit'] });
let gcs = 0; child.stdout.on('data', (d) => { gcs += String(d).split('\n').length - 1; });
let done = false; child.on('exit', () => { done = true; });
const sh = await openShadow({ dir: repo.dir, env: repo.env });
const codes = {};
let n = 0;
const t0 = Date.now();
while (!done && n < 2000) {
  n++;
  try {
    const r = await sh.batch({ operations: [{ operation: 'write', path: `f${n % 7}.txt`, content: `v${n}\n` }] }, { draft: `d${n % 3}` });
    codes[r.success ? 'ok' : r.error?.code] = (codes[r.success ? 'ok' : r.error?.code] ?? 0) + 1;
  } catch (e) { if (e.code==='ENOENT') console.log(e.message, e.stack.split('\n').slice(1,5).join(' | ')); codes[e.code ?? e.message] = (codes[e.code ?? e.message] ?? 0) + 1; if (!e.code || e.code==='INTERNAL') console.log(e.message); }
}
await new Promise((r) => (done ? r() : child.on('exit', r))); 
console.log({ n, gcs, codes, ms: Date.now() - t0 });
const f = spawnSync('git', ['fsck', '--strict', '--no-dangling'], { cwd: repo.dir, env: repo.env, encoding: 'utf8' });
console.log('fsck', f.status, f.stderr.slice(0, 500), f.stdout.slice(0,500));
repo.cleanup();
