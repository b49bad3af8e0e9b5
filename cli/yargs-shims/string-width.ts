import stripAnsi from 'strip-ansi';
import { eastAsianWidth } from 'get-east-asian-width';

/**
 * The columns a string takes in a terminal, for yargs' help layout (the CLI
 * bundle puts this module in place of the `string-width` package: esbuild
 * `alias` in cli/bundle.mjs) and `shadow diff --stat`'s names
 * (cli/diff/stat-layout.ts).
 *
 * Written here because `string-width` is too slow to load for a command
 * line that runs once per batch: at import it compiles `/^\p{RGI_Emoji}$/v`
 * (19 ms) and starts an `Intl.Segmenter` (14 ms), about a sixth of a
 * one-shot `shadow batch`, for help text that is almost never shown. This
 * one counts code points: none for control characters, lone surrogates,
 * combining and format marks, two for East Asian wide and fullwidth
 * characters and for emoji shown as emoji, one otherwise. It differs from `string-width` only
 * on grapheme clusters (a ZWJ emoji sequence counts each emoji), which
 * shadow's help text does not hold.
 */

// Made on first use: a Unicode property class costs time to build, and
// most runs never lay out a line that is not plain ASCII.
let ZERO_WIDTH: RegExp | undefined;
let EMOJI: RegExp | undefined;

export interface StringWidthOptions {
  /** Count East Asian ambiguous characters as narrow (the default) or wide. */
  ambiguousIsNarrow?: boolean;
  /** Count ANSI escape codes as characters instead of stripping them. */
  countAnsiEscapeCodes?: boolean;
}

export default function stringWidth(text: string, options: StringWidthOptions = {}): number {
  if (typeof text !== 'string' || text.length === 0) return 0;
  const s = options.countAnsiEscapeCodes ? text : stripAnsi(text);
  let printableAscii = true;
  for (let i = 0; i < s.length && printableAscii; i++) {
    const c = s.charCodeAt(i);
    printableAscii = c >= 0x20 && c < 0x7f;
  }
  if (printableAscii) return s.length;
  const ambiguousAsWide = options.ambiguousIsNarrow === false;
  ZERO_WIDTH ??= /[\p{Cc}\p{Cf}\p{Cs}\p{Mn}\p{Me}]/u;
  EMOJI ??= /\p{Emoji_Presentation}/u;
  let width = 0;
  for (const ch of s) {
    if (ZERO_WIDTH.test(ch)) continue;
    width += EMOJI.test(ch) ? 2 : eastAsianWidth(ch.codePointAt(0)!, { ambiguousAsWide });
  }
  return width;
}
