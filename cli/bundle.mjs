/**
 * Builds the executables into dist/bin (or the directory given):
 * - shadow: the `shadow` command, a POSIX shell launcher (launcher.sh) that
 *   starts node on shadow.cjs without NODE_EXTRA_CA_CERTS' start-up cost;
 * - shadow.cjs: the executable, small: answers --version, hands a command to
 *   a running shadow process (handoff/), else loads
 * - shadow-cli.cjs: the whole CLI as one CommonJS file, which shadow.cjs
 *   compiles with V8's code cache (cli/code-cache.ts);
 * - shadow.mjs: the executable as earlier versions named it (agent configs
 *   written by them start it), which runs shadow.cjs;
 * - demo.mjs: `npm run demo`;
 * - pack-merge-worker.js: the worker thread a server merges packs on
 *   (src/pack-merge-thread.ts finds it beside the bundle).
 * It also builds the review page (src/http/page/: its HTML, one browser module
 * with diff2html and highlight.js, one style sheet) beside the compiled server
 * in dist/src/http/page/: the package serves it, no CDN.
 * Packages that only some commands need (the HTTP server, watching, YAML,
 * Codex's TOML) stay outside the bundle and load when those commands run.
 * The MCP SDK, which only `shadow mcp` loads, is bundled apart into
 * mcp-sdk.cjs: it and what it pulls (an HTTP stack of its own) are then needed
 * to build, not installed.
 * Every build has its own id in both bundles: a command is handed only to a
 * server of the same build.
 */
import { build } from 'esbuild';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const out = process.argv[2] ?? 'dist/bin';
rmSync(out, { recursive: true, force: true });
const buildId = randomBytes(8).toString('hex');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  minifySyntax: true,
  minifyWhitespace: true,
  logLevel: 'warning',
  external: ['isomorphic-git', 'fastify', 'yaml', 'chokidar', 'smol-toml'],
  // Small stand-ins for three of yargs' dependencies (see the files).
  alias: {
    'string-width': './cli/yargs-shims/string-width.ts',
    'escalade/sync': './cli/yargs-shims/find-up.ts',
    assert: './cli/yargs-shims/assert.ts',
  },
};
// The sources are ES modules: import.meta.url becomes the bundle's own URL
// (made when first read: a hand-off never reads it, and making it at every
// start cost about 0.4 ms), and import() of a package outside the bundle a
// require() (node >= 20.19 requires ES modules too), since a vm.Script can
// import() only through an experimental hook.
const commonjs = {
  format: 'cjs',
  define: { 'import.meta.url': '__importMeta.url', __SHADOW_BUILD__: JSON.stringify(buildId) },
  supported: { 'dynamic-import': false },
  banner: {
    js: "const __importMeta = { get url() { return (this.made ??= require('node:url').pathToFileURL(__filename).href); } };",
  },
};

