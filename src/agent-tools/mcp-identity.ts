import type { Profile } from './definitions.js';

/**
 * What `shadow mcp` says of itself in its answer to `initialize`: its name,
 * capabilities and instructions. Kept apart from the MCP SDK so that the
 * answer can be written before the SDK loads (mcp-early-initialize.ts).
 */

export const MCP_SERVER_NAME = 'shadow';

export const MCP_CAPABILITIES = { tools: {} };

const INSTRUCTIONS =
  "shadow keeps every file change you make in a draft (a private git ref), never in the user's working tree: " +
  'batch_write changes many files atomically (so does apply_patch, with a patch in the apply_patch format), read_file/list_files/search read the draft as it stands, ' +
  'begin_write/append_content/finalize_write carry large files in pieces, checkpoint and rollback undo, ' +
  'and propose hands the draft to the person, who reviews and applies it.';

/** What the instructions say of the borrowed shapes, when they are served. */
const PROFILE_INSTRUCTIONS: Record<Exclude<Profile, 'shadow'>, string> = {
  anthropic:
    'str_replace_based_edit_tool (str_replace_editor for text_editor_20250124, with undo_edit) views and edits files of the draft as the text editor tool does; each change is one commit, ' +
    'and an edit of a file that changed since you viewed it fails (EXPECT_FAILED) rather than overwrite that change.',
  filesystem:
    'The filesystem tools (read_text_file, write_file, edit_file, list_directory, search_files, ...) work on the draft: ' +
    'list_allowed_directories names the repository, reads see the draft, each write is one commit on it.',
};

/** The instructions for the profiles served. */
export function instructions(profiles: readonly Profile[]): string {
  const own = profiles.includes('shadow')
    ? [INSTRUCTIONS]
    : [
        "shadow keeps every file change you make in a draft (a private git ref), never in the user's working tree; the person reviews and applies it.",
      ];
  return [
    ...own,
    ...profiles.filter((p): p is Exclude<Profile, 'shadow'> => p !== 'shadow').map((p) => PROFILE_INSTRUCTIONS[p]),
  ].join(' ');
}
