import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { callTool } from '../../src/agent-tools/call-tool.js';
import type { Shadow } from '../../src/index.js';

/**
 * An agent's own file edit, taken into the draft instead of the working
 * tree: the tool call becomes one batch (the batch_write tool's, so the
 * answer reads as that tool's would), and the agent's tool is refused with
 * a reason that says where the change went, or why it went nowhere, and
 * which of shadow's tools to use instead. Edits outside the repository are
 * not shadow's: they pass.
 */

export type EditOp =
  { operation: 'write'; content: string } | { operation: 'edit'; old_content: string; content: string };

/**
 * What a hook makes of a tool call: nothing to do, an edit to take, a
 * refusal, or a call shadow cannot express as a batch (refused when its file
 * is in the repository, passed when it is not).
 */
export type Intake =
  | { kind: 'pass' }
  | { kind: 'deny'; reason: string }
  | { kind: 'edit'; tool: string; filePath: string; ops: EditOp[] }
  | { kind: 'untakeable'; tool: string; filePath: string; why: string };

export type Verdict = { kind: 'pass' } | { kind: 'deny'; reason: string };

/** How shadow's tools are named to the model, for the reasons it reads. */
export interface ToolNames {
  read: string;
  write: string;
}

export interface RouteOptions {
  sh: Shadow;
  /** The agent's working directory: relative paths are from here. */
  cwd: string;
  draft: string;
  actor: string;
  names: ToolNames;
}

/** `p` with symlinks resolved as far as it exists (a new file's directory may exist, or not yet). */
function real(p: string): string {
  let dir = p;
  const rest: string[] = [];
  while (!existsSync(dir)) {
    const up = dirname(dir);
    if (up === dir) return p;
    rest.unshift(basename(dir));
    dir = up;
  }
  return join(realpathSync(dir), ...rest);
}

/** The repository path of `filePath`, or undefined when it is outside the working tree. */
export function repositoryPath(root: string, cwd: string, filePath: string): string | undefined {
  const rel = relative(real(root), real(resolve(cwd, filePath)));
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

export function unsupported(tool: string, why: string, names: ToolNames): Verdict {
  return {
    kind: 'deny',
    reason: `shadow keeps this repository's changes in a draft, and cannot take this ${tool} call (${why}); nothing was written. Read the file as the draft holds it with ${names.read}, then make the change with ${names.write}.`,
  };
}

/** Take the edit into the draft; the verdict to answer the agent's tool with. */
export async function routeEdit(intake: Intake, o: RouteOptions): Promise<Verdict> {
  if (intake.kind === 'pass' || intake.kind === 'deny') return intake;
  const root = o.sh.layout.worktree;
  const path = root === null ? undefined : repositoryPath(root, o.cwd, intake.filePath);
  if (path === undefined) return { kind: 'pass' };
  if (intake.kind === 'untakeable') return unsupported(intake.tool, intake.why, o.names);
  const operations = intake.ops.map((op) => ({ ...op, path }));
  const out = await callTool({ sh: o.sh, draft: o.draft, actor: o.actor }, 'batch_write', {
    intent: `${intake.tool} ${path}`,
    operations,
  });
  const next = `Read files as the draft holds them with ${o.names.read}, and make further changes with ${o.names.write}.`;
  if (out.isError) {
    return {
      kind: 'deny',
      reason: `shadow did not take this ${intake.tool} into its draft "${o.draft}", and nothing was written anywhere:\n${out.text}\nRead ${path} as the draft holds it with ${o.names.read}, then make the change with ${o.names.write}.`,
    };
  }
  const r = JSON.parse(out.text) as { batch: number | null; unchanged?: boolean };
  const where =
    r.batch === null
      ? 'the draft already holds this change (no new batch)'
      : `${path} changed in the draft as batch ${r.batch}`;
  return {
    kind: 'deny',
    reason: `shadow took this ${intake.tool} into its draft "${o.draft}": ${where}. The working tree is not changed until the person applies the draft, so do not repeat the edit. ${next}`,
  };
}
