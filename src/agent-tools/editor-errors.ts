import { ShadowError, type ShadowErrorJSON } from '../errors.js';
import type { BatchResult } from '../index.js';
import { linesContaining, pyList } from './editor-text.js';
import { errorText, failed, type ToolOutcome } from './tool-outcome.js';

/**
 * The text editor's refusals in the words of Anthropic's reference
 * implementation (computer-use-demo/computer_use_demo/tools/edit.py), which
 * is what a model trained on the tool reads and retries by; shadow's code
 * comes first in the answer, its hint and details after the reference's
 * sentence.
 */

export const missingParameter = (field: string, command: string): ShadowError =>
  new ShadowError('INVALID_ARGUMENT', `Parameter \`${field}\` is required for command: ${command}`, {
    hint: `send ${field} with the ${command} command`,
    data: { command },
  });

export const doesNotExist = (shown: string): ShadowError =>
  new ShadowError('NOT_FOUND', `The path ${shown} does not exist. Please provide a valid path.`, {
    hint: 'create it with the create command, or view its directory',
    data: { path: shown },
  });

export const isADirectory = (shown: string): ShadowError =>
  new ShadowError(
    'IS_A_DIRECTORY',
    `The path ${shown} is a directory and only the \`view\` command can be used on directories`,
    { hint: 'view it to see its files', data: { path: shown } },
  );

export const alreadyExists = (shown: string): ShadowError =>
  new ShadowError(
    'ALREADY_EXISTS',
    `File already exists at: ${shown}. Cannot overwrite files using command \`create\`.`,
    {
      hint: 'change it with str_replace or insert (view it first)',
      data: { path: shown },
    },
  );

/** A failed batch of the editor: the reference's sentence for what it has one for, shadow's own words for the rest (a stale view). */
export function editFailure(r: BatchResult, a: { path: string; old_str?: string }, text: string): ToolOutcome {
  const e: ShadowErrorJSON = r.results.find((x) => x.error)?.error ??
    r.error ?? { code: 'BATCH_FAILED', message: 'the edit failed' };
  const data = (e.data ?? {}) as {
    closest?: Array<{ line: number; text: string; kind: string }>;
    lines?: number[];
    matches?: number;
  };
  const old = a.old_str ?? '';
  if (e.code === 'EDIT_NO_MATCH') {
    const message = `No replacement was performed, old_str \`${old}\` did not appear verbatim in ${a.path}.`;
    const hint =
      'view the file (or the lines around it with view_range) and copy old_str exactly, whitespace and line ends included';
    const closest = (data.closest ?? []).map(
      (c) => `${String(c.line).padStart(6)}\t${c.text}${c.kind === 'similar' ? '' : `   (differs in ${c.kind})`}`,
    );
    return failed(
      { ...e, message, hint },
      `EDIT_NO_MATCH: ${message}${closest.length > 0 ? `\nclosest lines:\n${closest.join('\n')}` : ''}\nhint: ${hint}`,
    );
  }
  if (e.code === 'EDIT_AMBIGUOUS') {
    const message = `No replacement was performed. Multiple occurrences of old_str \`${old}\` in lines ${pyList(linesContaining(text, old))}. Please ensure it is unique`;
    const starts = data.lines ?? [];
    const hint = `the ${data.matches ?? starts.length} matches start at lines ${starts.join(', ')}: include the lines around the one you mean in old_str (and in new_str)`;
    return failed({ ...e, message, hint }, `EDIT_AMBIGUOUS: ${message}\nhint: ${hint}`);
  }
  if (e.code === 'ALREADY_EXISTS') return failed(alreadyExists(a.path).toJSON());
  if (e.code === 'EXPECT_FAILED') {
    const message = `${a.path} changed since you last viewed it (another agent or the person wrote it); nothing was written, their change is kept`;
    const hint = 'view the file again, then redo the edit on what it holds now';
    return failed({ ...e, message, hint }, `EXPECT_FAILED: ${message}\nhint: ${hint}`);
  }
  return failed(e, `${errorText({ ...e, data: undefined })}\nNothing was written.`);
}
