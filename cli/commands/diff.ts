import { isShadowError, ShadowError, type DiffOptions, type DiffResult, type Shadow } from '../../src/index.js';
import type { CommandContext } from '../command-context.js';
import { EXIT } from '../exit-status.js';
import { filterStatuses, parseDiffWords, type DiffWords, type StatWords } from '../diff/diff-words.js';
import { wantColour } from '../diff/diff-colour.js';
import { nameOnlyText, nameStatusText, numstatText, shortstatText, statText } from '../diff/diff-text.js';
import type { StatOptions } from '../diff/stat-layout.js';
import { choosePager, page } from '../diff/pager.js';

/**
 * `shadow diff [<range>] [<git diff options>] [-- <pathspec>…]`: as `git
 * diff` shows a change, coloured and paged on a terminal. The options git
 * diff takes that shadow does (-M, --stat and its kin, --name-status, -U,
 * --diff-filter, -z, -R, the prefixes, --exit-code, --quiet) are read by
 * diff-words.ts and listed in diff-help.ts.
 */
export async function diff(ctx: CommandContext): Promise<number | void> {
  const words = parseDiffWords(((ctx.argv.range as unknown[] | undefined) ?? []).map(String));
  const paths = await pathspecs(ctx);
  const sh = await ctx.open();
  const nameStatus = ctx.argv['name-status'] === true;
  if (nameStatus && words.nameOnly)
    throw new ShadowError('USAGE', '--name-only and --name-status cannot be used together', {
      hint: 'shadow diff --name-only (paths), or --name-status (paths with A/M/D/R)',
    });
  const names = nameStatus || words.nameOnly === true;
  // As git's diff_setup_done: --name-status and --name-only drop --stat, --numstat, --shortstat and the patch.
  const counts = !names && (words.stat !== undefined || words.numstat === true || words.shortstat === true);
  const content = words.quiet ? 'none' : counts ? 'stat' : names ? 'none' : 'patch';
  const config = (name: string): string | undefined => sh.gitConfig(name);
  const pager = ctx.out.json || words.pager === false ? undefined : choosePager(ctx.io, config);
  const colour = !ctx.out.json && wantColour(words.color, config, ctx.io, pager !== undefined);
  const r = await diffOf(sh, ctx, words, { content, paths, color: colour && content === 'patch' });
  if (words.filter) r.files = filterStatuses(r.files, words.filter);
  // --exit-code and --quiet: 1 when anything differs, as git diff's.
  const status = (words.exitCode || words.quiet) && r.files.length > 0 ? EXIT.differences : EXIT.ok;
  if (words.quiet) return status;
  if (ctx.out.json) {
    ctx.out.result(r, () => '');
    return status;
  }
  const quotePath = sh.gitConfigBool('core.quotePath') ?? true;
  // In git's order: the names, then --numstat, --stat and --shortstat; the patch only when none is asked for.
  const parts: string[] = [];
  const nul = words.nul === true;
  if (nameStatus) parts.push(nameStatusText(r.files, quotePath, nul));
  if (words.nameOnly) parts.push(nameOnlyText(r.files, quotePath, nul));
  if (counts && words.numstat) parts.push(numstatText(r.files, quotePath, nul));
  if (counts && words.stat) parts.push(statText(r.files, { colour, quotePath, ...statWidths(ctx, sh, words.stat) }));
  if (counts && words.shortstat) parts.push(shortstatText(r.files));
  if (!names && !counts) parts.push(r.files.map((f) => f.patch ?? '').join(''));
  // A -z part ends with its NUL; any other with a newline.
  const text = parts
    .filter((p) => p !== '')
    .map((p) => (p.endsWith('\n') || p.endsWith('\0') ? p : `${p}\n`))
    .join('');
  if (text === '') return status;
  if (r.renames_limited)
    ctx.out.note(
      'warning: exhaustive rename detection was skipped due to too many files; raise diff.renameLimit to look further',
    );
  if (pager === undefined) ctx.io.stdout(text);
  else await page(text, pager, ctx.io.env, ctx.dir, (s) => ctx.io.stdout(s));
  return status;
}

