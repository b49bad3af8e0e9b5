/**
 * Builds the executables into dist/bin (or the directory given):
 * - shadow.mjs: the `shadow` command, small: answers --version, else loads
 * - shadow-cli.cjs: the whole CLI as one CommonJS file, which shadow.mjs
 *   compiles with V8's code cache (cli/code-cache.ts);
 * - demo.mjs: `npm run demo`.
 * Packages that only some commands need (the HTTP server, MCP, watching,
 * YAML, Codex's TOML) stay outside the bundle and load when those commands run.
 */
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';

const out = process.argv[2] ?? 'dist/bin';
rmSync(out, { recursive: true, force: true });

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  minifySyntax: true,
  minifyWhitespace: true,
  logLevel: 'warning',
  external: ['isomorphic-git', 'fastify', 'yaml', '@modelcontextprotocol/sdk', 'chokidar', 'smol-toml'],
  // Small stand-ins for two of yargs' dependencies (see the files).
  alias: { 'string-width': './cli/string-width.ts', 'escalade/sync': './cli/find-up.ts' },
};

await build({ ...common, entryPoints: ['cli/main.ts'], format: 'esm', outfile: `${out}/shadow.mjs` });
await build({
  ...common,
  entryPoints: ['cli/run.ts'],
  format: 'cjs',
  outfile: `${out}/shadow-cli.cjs`,
  // The sources are ES modules: import.meta.url becomes the bundle's own URL,
  // and import() of a package outside the bundle a require() (node >= 20.19
  // requires ES modules too), since a vm.Script can import() only through
  // an experimental hook.
  define: { 'import.meta.url': '__importMetaUrl' },
  supported: { 'dynamic-import': false },
  banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
});
await build({ ...common, entryPoints: ['cli/demo.ts'], format: 'esm', outfile: `${out}/demo.mjs` });
chmodSync(`${out}/shadow.mjs`, 0o755);
