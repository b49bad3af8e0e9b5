import { ShadowError } from '../errors.js';
import { offeredTools, type Profile, type ToolDefinition } from './definitions.js';
import { EDITOR_TOOLS } from './editor-definitions.js';
import { FILESYSTEM_TOOLS } from './filesystem-definitions.js';
import { PROFILES, readProfiles } from './profile-names.js';

/**
 * Which shapes of tools a server offers (`shadow mcp --tools`, `shadow tools
 * --tools`): shadow's own (the default, today's set), Anthropic's text editor
 * (the tool Claude models are trained on), the MCP filesystem server's (so a
 * client set up for that server switches without changes). Each works on the
 * connection's draft, never on the working tree.
 */

export type { Profile } from './definitions.js';
export { PROFILES } from './profile-names.js';

/**
 * `shadow`, `anthropic,filesystem`, `all`: the profiles named, in the order of
 * PROFILES. An unknown name is a USAGE error listing the names.
 */
export function parseProfiles(spec: string | readonly string[] | undefined): Profile[] {
  const { profiles, bad } = readProfiles(spec);
  if (bad.length > 0) {
    throw new ShadowError('USAGE', `unknown tool profile${bad.length > 1 ? 's' : ''}: ${bad.join(', ')}`, {
      hint: `choose from ${PROFILES.join(', ')} or all (a comma list works too)`,
    });
  }
  return profiles;
}

/**
 * The tools of `profiles`, shadow's first. A name two profiles share is
 * served once, by the first: with shadow and filesystem both on, read_file
 * is shadow's (numbered lines) and the filesystem server's read_text_file,
 * the name its own clients use now, serves theirs (its read_file is a
 * deprecated alias of it).
 */
export function toolsFor(profiles: readonly Profile[], options: { allowApply?: boolean } = {}): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  const names = new Set<string>();
  const add = (tools: readonly ToolDefinition[]): void => {
    for (const t of tools) {
      if (names.has(t.name)) continue;
      names.add(t.name);
      out.push(t);
    }
  };
  if (profiles.includes('shadow')) add(offeredTools(options));
  if (profiles.includes('anthropic')) add(EDITOR_TOOLS);
  if (profiles.includes('filesystem')) add(FILESYSTEM_TOOLS);
  return out;
}
