#!/usr/bin/env node
/**
 * The `shadow` executable. `--version` answers before anything heavy loads
 * (start-up is measured against `node -e 0`); every other command loads the
 * CLI bundle (`shadow-cli.cjs`) with the code V8 cached for that command on
 * an earlier run (see code-cache.ts), and each command runs only the
 * modules it needs.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadBundle } from './code-cache.js';
import { commandWords } from './command-words.js';
import type { CliIO } from './io.js';

// A reader that stops early (`shadow log | head`) is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

interface CliBundle {
  run(args: string[], io: CliIO): Promise<number>;
  commandKey(args: readonly string[]): string | undefined;
}

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  process.stdout.write(`shadow ${pkg.version}\n`);
} else {
  // Help and unknown words share one cache; a word that is not a command is not cached.
  const word = commandWords(args)[0];
  const key = word ?? 'help';
  const bundle = loadBundle(fileURLToPath(new URL('./shadow-cli.cjs', import.meta.url)), key, process.env);
  const cli = bundle.exports as unknown as CliBundle;
  process.exitCode = await cli.run(args, {
    cwd: process.cwd(),
    env: process.env,
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    stdin: process.stdin,
    isTTY: process.stdout.isTTY === true,
  });
  if (word === undefined || cli.commandKey(args) !== undefined) bundle.saveCache(key);
}
