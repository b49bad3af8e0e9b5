import type { Profile } from './definitions.js';

/**
 * The names of the tool profiles and how a `--tools` value reads, without
 * the tools themselves: the executable reads them to answer a `shadow mcp`
 * client's `initialize` before it loads the CLI (cli/mcp-launch.ts).
 */

export const PROFILES: readonly Profile[] = ['shadow', 'anthropic', 'filesystem'];

/**
 * `shadow`, `anthropic,filesystem`, `all`: the profiles named, in the order
 * of PROFILES, and the names that are none (`bad`, empty when all are).
 */
export function readProfiles(spec: string | readonly string[] | undefined): { profiles: Profile[]; bad: string[] } {
  const words = (Array.isArray(spec) ? spec : [spec ?? 'shadow'])
    .flatMap((s: string) => s.split(','))
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (words.length === 0) words.push('shadow');
  const bad = words.filter((w) => w !== 'all' && !PROFILES.includes(w as Profile));
  return { profiles: PROFILES.filter((p) => words.includes('all') || words.includes(p)), bad };
}
