import { errorText } from '../../src/agent-tools/call-tool.js';
import { isShadowError } from '../../src/index.js';
import type { HookEvent } from '../agents/agent-specs.js';
import { HOOKS } from '../agents/hook-agents.js';
import { routeEdit, type Verdict } from '../agents/hook-route.js';
import type { CommandContext } from '../command-context.js';
import { readAll } from '../read-input.js';

/** A tool call is small; a hook's input that is not is not one. */
const MAX_HOOK_INPUT = 64 * 1024 * 1024;

/**
 * `shadow hook <event>`: what `shadow init` registers to run before an
 * agent's own file edits (Claude Code's Write, Edit, MultiEdit, NotebookEdit; Gemini
 * CLI's write_file, replace). It reads the tool call on stdin and answers
 * in the agent's hook protocol (hook-agents.ts). It always exits 0 with an
 * answer: a hook that failed would let the edit through to the working
 * tree, so a failure is a refusal that says what went wrong. What it cannot
 * answer (a crash, a node that does not start, a server that died during
 * the hand-off) the registered command line refuses (launch.ts).
 */
export async function hook(ctx: CommandContext): Promise<void> {
  const protocol = HOOKS[ctx.argv.event as HookEvent];
  let verdict: Verdict;
  try {
    const raw = (await readAll(ctx.io.stdin, MAX_HOOK_INPUT)).toString('utf8');
    let input: unknown;
    try {
      input = JSON.parse(raw);
    } catch (e) {
      throw new Error(`the hook's input is not JSON: ${(e as Error).message}`);
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      throw new Error("the hook's input is not a JSON object");
    const call = input as Record<string, unknown>;
    const intake = protocol.intake(call);
    if (intake.kind === 'pass' || intake.kind === 'deny') verdict = intake;
    else {
      const sh = await ctx.open();
      verdict = await routeEdit(intake, {
        sh,
        cwd: typeof call.cwd === 'string' ? call.cwd : ctx.dir,
        draft: sh.draftName({ draft: ctx.draft }),
        actor: ctx.actor ?? protocol.actor,
        names: protocol.names,
      });
    }
  } catch (e) {
    const why = isShadowError(e) ? errorText(e.toJSON()) : (e as Error).message;
    verdict = {
      kind: 'deny',
      reason: `shadow's hook could not take this edit into the draft, so it is refused (nothing was written):\n${why}\nUse ${protocol.names.write} instead.`,
    };
  }
  ctx.io.stdout(protocol.answer(verdict));
}