// The modules of the MCP SDK that shadow imports, each as a whole (so no name it exports goes missing).
const MCP_SDK = ['server/index.js', 'server/stdio.js', 'types.js'].map((m) => `@modelcontextprotocol/sdk/${m}`);
const mcpSdkApart = {
  name: 'mcp-sdk-apart',
  setup(b) {
    b.onResolve({ filter: /^@modelcontextprotocol\/sdk\// }, (args) => {
      if (!MCP_SDK.includes(args.path)) throw new Error(`${args.path}: add it to MCP_SDK in cli/bundle.mjs`);
      return { path: './mcp-sdk.cjs', external: true };
    });
  },
};
// yargs' platform shim and cliui read `process.stdout.columns` (the shim when
// it loads, cliui each time yargs lays out a command's help, which it does
// after every command it runs), which makes node set up standard output as a
// stream: for a pipe a socket, with node's `net` and `stream` modules, in
// every command (cli/stdout-fd.ts writes a pipe or a file without them). The
// shim's width is read when asked (yargs asks only when no `.wrap()` was
// given; cli/run.ts always gives one), and cliui asks the descriptor first:
// a pipe, a file, a socket or /dev/null has no columns, so the answer is the
// same 80 without the stream. The build stops if either line changes.
const STDOUT_PATCHES = [
  {
    file: /yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/,
    from: "stdColumns: typeof process.stdout.columns !== 'undefined' ? process.stdout.columns : null",
    to: "get stdColumns() { return typeof process.stdout.columns !== 'undefined' ? process.stdout.columns : null; }",
  },
  {
    file: /cliui[\\/]build[\\/]lib[\\/]index\.js$/,
    from: "if (typeof process === 'object' && process.stdout && process.stdout.columns) {",
    to: "if (typeof process === 'object' && !stdoutHasNoColumns() && process.stdout && process.stdout.columns) {",
    prepend:
      "import { fstatSync as stdoutStat, statSync as nullStat } from 'node:fs';\n" +
      'function stdoutHasNoColumns() { try { const s = stdoutStat(1); return s.isFIFO() || s.isFile() || s.isSocket() || (s.isCharacterDevice() && s.rdev !== 0 && s.rdev === nullStat("/dev/null").rdev); } catch { return false; } }\n',
  },
];
// After a command's handler starts, yargs lays out that command's whole help
// text and keeps it (`cacheHelpMessage`), so that a handler calling
// `showHelp()` later shows the command's help rather than the top level's.
// shadow's commands never ask yargs for help (help-command.ts lays it out
// from the command table), so the layout, about 0.4 ms a call in a warm
// server and more in a new process, is dropped; help that yargs does show
// (none that shadow asks for) would be laid out when shown, as yargs does
// for every command that has no handler.
const PARSE_PATCHES = [
  {
    file: /yargs[\\/]build[\\/]lib[\\/]command\.js$/,
    from: `            if (!isDefaultCommand) {
                yargs.getInternalMethods().getUsageInstance().cacheHelpMessage();
            }
`,
    to: '',
  },
];
const sourcePatches = {
  name: 'source-patches',
  setup(b) {
    for (const p of [...STDOUT_PATCHES, ...PARSE_PATCHES]) {
      b.onLoad({ filter: p.file }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes(p.from)) throw new Error(`${args.path} changed; update its patch in cli/bundle.mjs`);
        return { contents: (p.prepend ?? '') + text.replace(p.from, p.to), loader: 'js' };
      });
    }
  },
};
await build({ ...common, ...commonjs, entryPoints: ['cli/main.ts'], outfile: `${out}/shadow.cjs` });
await build({
  ...common,
  ...commonjs,
  plugins: [mcpSdkApart, sourcePatches],
  entryPoints: ['cli/run.ts'],
  outfile: `${out}/shadow-cli.cjs`,
});
await build({
  ...common,
  ...commonjs,
  stdin: {
    contents: MCP_SDK.map((m) => `export * from '${m}';`).join('\n'),
    resolveDir: '.',
    sourcefile: 'mcp-sdk.js',
  },
  outfile: `${out}/mcp-sdk.cjs`,
});
await build({ ...common, entryPoints: ['cli/demo.ts'], format: 'esm', outfile: `${out}/demo.mjs` });
await build({
  ...common,
  entryPoints: ['src/pack-merge-worker.ts'],
  format: 'esm',
  outfile: `${out}/pack-merge-worker.js`,
});
writeFileSync(
  `${out}/shadow.mjs`,
  "#!/usr/bin/env node\n// The executable as earlier versions named it: agent configs they wrote start it.\nimport './shadow.cjs';\n",
);
copyFileSync('cli/launcher.sh', `${out}/shadow`);
for (const f of ['shadow', 'shadow.cjs', 'shadow.mjs']) chmodSync(`${out}/${f}`, 0o755);
// The review page: its modules with diff2html as one browser module, highlight.js as another, its
// style sheets (its own, diff2html's, highlight.js's themes) as one file, and its HTML.
rmSync('dist/src/http/page', { recursive: true, force: true });
const page = { bundle: true, minify: true, logLevel: 'warning', outdir: 'dist/src/http/page', legalComments: 'linked' };
const browser = { format: 'esm', platform: 'browser', target: ['chrome110', 'firefox110', 'safari16'] };
// highlight.js's grammars are a module of their own, which the page loads beside its first requests.
await build({ ...page, ...browser, entryPoints: ['src/http/page/app.js'], external: ['/ui/highlighter.js'] });
await build({ ...page, ...browser, entryPoints: ['src/http/page/highlighter.js'] });
await build({ ...page, entryPoints: ['src/http/page/app.css'] });
copyFileSync('src/http/page/index.html', 'dist/src/http/page/index.html');
