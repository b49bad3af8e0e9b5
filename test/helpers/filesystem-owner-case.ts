/*
 * What a case of the MCP filesystem server's own (test/helpers/filesystem-owner-cases.ts)
 * says: where it comes from, what it starts from, the call, and what it expects.
 */

export const OWNER = {
  repo: 'modelcontextprotocol/servers',
  commit: '76d64c822f5125032f89eb71dbdb94e42b434821',
  folder: 'src/filesystem',
};

export interface Expectation {
  /** The whole answer text. */
  text?: string;
  /** Pieces the answer text holds, and pieces it must not. */
  contains?: string[];
  lacks?: string[];
  /** The answer's lines in any order (the server lists in readdir order, which the file system decides). */
  lines?: string[];
  /** An error whose text holds this (the server's message). */
  error?: string;
  /** Files of the draft afterwards, relative to `<dir>`, as native git reads them. */
  bytes?: Record<string, string>;
  /** directory_tree: names at the top level of the tree it has, and lacks. */
  names?: { has?: string[]; lacks?: string[]; under?: string };
  /** get_file_info: its keys, in order. */
  keys?: string[];
}

export interface OwnerCase {
  source: string;
  files?: Record<string, string>;
  tool: string;
  args: Record<string, unknown>;
  expect: Expectation;
  differs?: { reason: string; expect: Expectation };
}
