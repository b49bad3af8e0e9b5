#!/usr/bin/env node
/**
 * The `shadow` executable. `--version` answers before anything heavy loads
 * (start-up is measured against `node -e 0`); every other command loads the
 * CLI, and each command loads only the modules it needs.
 */
import { readFileSync } from 'node:fs';

// A reader that stops early (`shadow log | head`) is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  process.stdout.write(`shadow ${pkg.version}\n`);
} else {
  const { run } = await import('./run.js');
  process.exitCode = await run(args, {
    cwd: process.cwd(),
    env: process.env,
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    stdin: process.stdin,
    isTTY: process.stdout.isTTY === true,
  });
}
