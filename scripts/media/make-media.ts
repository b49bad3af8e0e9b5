/**
 * `npm run docs:media`: makes docs/media/ again from the built shadow.
 * - first-session.cast: a first session on a demo project it makes,
 *   recorded in a real pseudo-terminal (asciinema v2; needs python3);
 * - first-session.svg: that recording animated, for the README (svg-term);
 * - drafts.png, draft-review.png, approve-apply.png: the review page in
 *   Chromium (needs Chromium, as the browser tests do);
 * - media.json: the commands, terminal and shadow they were made with.
 * `--recording` or `--screenshots` makes only that part (media.json keeps
 * the other's entry). Each part runs in a fresh temporary directory,
 * removed afterwards.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandWords } from '../../cli/command-words.js';
import { makeDemoProject, type DemoProject } from './demo-project.js';
import { CAST, MADE_BY, MANIFEST, SVG, helpDigest, readManifest, type MediaManifest } from './manifest.js';
import { recordSession } from './record-session.js';
import { svgRenderer } from './render-svg.js';
import { SCREENSHOTS, takeScreenshots } from './screenshots.js';
import { TERMINAL } from './session.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(ROOT, 'dist/bin');
const OUT = join(ROOT, 'docs/media');

/** Run `make` on a demo project in a temporary directory of its own, removed afterwards. */
async function onDemoProject<T>(make: (project: DemoProject) => Promise<T>): Promise<T> {
  const root = mkdtempSync(join(tmpdir(), 'shadow-media-'));
  try {
    return await make(makeDemoProject(root, BIN));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The help text of each shadow command of `commands`, from the built CLI. */
function helpTexts(commands: ReadonlyArray<{ argv: readonly string[] }>): string[] {
  return commands
    .filter((c) => c.argv[0] === 'shadow')
    .map((c) => {
      const words = commandWords(c.argv.slice(1));
      const r = spawnSync(process.execPath, [join(BIN, 'shadow.cjs'), 'help', ...words], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`shadow help ${words.join(' ')} exited ${r.status}: ${r.stderr}`);
      return r.stdout;
    });
}

async function main(args: string[]): Promise<void> {
  if (!existsSync(join(BIN, 'shadow.cjs'))) throw new Error('build shadow first: npm run build');
  mkdirSync(OUT, { recursive: true });
  const both = !args.includes('--recording') && !args.includes('--screenshots');
  const before: MediaManifest | undefined = existsSync(join(OUT, MANIFEST)) ? readManifest(OUT) : undefined;
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  let recording = before?.recording;
  let helpSha = before?.shadow.help_sha256 ?? '';
  if (both || args.includes('--recording')) {
    const toSvg = svgRenderer();
    const made = await onDemoProject(recordSession);
    const svg = toSvg(made.cast);
    writeFileSync(join(OUT, CAST), made.cast);
    writeFileSync(join(OUT, SVG), svg);
    recording = { cast: CAST, svg: SVG, seconds: made.duration, commands: made.commands };
    helpSha = helpDigest(helpTexts(made.commands));
    process.stdout.write(`recorded ${made.commands.length} commands, ${made.duration} s: docs/media/${CAST}, ${SVG}\n`);
  }
  if (both || args.includes('--screenshots')) {
    await onDemoProject((project) => takeScreenshots(project, OUT));
    process.stdout.write(`screenshots: ${SCREENSHOTS.map((s) => `docs/media/${s}`).join(', ')}\n`);
  }
  if (!recording) throw new Error('no recording yet: run npm run docs:media without --screenshots first');
  const manifest: MediaManifest = {
    made_by: MADE_BY,
    shadow: { version, help_sha256: helpSha },
    terminal: { ...TERMINAL },
    recording,
    screenshots: [...SCREENSHOTS],
  };
  writeFileSync(join(OUT, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`docs:media: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
