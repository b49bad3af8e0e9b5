import { spawn } from 'node:child_process';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The editor git would start (editor.c, git_editor): `GIT_EDITOR`, else
 * `core.editor`, else `VISUAL` (not on a dumb terminal), else `EDITOR`,
 * else vi; undefined on a dumb terminal with none of them set.
 */
export function chooseEditor(env: Env, config: (name: string) => string | undefined): string | undefined {
  const dumb = env.TERM === undefined || env.TERM === 'dumb';
  const editor = env.GIT_EDITOR ?? config('core.editor') ?? (dumb ? undefined : env.VISUAL) ?? env.EDITOR;
  if (editor !== undefined) return editor;
  return dumb ? undefined : 'vi';
}

/**
 * Run `editor` on `path` through the shell, as git runs it (`sh -c
 * '<editor> "$@"'`), on the terminal, with git's line saying it waits on a
 * terminal's stderr (erased once the editor is done). Resolves to whether
 * it exited 0; `:` is an editor that changes nothing.
 */
export function runEditor(
  editor: string,
  path: string,
  options: { env: Env; cwd: string; stderrIsTTY: boolean; stderr: (s: string) => void },
): Promise<boolean> {
  if (editor === ':') return Promise.resolve(true);
  const dumb = options.env.TERM === undefined || options.env.TERM === 'dumb';
  const hint = options.stderrIsTTY && options.env.GIT_ADVICE !== '0';
  if (hint) options.stderr(`hint: Waiting for your editor to close the file...${dumb ? '\n' : ' '}`);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.env)) if (v !== undefined) env[k] = v;
  return new Promise((done) => {
    const child = spawn('sh', ['-c', `${editor} "$@"`, editor, path], { cwd: options.cwd, env, stdio: 'inherit' });
    child.on('error', () => done(false));
    child.on('close', (code) => {
      if (hint && !dumb) options.stderr('\r\x1b[K');
      done(code === 0);
    });
  });
}
