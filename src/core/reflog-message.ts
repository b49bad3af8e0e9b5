/**
 * The reflog messages of the ref moves shadow makes, as git writes them.
 */

/**
 * A message as git stores it in a reflog line: runs of whitespace (newlines
 * included) become one space, none leads or trails (git's copy_reflog_msg).
 */
export function normalizeReflogMessage(message: string): string {
  return message.replace(/[ \t\n\r]+/g, ' ').trim();
}
