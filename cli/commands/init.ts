import { realpathSync } from 'node:fs';
import { ShadowError } from '../../src/index.js';
import { agentSetup, type AgentName } from '../agents/agent-specs.js';
import {
  applyInit,
  applyRemove,
  planInit,
  planRemove,
  readRecord,
  recordPath,
  type PlannedFile,
} from '../agents/init-files.js';
import { thisLaunch } from '../agents/launch.js';
import type { CommandContext } from '../command-context.js';

const PAST: Record<PlannedFile['change'], string> = {
  create: 'created',
  update: 'updated',
  unchanged: 'unchanged',
  delete: 'deleted',
  restore: 'restored',
};
const FUTURE: Record<PlannedFile['change'], string> = {
  create: 'would create',
  update: 'would update',
  unchanged: 'would leave',
  delete: 'would delete',
  restore: 'would restore',
};

function describe(
  planned: readonly PlannedFile[],
  title: string,
  remove: boolean,
  print: boolean,
  notes: readonly string[],
): string {
  const lines: string[] = [];
  const changes = planned.filter((p) => p.change !== 'unchanged');
  if (changes.length === 0)
    lines.push(
      remove ? `${title}: shadow is not set up here; nothing to remove` : `${title}: already set up; nothing to change`,
    );
  for (const p of planned) {
    lines.push(`${(print ? FUTURE : PAST)[p.change]} ${p.path}`);
    if (print && p.change !== 'unchanged' && p.after !== null)
      lines.push(p.after.toString('utf8').replace(/\n?$/, '\n'));
  }
  if (!remove && !print && changes.length > 0) for (const n of notes) lines.push(`note: ${n}`);
  return lines.join('\n');
}

/**
 * `shadow init <agent> [--print] [--remove] [--force]`: register shadow's
 * MCP server (and the hook on the agent's own edits, where it has one) in
 * the project's config for that agent, merged into what is there; `--remove`
 * takes it out again, the files as they were.
 */
export async function init(ctx: CommandContext): Promise<void> {
  const agent = ctx.argv.agent as AgentName;
  const remove = ctx.argv.remove === true;
  const print = ctx.argv.print === true;
  const sh = await ctx.open();
  const { worktree, commondir } = sh.layout;
  if (worktree === null) {
    throw new ShadowError(
      'INVALID_ARGUMENT',
      "shadow init writes the agent's config into the working tree, and this repository has none",
      {
        hint: 'run it in a clone with a working tree',
      },
    );
  }
  // The path the agent will be given, symlinks resolved: the same however the repository was reached.
  const root = realpathSync(worktree);
  const setup = agentSetup(agent, root, thisLaunch());
  const recordFile = recordPath(commondir, agent, root);
  const record = readRecord(recordFile);
  const planned = remove ? planRemove(setup, root, record) : planInit(setup, root, ctx.argv.force === true);
  if (!print) {
    if (remove) applyRemove(planned, recordFile, record);
    else applyInit(planned, setup, root, recordFile, record);
  }
  const doc = {
    agent,
    action: remove ? 'remove' : 'init',
    written: !print && planned.some((p) => p.change !== 'unchanged'),
    root,
    files: planned.map((p) => ({
      path: p.path,
      change: p.change,
      ...(print ? { content: p.after === null ? null : p.after.toString('utf8') } : {}),
    })),
    notes: remove ? [] : setup.notes,
  };
  ctx.out.result(doc, () => describe(planned, setup.title, remove, print, setup.notes));
}
