import type { CliIO } from '../io.js';

/**
 * Whether `shadow diff` colours its output, decided as git decides it for
 * `git diff` (color.c), with NO_COLOR (no-color.org) where git would look
 * at the terminal:
 * 1. `--color[=always|never|auto]` / `--no-color`;
 * 2. `color.diff` (or `diff.color`), else `color.ui`: `always`, `never`
 *    (or false), `auto` (or true, or unset);
 * 3. auto: not when `NO_COLOR` is set (and not empty) or `TERM=dumb`;
 *    on a terminal, yes, unless the output goes through a pager and
 *    `color.pager` is false.
 */
export type ColourWhen = 'always' | 'never' | 'auto';

/** A git colour setting (git_config_colorbool): undefined when unset. */
function colourSetting(value: string | undefined): ColourWhen | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === 'always' || v === 'never' || v === 'auto') return v;
  return ['false', 'no', 'off', '0', ''].includes(v) ? 'never' : 'auto';
}

type Terminal = Pick<CliIO, 'env' | 'isTTY'>;

const isFalse = (value: string | undefined): boolean => value !== undefined && colourSetting(value) === 'never';

/** True when the output is to be coloured. */
export function wantColour(
  flag: ColourWhen | undefined,
  config: (name: string) => string | undefined,
  io: Terminal,
  paged: boolean,
): boolean {
  const configured = colourSetting(config('color.diff') ?? config('diff.color')) ?? colourSetting(config('color.ui'));
  const when = flag ?? configured ?? 'auto';
  if (when !== 'auto') return when === 'always';
  if ((io.env.NO_COLOR ?? '') !== '' || io.env.TERM === 'dumb') return false;
  return io.isTTY && !(paged && isFalse(config('color.pager')));
}

/** git's diffstat colours: what is added green, what is removed red (the graph's runs, a binary file's sizes). */
export const statAdded = (s: string): string => (s ? `\x1b[32m${s}\x1b[m` : '');
export const statRemoved = (s: string): string => (s ? `\x1b[31m${s}\x1b[m` : '');

/** git's diffstat graph colours: the + run green, the - run red. */
export function colourStatGraph(plus: string, minus: string): string {
  return statAdded(plus) + statRemoved(minus);
}
