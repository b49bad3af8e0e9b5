/**
 * The calls bench's phase probe (bench/calls/phases.ts) still finds each
 * phase of a real `shadow` process: it hooks how cli/code-cache.ts loads
 * the bundle, so a change there that it no longer sees shows here rather
 * than as empty columns in a bench report.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { measurePhases } from '../bench/calls/phases.js';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';

const Phases = suite('bench phases');

Phases('a command by the caller has every phase, in order; node -e 0 has only its start', () => {
  const repo = new DiskRepo();
  try {
    const [bare, status] = measurePhases(
      [
        { label: 'node -e 0', cmd: process.execPath, args: ['-e', '0'] },
        { label: 'shadow status', cmd: process.execPath, args: [SHADOW_BIN, 'status'], env: { SHADOW_HANDOFF: '0' } },
      ],
      1,
      { cwd: repo.dir, env: repo.env, scratch: repo.root },
    );
    assert.is(bare!.load, undefined);
    assert.is(bare!.run, undefined);
    for (const k of ['load', 'init', 'run'] as const) assert.ok((status![k] ?? 0) > 0, `${k}: ${status![k]}`);
    const sum = status!.node + status!.load! + status!.init! + status!.run! + status!.after;
    assert.ok(Math.abs(sum - status!.total) < 0.01, `${sum} against ${status!.total}`);
  } finally {
    repo.cleanup();
  }
});

Phases.run();
