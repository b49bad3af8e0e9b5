/**
 * docs/media (the README's terminal recording and the review page's
 * screenshots, made by `npm run docs:media`) stays true without being made
 * again here: the README shows files that are there, the recording holds
 * the commands scripts/media/session.ts types, in a terminal of its size,
 * and every shadow command in it is one the current CLI has and parses.
 * A test that fails here says to run `npm run docs:media`. The one part of
 * the script run here is its pseudo-terminal (python3's pty), which is quick.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { commandWords } from '../cli/command-words.js';
import { EXIT } from '../cli/exit-status.js';
import { run } from '../cli/run.js';
import { MANIFEST, readManifest } from '../scripts/media/manifest.js';
import { runInPty } from '../scripts/media/pty-run.js';
import { AGENT_BATCH, APPROVAL, SESSION, TERMINAL, agentBatchText, typed } from '../scripts/media/session.js';
import { links } from './helpers/markdown-doc.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MEDIA = join(ROOT, 'docs/media');
const REMAKE = 'run `npm run docs:media` (docs/development.md) and commit docs/media';
/** What docs/media may weigh in all: the README loads it. */
const MAX_BYTES = 450_000;
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const manifest = readManifest(MEDIA);

type CastEvent = [number, 'o', string];
function readCast(): { header: { version: number; width: number; height: number }; events: CastEvent[] } {
  const [first, ...rest] = readFileSync(join(MEDIA, manifest.recording.cast), 'utf8').trimEnd().split('\n');
  return { header: JSON.parse(first!), events: rest.map((l) => JSON.parse(l) as CastEvent) };
}

async function shadow(args: string[], cwd: string): Promise<{ status: number; out: string }> {
  let out = '';
  const status = await run(args, {
    cwd,
    env: {},
    stdout: (s) => (out += typeof s === 'string' ? s : Buffer.from(s).toString('utf8')),
    stderr: (s) => (out += s),
    stdin: Readable.from([]),
    isTTY: false,
  });
  return { status, out };
}

const Media = suite('docs/media');

Media(
  'the README shows the recording and a screenshot from docs/media, and every file there is one media.json names',
  () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const shown = links(readme)
      .map((l) => l.target)
      .filter((t) => t.startsWith('docs/media/'));
    assert.ok(
      shown.includes(`docs/media/${manifest.recording.svg}`),
      `the README shows docs/media/${manifest.recording.svg}`,
    );
    assert.ok(
      shown.some((t) => manifest.screenshots.some((s) => t === `docs/media/${s}`)),
      'the README shows a screenshot',
    );
    const named = [MANIFEST, manifest.recording.cast, manifest.recording.svg, ...manifest.screenshots].sort();
    assert.equal(readdirSync(MEDIA).sort(), named, `docs/media holds what media.json names: ${REMAKE}`);
    for (const t of shown)
      assert.ok(named.includes(t.slice('docs/media/'.length)), `${t} is one of docs/media's files`);
    assert.match(
      readFileSync(join(MEDIA, manifest.recording.svg), 'utf8'),
      /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/,
    );
    assert.match(readFileSync(join(MEDIA, manifest.recording.svg), 'utf8'), /@keyframes/, 'the SVG is animated');
    for (const s of manifest.screenshots)
      assert.equal([...readFileSync(join(MEDIA, s)).subarray(0, 8)], PNG, `${s} is a PNG`);
    const bytes = named.reduce((n, f) => n + statSync(join(MEDIA, f)).size, 0);
    assert.ok(bytes <= MAX_BYTES, `docs/media weighs ${bytes} bytes, more than ${MAX_BYTES}`);
  },
);

Media('the recording holds the commands scripts/media/session.ts types, in order, in a terminal of its size', () => {
  const { header, events } = readCast();
  assert.equal(
    { version: header.version, width: header.width, height: header.height },
    { version: 2, width: TERMINAL.cols, height: TERMINAL.rows },
  );
  assert.equal(manifest.terminal, { ...TERMINAL });
  const recorded = manifest.recording.commands;
  assert.is(recorded.length, SESSION.length, `media.json lists as many commands as session.ts: ${REMAKE}`);
  SESSION.forEach((step, i) => {
    const pieces = typed(step.argv)
      .split(APPROVAL)
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    const pattern = new RegExp(`^${pieces.join('ap-[0-9a-f]+')}$`);
    assert.match(recorded[i]!.typed, pattern, `command ${i + 1} is \`${typed(step.argv)}\`: ${REMAKE}`);
    assert.is(recorded[i]!.typed, typed(recorded[i]!.argv));
  });
  // Each character typed is an event of its own, so the screen's text holds each command whole, in order.
  const screen = events.map((e) => e[2]).join('');
  let from = 0;
  for (const c of recorded) {
    const at = screen.indexOf(c.typed, from);
    assert.ok(at >= 0, `the recording types \`${c.typed}\` after the commands before it`);
    from = at + c.typed.length;
  }
  const times = events.map((e) => e[0]);
  assert.equal(
    times.slice(1).filter((t, i) => t < times[i]!),
    [],
    'times never go back',
  );
  assert.is(times.at(-1), manifest.recording.seconds);
  assert.ok(manifest.recording.seconds >= 15 && manifest.recording.seconds <= 45, 'a short recording');
});

Media('every shadow command of the recording is one the current CLI has, with words and options it takes', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'shadow-media-'));
  try {
    const commands = manifest.recording.commands.filter((c) => c.argv[0] === 'shadow');
    assert.ok(commands.length >= 5);
    for (const { typed: line, argv } of commands) {
      const args = argv.slice(1);
      const help = await shadow(['help', ...commandWords(args)], cwd);
      assert.is(help.status, EXIT.ok, `\`shadow help\` knows \`${line}\` (${help.out.trim()}): ${REMAKE}`);
      // Outside a repository every command stops once its words are parsed: anything but a usage error means they were.
      const r = await shadow([...args, '--json'], cwd);
      assert.is.not(r.status, EXIT.usage, `\`${line}\` parses (${r.out.trim()}): ${REMAKE}`);
      assert.is.not(JSON.parse(r.out).error?.code, 'USAGE');
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

Media("the agent's batch file shows whole in the recording's terminal, and is the batch session.ts holds", () => {
  const lines = agentBatchText().trimEnd().split('\n');
  assert.equal(
    lines.filter((l) => l.length > TERMINAL.cols),
    [],
  );
  assert.equal(JSON.parse(agentBatchText()), AGENT_BATCH);
});

Media('a command runs on a pseudo-terminal of the recording’s size, its output as a terminal shows it', async () => {
  let out = '';
  const status = await runInPty(
    ['sh', '-c', 'stty size; test -t 0 && test -t 1 && echo on a terminal; exit 7'],
    { cwd: ROOT, env: { PATH: process.env.PATH }, ...TERMINAL },
    (text) => (out += text),
  );
  assert.is(out, `${TERMINAL.rows} ${TERMINAL.cols}\r\non a terminal\r\n`);
  assert.is(status, 7);
});

Media.run();
