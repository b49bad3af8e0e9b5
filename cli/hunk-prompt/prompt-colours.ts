import type { CliIO } from '../io.js';
import { wantColour } from '../diff/diff-colour.js';

/**
 * The colours of the hunk prompt, as `git add -p` takes them
 * (add-interactive.c, init_add_i_state): the prompt bold blue, help and
 * errors bold red, "Split into" bold (`color.interactive.<slot>`), hunk
 * headers and edited lines in the diff's colours (`color.diff.<slot>`);
 * all of them only when `color.interactive` (else `color.ui`) says so, and
 * the diff itself coloured when `color.diff` (else `color.ui`) says so.
 */
export interface PromptColours {
  header: string;
  help: string;
  prompt: string;
  error: string;
  fraginfo: string;
  context: string;
  old: string;
  new: string;
  reset: string;
}

const NAMES = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];
const ATTRS: Record<string, number> = { bold: 1, dim: 2, italic: 3, ul: 4, blink: 5, reverse: 7, strike: 9 };
const NO_ATTRS: Record<string, number> = { bold: 22, dim: 22, italic: 23, ul: 24, blink: 25, reverse: 27, strike: 29 };

/** One colour word as SGR parameters for the foreground (add 10 for the background), or undefined. */
function colourWord(word: string, background: boolean): string | undefined {
  const base = background ? 10 : 0;
  if (word === 'normal') return '';
  if (word === 'default') return String(39 + base);
  const bright = word.startsWith('bright') ? word.slice(6) : undefined;
  const named = NAMES.indexOf(bright ?? word);
  if (named >= 0) return String((bright !== undefined ? 90 : 30) + base + named);
  if (/^\d+$/.test(word) && Number(word) <= 255) return `${38 + base};5;${word}`;
  const rgb = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(word);
  if (rgb) return `${38 + base};2;${parseInt(rgb[1]!, 16)};${parseInt(rgb[2]!, 16)};${parseInt(rgb[3]!, 16)}`;
  return undefined;
}

/** A git colour value (`bold blue`, `red white ul`, `#ff0000`) as its escape sequence; undefined when git would refuse it. */
export function parseGitColour(value: string): string | undefined {
  const attrs: number[] = [];
  const colours: string[] = [];
  for (const word of value.trim().toLowerCase().split(/\s+/).filter(Boolean)) {
    const no = /^no-?(.*)$/.exec(word);
    if (ATTRS[word] !== undefined) attrs.push(ATTRS[word]!);
    else if (no && NO_ATTRS[no[1]!] !== undefined) attrs.push(NO_ATTRS[no[1]!]!);
    else if (word === 'reset') return '\x1b[m';
    else {
      if (colours.length === 2) return undefined;
      const c = colourWord(word, colours.length === 1);
      if (c === undefined) return undefined;
      colours.push(c);
    }
  }
  // git writes the attributes in the order of their codes, whatever the order they were named in.
  const sorted = [...new Set(attrs)].sort((x, y) => x - y);
  const params = [...sorted.map(String), ...colours.filter((c) => c !== '')];
  return params.length === 0 ? '' : `\x1b[${params.join(';')}m`;
}

/** A git colour boolean (`always`, `never`, `auto`, true, false), undefined when unset. */
function colourBool(value: string | undefined): 'always' | 'never' | 'auto' | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === 'always' || v === 'never' || v === 'auto') return v;
  return ['false', 'no', 'off', '0', ''].includes(v) ? 'never' : 'auto';
}

type Config = (name: string) => string | undefined;
type Terminal = Pick<CliIO, 'env' | 'isTTY'>;

/** Whether the prompt is coloured: `color.interactive`, else `color.ui`, else on a terminal. */
function wantPromptColour(config: Config, io: Terminal): boolean {
  const when = colourBool(config('color.interactive')) ?? colourBool(config('color.ui')) ?? 'auto';
  if (when !== 'auto') return when === 'always';
  if ((io.env.NO_COLOR ?? '') !== '' || io.env.TERM === 'dumb') return false;
  return io.isTTY;
}

const NONE: PromptColours = {
  header: '',
  help: '',
  prompt: '',
  error: '',
  fraginfo: '',
  context: '',
  old: '',
  new: '',
  reset: '',
};

/** The prompt's colours (all empty when uncoloured) and whether the diff is shown in colour. */
export function promptColours(
  config: Config,
  io: Terminal,
  noColour: boolean,
): { colours: PromptColours; colourDiff: boolean } {
  if (noColour) return { colours: NONE, colourDiff: false };
  const colourDiff = wantColour(undefined, config, io, false);
  if (!wantPromptColour(config, io)) return { colours: NONE, colourDiff };
  const slot = (name: string, fallback: string): string => {
    const value = config(name);
    return (value === undefined ? undefined : parseGitColour(value)) ?? fallback;
  };
  return {
    colours: {
      header: slot('color.interactive.header', '\x1b[1m'),
      help: slot('color.interactive.help', '\x1b[1;31m'),
      prompt: slot('color.interactive.prompt', '\x1b[1;34m'),
      error: slot('color.interactive.error', '\x1b[1;31m'),
      fraginfo: slot('color.diff.frag', '\x1b[36m'),
      context: slot('color.diff.context', slot('color.diff.plain', '')),
      old: slot('color.diff.old', '\x1b[31m'),
      new: slot('color.diff.new', '\x1b[32m'),
      reset: '\x1b[m',
    },
    colourDiff,
  };
}
