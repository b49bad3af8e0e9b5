import type { Readable } from 'node:stream';

/** A terminal's input stream, which can be put in raw mode for single keys. */
type MaybeTerminal = Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

/** Ctrl-C as a key read in raw mode. */
export const INTERRUPT = '\x03';

/**
 * The person's answers, read as git reads them: a line at a time
 * (git_read_line_interactively), or with `interactive.singleKey` on a
 * terminal a single key without Enter (read_key_without_echo; an escape
 * sequence is one key). Undefined at the end of the input.
 */
export class AnswerReader {
  private buffer = '';
  private ended = false;
  private wake: (() => void) | undefined;
  private readonly onData = (chunk: Buffer | string): void => {
    this.buffer += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    this.wake?.();
  };
  private readonly onEnd = (): void => {
    this.ended = true;
    this.wake?.();
  };

  constructor(
    private readonly input: MaybeTerminal,
    readonly singleKey: boolean,
  ) {
    this.singleKey = singleKey && input.isTTY === true && typeof input.setRawMode === 'function';
  }

  private listening = false;

  private listen(): void {
    if (this.listening) return;
    this.listening = true;
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onEnd);
    this.input.resume();
  }

  private async more(): Promise<void> {
    this.listen();
    await new Promise<void>((done) => {
      this.wake = done;
    });
    this.wake = undefined;
  }

  /** A line, its line ending dropped. */
  async line(): Promise<string | undefined> {
    for (;;) {
      const nl = this.buffer.indexOf('\n');
      if (nl >= 0) {
        const line = this.buffer.slice(0, nl).replace(/\r$/, '');
        this.buffer = this.buffer.slice(nl + 1);
        return line;
      }
      if (this.ended) {
        if (this.buffer === '') return undefined;
        const rest = this.buffer;
        this.buffer = '';
        return rest;
      }
      await this.more();
    }
  }

  /**
   * In single-key mode, the terminal in raw mode before the question is
   * printed: a key typed as soon as it shows is then neither echoed by the
   * terminal nor held for a line.
   */
  ready(): void {
    if (this.singleKey) this.input.setRawMode!(true);
  }

  /** An answer to a prompt: a key in single-key mode (echoed by `echo`), else a line. */
  async answer(echo: (s: string) => void): Promise<string | undefined> {
    if (!this.singleKey) return this.line();
    this.input.setRawMode!(true);
    try {
      while (this.buffer === '' && !this.ended) await this.more();
    } finally {
      this.input.setRawMode!(false);
    }
    if (this.buffer === '') {
      echo('\n');
      return undefined;
    }
    const key = this.buffer.startsWith('\x1b') ? this.buffer : [...this.buffer][0]!;
    this.buffer = this.buffer.slice(key.length);
    echo(`${key === INTERRUPT ? '' : key}\n`);
    return key;
  }

  /** Stop reading (while an editor has the terminal, and at the end). */
  pause(): void {
    if (!this.listening) return;
    this.listening = false;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onEnd);
    this.input.pause();
  }
}
