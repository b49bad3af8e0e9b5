/**
 * The paths whose change needs a `protected_path` approval even where
 * nobody configured any: files that run code or hand out credentials
 * beyond the change itself, which an agent should not alter unseen.
 *
 * - CI configuration: it runs with the repository's secrets and can publish.
 * - Keys and certificates, env files: credentials themselves. Templates of
 *   env files (`.env.example`, `.sample`, `.template`, `.dist`) are left out:
 *   agents maintain them, they hold no value by convention, and the secret
 *   guard still reads what they add.
 * - Package managers' registry and credential files: they decide where
 *   dependencies come from and carry tokens (`.npmrc`, `.pypirc`, `.netrc`).
 * - What git or a hook manager runs or fetches on the user's machine:
 *   `.gitmodules` (a submodule's URL is fetched by `git submodule update`),
 *   `.gitattributes` (it turns on filter drivers and rewrites line endings
 *   across the tree), hook directories and hook manager configuration.
 *   `.gitignore` is not: agents edit it routinely, and an env file it stops
 *   ignoring is protected by name anyway.
 * - `CODEOWNERS`: it decides who must review.
 * - What an agent may do and what an editor runs on open: the MCP server
 *   list (`.mcp.json`, where `--allow-apply` would hand an agent the apply),
 *   the agents' own settings (`.claude/`, `.codex/`, `.gemini/`, `.cursor/`,
 *   `.cursorrules`: allowed tools, hooks), their instruction files
 *   (`AGENTS.md`, `CLAUDE.md`, `CLAUDE.local.md`, `GEMINI.md`), VS Code's
 *   tasks, launch and workspace settings (tasks can run on folder open) and
 *   `.envrc` (direnv runs it on `cd`), all at any depth: agents read nested
 *   instruction files, and a folder opened on its own has its own settings.
 *   An agent that could rewrite these would decide its own reach.
 *
 * A glob without a slash matches at any depth, as in `.gitignore`. Globs
 * match whatever the case (`.Claude/Settings.json` is `.claude/settings.json`
 * on the file systems of macOS and Windows), so a protected path cannot be
 * reached by changing its case; a `!` exception frees only the exact case.
 */
export const DEFAULT_PROTECT: readonly string[] = [
  // CI
  '.github/workflows/**',
  '.github/actions/**',
  '.gitlab-ci.yml',
  '.gitlab/ci/**',
  '.circleci/**',
  'Jenkinsfile',
  'azure-pipelines.yml',
  '.azure-pipelines/**',
  '.buildkite/**',
  '.travis.yml',
  'bitbucket-pipelines.yml',
  '.drone.yml',
  '.woodpecker.yml',
  '.woodpecker/**',
  'appveyor.yml',
  '.appveyor.yml',
  'CODEOWNERS',
  // keys and certificates
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  // env files, but their templates
  '.env',
  '.env.*',
  '!.env.example',
  '!.env.sample',
  '!.env.template',
  '!.env.dist',
  // registries and credentials of package managers
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pnpmfile.cjs',
  'bunfig.toml',
  '.pypirc',
  'pip.conf',
  '.netrc',
  '.gemrc',
  '.cargo/config',
  '.cargo/config.toml',
  'nuget.config',
  'NuGet.Config',
  // what git and hook managers run or fetch
  '.gitmodules',
  '.gitattributes',
  '.githooks/**',
  '.husky/**',
  '.pre-commit-config.yaml',
  'lefthook.yml',
  '.lefthook.yml',
  // what decides an agent's reach, and what editors run on open
  '.mcp.json',
  '**/.claude/**',
  '**/.codex/**',
  '**/.gemini/**',
  '**/.cursor/**',
  '.cursorrules',
  'AGENTS.md',
  'CLAUDE.md',
  'CLAUDE.local.md',
  'GEMINI.md',
  '**/.vscode/tasks.json',
  '**/.vscode/settings.json',
  '**/.vscode/launch.json',
  '.envrc',
];

/**
 * The globs of the protection policy: the defaults (unless `defaults` is
 * false), then the configured ones. A glob starting with `!` is an
 * exception: a path it matches is not protected, whichever glob matched it
 * (so `!.github/workflows/docs.yml` frees one file of the defaults).
 */
export function protectGlobs(configured: readonly string[], defaults: boolean): string[] {
  return defaults ? [...DEFAULT_PROTECT, ...configured] : [...configured];
}

/** Split a policy's globs into what protects and what frees, each as picomatch should read it. */
export function splitProtectGlobs(globs: readonly string[]): { protect: string[]; except: string[] } {
  const anyDepth = (g: string): string => (g.includes('/') ? g : `**/${g}`);
  const protect: string[] = [];
  const except: string[] = [];
  for (const g of globs) {
    if (g.startsWith('!')) {
      if (g.length > 1) except.push(anyDepth(g.slice(1)));
    } else protect.push(anyDepth(g));
  }
  return { protect, except };
}
