/** The tools the `shadow` profile of `shadow mcp` offers, in the order `tools/list` gives them. */
export const SHADOW_TOOL_NAMES = [
  'batch_write',
  'apply_patch',
  'read_file',
  'list_files',
  'search',
  'begin_write',
  'append_content',
  'finalize_write',
  'diff',
  'log',
  'status',
  'checkpoint',
  'rollback',
  'rebase',
  'revert',
  'resolve',
  'propose',
  'apply_status',
];

/** The MCP filesystem server's tools, as the `filesystem` profile serves them. */
export const FILESYSTEM_TOOL_NAMES = [
  'read_text_file',
  'read_file',
  'read_media_file',
  'read_multiple_files',
  'write_file',
  'edit_file',
  'create_directory',
  'list_directory',
  'list_directory_with_sizes',
  'directory_tree',
  'move_file',
  'search_files',
  'get_file_info',
  'list_allowed_directories',
];
