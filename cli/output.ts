import type { ShadowErrorJSON } from '../src/index.js';
import type { CliIO } from './io.js';

/** Prints a command's result: human text, or exactly one JSON document with `--json`. */
export class Output {
  constructor(
    readonly io: CliIO,
    readonly json: boolean,
  ) {}

  /** Print the JSON document (in --json mode) or the text. */
  result(doc: unknown, text: () => string): void {
    if (this.json) this.io.stdout(`${JSON.stringify(doc, null, 2)}\n`);
    else {
      const t = text();
      if (t) this.io.stdout(t.endsWith('\n') ? t : `${t}\n`);
    }
  }

  /** Raw bytes to stdout (`shadow cat`). */
  raw(bytes: Uint8Array): void {
    this.io.stdout(bytes);
  }

  /** A progress or notice line for people; silent in --json mode. */
  note(s: string): void {
    if (!this.json) this.io.stderr(`${s}\n`);
  }

  /** An error: `{error: {...}}` on stdout in --json mode, `error:`/`hint:` lines on stderr otherwise. */
  error(e: ShadowErrorJSON): void {
    if (this.json) {
      this.io.stdout(`${JSON.stringify({ error: e }, null, 2)}\n`);
      return;
    }
    let s = `error: ${e.message}\n`;
    if (e.hint) s += `hint: ${e.hint}\n`;
    this.io.stderr(s);
  }
}

/** Shorten an object id for people. */
export function short(oid: string | null | undefined): string {
  return oid ? oid.slice(0, 12) : '-';
}

/** `2026-11-22T10:00:00.000Z` → `2026-11-22 10:00`. */
export function shortTime(iso: string): string {
  return iso.replace('T', ' ').slice(0, 16);
}

/** Pad a column. */
export function pad(s: string, width: number): string {
  return s.length >= width ? s : s + ' '.repeat(width - s.length);
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
