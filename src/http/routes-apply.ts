import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as z from 'zod/mini';
import { isShadowError, ShadowError, type ShadowErrorJSON } from '../errors.js';
import { pathspecProblem } from '../core/pathspec.js';
import { validate } from '../drafts/batch/batch-schema.js';
import type { Shadow } from '../shadow.js';
import { statusFor } from './http-errors.js';
import { ACTOR_HEADER, DRAFT_PARAM, inputSchema, routeSchema } from './route-schema.js';
import { APPLY, APPLY_REFUSED, UNAPPLY } from './answer-schemas.js';

/**
 * `POST /api/drafts/:name/apply`: what applying the draft would do (a dry
 * run, always served) or the apply itself, which writes the person's
 * working tree and so is served only when the server was started with
 * `allowApply` (`shadow serve --allow-apply`), as `shadow mcp` offers its
 * apply tool only then. Otherwise a real apply is 403 APPLY_NOT_ALLOWED
 * before anything is read or written: a client that holds the token may
 * still only look.
 */

const Pathspec = z.string().check(
  z.superRefine((value, ctx) => {
    const problem = pathspecProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, input: value });
  }),
);

const ApplyBody = z.strictObject({
  // At least one: an empty list would read as "the whole draft", which is what leaving it out says.
  paths: z.optional(z.array(Pathspec).check(z.minLength(1))),
  dry_run: z.optional(z.boolean()),
  conflict: z.optional(z.enum(['refuse', 'markers'])),
  // The review fingerprint the client saw: another state is 409 STALE_REVIEW, nothing written.
  expect: z.optional(z.string()),
  // Only these hunks (ids of the diff route's `hunks`, or `<path>:<n>`, `<path>:mode`, `<path>`): the draft keeps the rest.
  hunks: z.optional(
    z.array(z.string().check(z.minLength(1), z.maxLength(4096))).check(z.minLength(1), z.maxLength(10000)),
  ),
  // A patch in git's format against the draft's bases, a part or an edit of the draft's own diff.
  patch: z.optional(z.string().check(z.minLength(1))),
});

const BODY_HINT =
  'send {"paths"?: ["src/a.ts", "docs/", "src/**/*.test.ts"], "hunks"?: ["<id>", "src/a.ts:1,3"], "patch"?: "diff --git …", "dry_run"?: true, "conflict"?: "refuse" | "markers", "expect"?: "review:…"}; paths are relative to the repository root';

type Named = FastifyRequest<{ Params: { name: string } }>;

function parseBody(body: unknown): z.infer<typeof ApplyBody> {
  try {
    // No body at all is the whole draft, applied.
    return validate(ApplyBody, body ?? {}, 'INVALID_ARGUMENT', 'the apply request');
  } catch (e) {
    // validate's hint is a generic one; a client of this route needs the body's shape.
    if (isShadowError(e))
      throw new ShadowError('INVALID_ARGUMENT', e.message, { hint: BODY_HINT, data: e.data && { ...e.data } });
    throw e;
  }
}

const UnapplyBody = z.strictObject({
  dry_run: z.optional(z.boolean()),
  conflict: z.optional(z.enum(['refuse', 'markers'])),
});

export function registerApplyRoute(app: FastifyInstance, sh: Shadow, options: { allowApply: boolean }): void {
  // Unapply writes the working tree too: a dry run always, the rest only with allowApply.
  const unapplySchema = routeSchema({
    summary: 'Put back what the last apply wrote (a dry run always; the rest only with --allow-apply)',
    tag: 'apply',
    auth: 'token',
    params: DRAFT_PARAM,
    headers: ACTOR_HEADER,
    body: inputSchema(UnapplyBody),
    ok: UNAPPLY,
    errors: [404, 409, 422],
  });
  app.post('/api/drafts/:name/unapply', { schema: unapplySchema }, async (req: Named, reply) => {
    const body = validate(UnapplyBody, req.body ?? {}, 'INVALID_ARGUMENT', 'the unapply request');
    const dryRun = body.dry_run === true;
    if (!dryRun && !options.allowApply) {
      throw new ShadowError('APPLY_NOT_ALLOWED', 'this server does not unapply drafts: the person does', {
        hint: 'ask for a dry run ({"dry_run": true}) to see what unapply would put back; the person runs shadow unapply, or starts shadow serve --allow-apply',
        data: { draft: req.params.name },
      });
    }
    const actor = typeof req.headers['x-shadow-actor'] === 'string' ? req.headers['x-shadow-actor'] : undefined;
    return reply.send(await sh.unapply({ draft: req.params.name, dryRun, actor, conflict: body.conflict }));
  });

  const applySchema = routeSchema({
    summary: 'What applying the draft would do (dry_run), or the apply itself (only with --allow-apply)',
    tag: 'apply',
    auth: 'token',
    params: DRAFT_PARAM,
    headers: ACTOR_HEADER,
    body: inputSchema(ApplyBody),
    ok: APPLY,
    errors: [404, 409, 422],
    failures: { 422: APPLY_REFUSED },
  });
  app.post('/api/drafts/:name/apply', { schema: applySchema }, async (req: Named, reply) => {
    const body = parseBody(req.body);
    const dryRun = body.dry_run === true;
    if (!dryRun && !options.allowApply) {
      throw new ShadowError('APPLY_NOT_ALLOWED', 'this server does not apply drafts: the person applies', {
        hint: 'ask for a dry run ({"dry_run": true}) to see what applying would do; the person applies with shadow apply, or starts shadow serve --allow-apply',
        data: { draft: req.params.name },
      });
    }
    const actor = typeof req.headers['x-shadow-actor'] === 'string' ? req.headers['x-shadow-actor'] : undefined;
    const r = await sh.apply({
      draft: req.params.name,
      dryRun,
      actor,
      paths: body.paths,
      conflict: body.conflict,
      expect: body.expect,
      hunks: body.hunks,
      patch: body.patch,
    });
    if (dryRun || r.ok) return reply.send(r);
    // Nothing was written: the result says which approvals the person must give first, beside the error a client checks.
    const ids = r.pendingApprovals.map((p) => p.id).join(', ');
    const error: ShadowErrorJSON = {
      code: 'APPROVALS_PENDING',
      message: `nothing was applied: approvals are pending (${ids})`,
      hint: 'the person reviews the draft (shadow review) and approves or denies each',
    };
    return reply.code(statusFor(error.code)).send({ ...r, error });
  });
}