/**
 * The widths of a `--stat`: git's term_columns (`COLUMNS` when it is a
 * positive number, else the terminal's width, else 80) unless
 * `--stat=<width>` or `--stat-width` gives one; the name's and the
 * graph's limits from the options, else `diff.statNameWidth` and
 * `diff.statGraphWidth`; `--stat-count`.
 */
function statWidths(ctx: CommandContext, sh: Shadow, given: StatWords): StatOptions {
  // git reads COLUMNS with atoi: leading digits count, anything else is 0.
  const columns = Number.parseInt(/^\s*[-+]?\d+/.exec(ctx.io.env.COLUMNS ?? '')?.[0] ?? '0', 10);
  const terminal = ctx.io.isTTY ? ctx.io.columns?.() : undefined;
  // `--stat=0` is 80, as in git; without a width, the terminal's.
  const width =
    given.width !== undefined
      ? given.width || 80
      : columns > 0
        ? columns
        : terminal !== undefined && terminal > 0
          ? terminal
          : 80;
  const limit = (name: string): number => Math.max(0, sh.gitConfigInt(name) ?? 0);
  return {
    width,
    graphWidth: given.graphWidth ?? limit('diff.statGraphWidth'),
    nameWidth: given.nameWidth ?? limit('diff.statNameWidth'),
    count: given.count,
  };
}

/**
 * The prefixes a patch shows, as git diff sets them: `a/` and `b/`, none
 * with `diff.noprefix`, then `--no-prefix`, `--default-prefix`,
 * `--src-prefix` and `--dst-prefix`; none said when they are git's own.
 */
function prefixesOf(sh: Shadow, words: DiffWords): { prefixes?: { src: string; dst: string } } {
  const none = sh.gitConfigBool('diff.noPrefix') === true;
  const src = words.src ?? (none ? '' : 'a/');
  const dst = words.dst ?? (none ? '' : 'b/');
  return src === 'a/' && dst === 'b/' ? {} : { prefixes: { src, dst } };
}

/** The paths after `--`, relative to the current directory as git's pathspecs are; `:(literal)` kept. */
async function pathspecs(ctx: CommandContext): Promise<string[] | undefined> {
  const specs = ((ctx.argv['--'] as unknown[] | undefined) ?? []).map(String);
  if (specs.length === 0) return undefined;
  return Promise.all(
    specs.map(async (spec) => {
      const path = (await ctx.repoPath(spec)) || '.';
      return /^:\([^)]*\bliteral\b/.test(spec) ? `:(literal)${path}` : path;
    }),
  );
}

type Shown = Pick<DiffOptions, 'content' | 'paths' | 'color'>;

async function diffOf(sh: Shadow, ctx: CommandContext, words: DiffWords, options: Shown): Promise<DiffResult> {
  try {
    return await sh.diff({
      draft: ctx.draft,
      range: words.range,
      renames: words.renames,
      ...(words.context === undefined ? {} : { context: words.context }),
      ...(words.fullIndex ? { abbrev: 40 } : words.abbrev === undefined ? {} : { abbrev: words.abbrev }),
      ...prefixesOf(sh, words),
      ...(words.reverse ? { reverse: true } : {}),
      ...options,
    });
  } catch (e) {
    // A path typed where a range goes (`shadow diff src/api.ts`): say where paths go.
    const typedPath = words.points.length === 2 || (words.points.length === 1 && !words.points[0]!.includes('..'));
    if (!isShadowError(e) || e.code !== 'INVALID_TARGET' || !typedPath) throw e;
    throw new ShadowError('INVALID_TARGET', `${e.message}; a path goes after --`, {
      hint: `to see what the draft changes in a path: shadow diff -- ${words.points.join(' ')}`,
      data: { ...e.data, points: words.points },
      cause: e,
    });
  }
}
