import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * How an agent's config starts shadow: the absolute path of this node and of
 * this installation's `shadow.cjs`. Never a bare `shadow` or `npx shadow`:
 * an agent starts its servers and hooks from a directory and PATH of its
 * own, where `shadow` may be missing or be the unrelated npm package of that
 * name.
 */
export interface Launch {
  node: string;
  entry: string;
}

/**
 * The executable the running CLI was loaded from. Bundled, this module is
 * `dist/bin/shadow-cli.cjs` beside `shadow.cjs`; compiled by tsc (the
 * tests), it is `dist/cli/agents/launch.js`, two levels under `dist/bin`.
 */
export function shadowEntry(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    for (const candidate of [join(dir, 'shadow.cjs'), join(dir, 'bin', 'shadow.cjs')]) {
      // realpath: a global install reaches it through a symlink that an upgrade may move.
      if (existsSync(candidate)) return realpathSync(candidate);
    }
  }
  throw new Error(`shadow.cjs not found above ${fileURLToPath(from)}`);
}

export function thisLaunch(): Launch {
  return { node: process.execPath, entry: shadowEntry() };
}

/** The arguments that start `shadow <words>` on the repository at `root`, from any directory. */
export function shadowArgs(launch: Launch, root: string, words: readonly string[]): string[] {
  return [launch.entry, '-C', root, ...words];
}

/**
 * One word for the shell an agent runs a hook command with (`sh -c` on
 * POSIX, cmd.exe on Windows): paths with spaces or quotes stay one word.
 */
export function shellWord(word: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return `"${word.replace(/"/g, '""')}"`;
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A shell command line that runs `shadow <words>` on the repository at `root`. */
export function shadowCommandLine(
  launch: Launch,
  root: string,
  words: readonly string[],
  platform: NodeJS.Platform = process.platform,
): string {
  return [launch.node, ...shadowArgs(launch, root, words)].map((w) => shellWord(w, platform)).join(' ');
}

/**
 * The command line of a hook that fails closed: `shadow <words>` run so that
 * any outcome but an exit 0 with an answer on stdout (node or shadow.cjs
 * missing after a move or an upgrade, a crash, a server that died during the
 * hand-off, nothing printed) becomes exit 2 with `refusal` on stderr, which
 * Claude Code and Gemini CLI alike read as "refuse this tool call, for this
 * reason". An agent runs hook commands with `sh -c` on POSIX; cmd.exe has no
 * such form, so there the command is the plain one.
 */
export function failClosedCommandLine(
  launch: Launch,
  root: string,
  words: readonly string[],
  refusal: string,
  platform: NodeJS.Platform = process.platform,
): string {
  const run = shadowCommandLine(launch, root, words, platform);
  if (platform === 'win32') return run;
  return `out=$(${run}) && [ -n "$out" ] && printf '%s\\n' "$out" || { echo ${shellWord(refusal, platform)} >&2; exit 2; }`;
}
