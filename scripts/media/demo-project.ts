/**
 * The demo project the media are made on: a fresh git repository with one
 * commit of session.ts's files, the agent's batch beside it, and an
 * environment of its own (home, git identity, time zone, terminal, colours)
 * so that two runs see the same thing. The built `shadow` is on its PATH.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AGENT_BATCH_FILE, PROJECT, PROJECT_FILES, agentBatchText } from './session.js';

export interface DemoProject {
  /** The repository's working tree. */
  dir: string;
  /** The environment every command runs in. */
  env: NodeJS.ProcessEnv;
}

/** A fixed date for the initial commit, so that its id is the same on every run. */
const EPOCH = '2026-01-01T09:00:00Z';

/** Make the demo project under `root` (an empty directory), with `binDir` (the built dist/bin) first on the PATH. */
export function makeDemoProject(root: string, binDir: string): DemoProject {
  const home = join(root, 'home');
  const dir = join(root, PROJECT);
  mkdirSync(home, { recursive: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n');
  const env: NodeJS.ProcessEnv = {
    PATH: `${binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    TZ: 'UTC',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    // A recording has no one to page for: output goes straight to the terminal, in colour.
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    FORCE_COLOR: '1',
  };
  const git = (...args: string[]): void => {
    const r = spawnSync('git', args, {
      cwd: dir,
      env: { ...env, GIT_AUTHOR_DATE: EPOCH, GIT_COMMITTER_DATE: EPOCH },
      encoding: 'utf8',
    });
    if (r.error) throw new Error(`the demo project needs git on the PATH: ${r.error.message}`);
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  };
  git('init', '-q', '-b', 'main');
  for (const [path, text] of Object.entries(PROJECT_FILES)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git('add', '.');
  git('commit', '-q', '-m', 'initial commit');
  writeFileSync(join(dir, AGENT_BATCH_FILE), agentBatchText());
  return { dir, env };
}
