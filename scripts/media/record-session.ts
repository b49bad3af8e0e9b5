/**
 * Records session.ts's first session as an asciinema v2 recording: a JSON
 * header line, then one `[seconds, "o", text]` line per piece of output.
 * Each command's output comes from a real pseudo-terminal of the
 * recording's size, at the times it came (to the hundredth of a second);
 * the prompt, the comments and the typing are written at a fixed pace, so
 * that two runs differ only where the commands' output or speed does.
 */
import { spawnSync } from 'node:child_process';
import type { DemoProject } from './demo-project.js';
import { runInPty } from './pty-run.js';
import { APPROVAL, PROJECT, SESSION, TERMINAL, typed, type Step } from './session.js';

/** Seconds between two typed characters. */
const KEYSTROKE = 0.03;
const PROMPT = `\x1b[1;34m${PROJECT}\x1b[0m $ `;

export interface RecordedCommand {
  typed: string;
  argv: string[];
}

export interface Recording {
  /** The .cast file's text. */
  cast: string;
  /** Each command, in order: as typed, and its words. */
  commands: RecordedCommand[];
  /** Seconds from the first event to the last. */
  duration: number;
}

/** The asciinema v2 header: no timestamp, so that a new recording of the same session has the same first line. */
function header(): string {
  return JSON.stringify({
    version: 2,
    width: TERMINAL.cols,
    height: TERMINAL.rows,
    title: 'shadow: a first session',
    env: { SHELL: '/bin/sh', TERM: 'xterm-256color' },
  });
}

class CastWriter {
  private readonly lines: string[] = [header()];
  time = 0;

  out(text: string, at = this.time): void {
    this.time = at;
    this.lines.push(JSON.stringify([Math.round(at * 100) / 100, 'o', text]));
  }

  wait(seconds: number): void {
    this.time += seconds;
  }

  type(text: string): void {
    for (const ch of text) {
      this.wait(KEYSTROKE);
      this.out(ch);
    }
  }

  text(): string {
    return `${this.lines.join('\n')}\n`;
  }
}

/** The id of the approval the draft waits for (what `shadow review` lists as pending). */
function pendingApproval(project: DemoProject): string {
  const r = spawnSync('shadow', ['review', '--stat', '--json'], {
    cwd: project.dir,
    env: project.env,
    encoding: 'utf8',
  });
  const approvals = (JSON.parse(r.stdout) as { approvals?: Array<{ id: string; status: string }> }).approvals ?? [];
  const pending = approvals.find((a) => a.status === 'pending');
  if (!pending) throw new Error(`the demo draft asks for no approval: ${r.stdout}${r.stderr}`);
  return pending.id;
}

const wordsOf = (step: Step, project: DemoProject): string[] =>
  step.argv.map((w) => (w === APPROVAL ? pendingApproval(project) : w));

/** Run SESSION in `project`, recording the terminal. Fails if a command exits otherwise than expected. */
export async function recordSession(project: DemoProject): Promise<Recording> {
  const cast = new CastWriter();
  const commands: RecordedCommand[] = [];
  cast.out(PROMPT, 0.5);
  for (const step of SESSION) {
    if (step.say) {
      cast.wait(0.3);
      cast.out(`\x1b[2m# ${step.say}\x1b[0m\r\n${PROMPT}`);
    }
    cast.wait(0.4);
    const argv = wordsOf(step, project);
    const line = typed(argv);
    commands.push({ typed: line, argv });
    cast.type(line);
    cast.wait(0.2);
    cast.out('\r\n');
    const start = performance.now();
    const base = cast.time;
    const status = await runInPty(
      argv,
      { cwd: project.dir, env: { ...project.env, ...step.env }, ...TERMINAL },
      (text) => cast.out(text, base + (performance.now() - start) / 1000),
    );
    const expected = step.exit ?? 0;
    if (status !== expected) throw new Error(`\`${line}\` exited ${status}, not ${expected}`);
    cast.wait(step.pause);
    cast.out(PROMPT);
  }
  cast.wait(1.5);
  cast.out('');
  return { cast: cast.text(), commands, duration: Math.round(cast.time * 100) / 100 };
}
