#!/usr/bin/env node
/**
 * The `shadow` executable (bundled as CommonJS into dist/bin/shadow.cjs:
 * node starts a CommonJS file a few milliseconds sooner than an ES module).
 *
 * - `--version` answers before anything heavy loads (start-up is measured
 *   against `node -e 0`).
 * - A one-shot command is handed to a shadow process already serving the
 *   repository, when one runs (handoff/protocol.ts): no CLI to load.
 * - Otherwise the CLI bundle (`shadow-cli.cjs`) loads with the code V8
 *   cached for that command on an earlier run (code-cache.ts), and each
 *   command runs only the modules it needs.
 *
 * The sequence is launch.ts's; this file gives it the process.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launch, type CliBundle } from './launch.js';
import { processStdout } from './stdout-fd.js';
import { widenThreadPool } from './thread-pool.js';

async function main(): Promise<void> {
  // Written on descriptor 1 unless it is a terminal; a reader that stops early (`shadow log | head`) is not an error.
  const stdout = processStdout();
  process.exitCode = await launch(process.argv.slice(2), {
    cwd: process.cwd(),
    env: process.env,
    stdout: (s) => stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    // Set up by node on first use: only a command that reads its input pays for it.
    stdin: () => process.stdin,
    isTTY: stdout.isTTY,
    columns: () => (stdout.isTTY ? process.stdout.columns : undefined),
    uid: process.getuid?.(),
    umask: process.umask(),
    version: () =>
      (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version,
    // Only a command run here needs the wider pool (a hand-off makes no fsync of its own).
    beforeRun: () => widenThreadPool(process.env, fileURLToPath(import.meta.url)),
    loadCli: async (key) => {
      // Loaded only here: a command handed off needs none of it (node:crypto, node:vm).
      const { loadBundle } = await import('./code-cache.js');
      const bundle = loadBundle(fileURLToPath(new URL('./shadow-cli.cjs', import.meta.url)), key, process.env);
      return { cli: bundle.exports as unknown as CliBundle, saveCache: () => bundle.saveCache(key) };
    },
  });
}

void main();
