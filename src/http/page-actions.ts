import type { FastifyRequest } from 'fastify';
import * as z from 'zod/mini';
import type { ShadowErrorJSON } from '../errors.js';
import { pathspecProblem } from '../core/pathspec.js';
import { validate } from '../drafts/batch/batch-schema.js';
import type { Shadow } from '../shadow.js';
import { statusFor } from './http-errors.js';
import type { PageRoute } from './page-route.js';
import { DRAFT_PARAM, inputSchema } from './route-schema.js';
import { APPLY, APPLY_REFUSED, ANY_OBJECT, ROLLBACK, UNAPPLY } from './answer-schemas.js';

/**
 * What the review page does (`POST /ui/api/…`, each with the session's CSRF
 * token): decide an approval, apply (the whole draft, selected files, or
 * the hunks ticked in the diff, by id), unapply, roll back. Each is the library call the CLI makes, acting as the
 * person (`SHADOW_ACTOR` or git's user.name, as `shadow approve` does), and
 * answers its errors with the same codes and hints. The page is the
 * person's own (it opens only through the one-time URL `shadow serve`
 * printed in their terminal), so it applies whether or not the server was
 * started with `--allow-apply`, which is about what bearer-token clients
 * (agents) may do.
 */

type Named = FastifyRequest<{ Params: { name: string; id?: string } }>;

const Pathspec = z
  .string()
  .check(z.refine((s) => pathspecProblem(s) === undefined, 'must be a path from the repository root'));

// `expect`: the review fingerprint of the draft as the page drew it; another state is 409 STALE_REVIEW.
const DecisionBody = z.strictObject({
  decision: z.enum(['approve', 'deny']),
  reason: z.optional(z.string()),
  expect: z.optional(z.string()),
});
const ApplyBody = z.strictObject({
  expect: z.optional(z.string()),
  // At least one: an empty selection would read as "the whole draft".
  paths: z.optional(z.array(Pathspec).check(z.minLength(1))),
  // Only these hunks (ids of the diff's `hunks`; whole paths beside them): the draft keeps the rest.
  hunks: z.optional(
    z.array(z.string().check(z.minLength(1), z.maxLength(4096))).check(z.minLength(1), z.maxLength(10000)),
  ),
  dry_run: z.optional(z.boolean()),
  conflict: z.optional(z.enum(['refuse', 'markers'])),
});
const UnapplyBody = z.strictObject({
  dry_run: z.optional(z.boolean()),
  conflict: z.optional(z.enum(['refuse', 'markers'])),
});
const RollbackBody = z.strictObject({ target: z.string().check(z.minLength(1)) });

export function registerPageActions(route: PageRoute, sh: Shadow): void {
  const decide = {
    summary: 'Approve or deny one approval the draft needs, as the person',
    params: { ...DRAFT_PARAM, id: 'the approval' },
    body: inputSchema(DecisionBody),
    ok: ANY_OBJECT,
    errors: [404, 409, 422],
  };
  route('POST', '/ui/api/drafts/:name/approvals/:id', decide, async (req, reply) => {
    const { params, body } = req as Named & { body: unknown };
    const b = validate(DecisionBody, body ?? {}, 'INVALID_ARGUMENT', 'the decision');
    const options = { draft: params.name, reason: b.reason === '' ? undefined : b.reason, expect: b.expect };
    const state = b.decision === 'approve' ? await sh.approve(params.id!, options) : await sh.deny(params.id!, options);
    return reply.send(state);
  });

  const apply = {
    summary: 'Apply the draft, or selected paths or hunks, as the person',
    params: DRAFT_PARAM,
    body: inputSchema(ApplyBody),
    ok: APPLY,
    errors: [404, 409, 422],
    failures: { 422: APPLY_REFUSED },
  };
  route('POST', '/ui/api/drafts/:name/apply', apply, async (req, reply) => {
    const { params, body } = req as Named & { body: unknown };
    const b = validate(ApplyBody, body ?? {}, 'INVALID_ARGUMENT', 'the apply request');
    const r = await sh.apply({
      draft: params.name,
      paths: b.paths,
      hunks: b.hunks,
      dryRun: b.dry_run === true,
      conflict: b.conflict,
      expect: b.expect,
    });
    if (b.dry_run === true || r.ok) return reply.send(r);
    // As the API answers it: nothing was written, and the approvals the person must give first.
    const ids = r.pendingApprovals.map((p) => p.id).join(', ');
    const error: ShadowErrorJSON = {
      code: 'APPROVALS_PENDING',
      message: `nothing was applied: approvals are pending (${ids})`,
      hint: 'approve or deny each under Decisions, then apply',
    };
    return reply.code(statusFor(error.code)).send({ ...r, error });
  });

  const unapply = {
    summary: 'Put back what the last apply wrote',
    params: DRAFT_PARAM,
    body: inputSchema(UnapplyBody),
    ok: UNAPPLY,
    errors: [404, 409, 422],
  };
  route('POST', '/ui/api/drafts/:name/unapply', unapply, async (req, reply) => {
    const { params, body } = req as Named & { body: unknown };
    const b = validate(UnapplyBody, body ?? {}, 'INVALID_ARGUMENT', 'the unapply request');
    return reply.send(await sh.unapply({ draft: params.name, dryRun: b.dry_run === true, conflict: b.conflict }));
  });

  const rollback = {
    summary: 'Move the draft back to an earlier point',
    params: DRAFT_PARAM,
    body: inputSchema(RollbackBody),
    ok: ROLLBACK,
    errors: [404, 409],
  };
  route('POST', '/ui/api/drafts/:name/rollback', rollback, async (req, reply) => {
    const { params, body } = req as Named & { body: unknown };
    const b = validate(RollbackBody, body ?? {}, 'INVALID_ARGUMENT', 'the rollback request');
    return reply.send(await sh.rollback(b.target, { draft: params.name }));
  });
}
