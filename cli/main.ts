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
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { commandWords } from './command-words.js';
import { handOff } from './handoff/client.js';
import type { CliIO } from './io.js';
import { restoreCaCerts } from './launcher-env.js';
import { widenThreadPool } from './thread-pool.js';

interface CliBundle {
  run(args: string[], io: CliIO): Promise<number>;
  commandKey(args: readonly string[]): string | undefined;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    process.stdout.write(`shadow ${pkg.version}\n`);
    return;
  }
  restoreCaCerts(process.env);
  // A reader that stops early (`shadow log | head`) is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  const isTTY = process.stdout.isTTY === true;
  const handed = await handOff(args, {
    cwd: process.cwd(),
    env: process.env,
    stdin: () => process.stdin,
    stdout: (b) => process.stdout.write(b),
    stderr: (s) => process.stderr.write(s),
    isTTY,
    uid: process.getuid?.(),
    umask: process.umask(),
  });
  if (handed !== undefined) {
    process.exitCode = handed;
    return;
  }
  // Only a command run here needs the wider pool (a hand-off makes no fsync of its own).
  widenThreadPool(process.env, fileURLToPath(import.meta.url));
  // Help and unknown words share one cache; a word that is not a command is not cached.
  const word = commandWords(args)[0];
  const key = word ?? 'help';
  // Loaded only here: a command handed off needs none of it (node:crypto, node:vm).
  const { loadBundle } = await import('./code-cache.js');
  const bundle = loadBundle(fileURLToPath(new URL('./shadow-cli.cjs', import.meta.url)), key, process.env);
  const cli = bundle.exports as unknown as CliBundle;
  process.exitCode = await cli.run(args, {
    cwd: process.cwd(),
    env: process.env,
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    // Set up by node on first use: only a command that reads its input pays for it.
    get stdin() {
      return process.stdin;
    },
    isTTY,
  });
  if (word === undefined || cli.commandKey(args) !== undefined) bundle.saveCache(key);
}

void main();
