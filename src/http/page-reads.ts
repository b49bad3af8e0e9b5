import type { FastifyRequest } from 'fastify';
import { ShadowError } from '../errors.js';
import type { Shadow } from '../shadow.js';
import type { PageRoute } from './page-route.js';
import * as z from 'zod/mini';
import { DRAFT_PARAM, inputSchema, parseOr } from './route-schema.js';
import { PAGE_DIFF, PAGE_DRAFT, PAGE_DRAFTS, TIMELINE } from './answer-schemas.js';
import { maskSecretsIn } from '../core/secret-scan.js';

/**
 * What the review page reads (`GET /ui/api/…`): the drafts, one draft's
 * state and decisions, its timeline, its diff. Each answer is built from the
 * library's own calls (draftList, draftShow, review, status, log, events,
 * diff), so the page shows what the CLI shows; every diff has its secrets
 * masked as `shadow review` masks them, and so has every answer's text (a
 * batch's intent, an actor, a checkpoint's message).
 */

type LedgerEvent = Awaited<ReturnType<Shadow['events']>>[number];
type Named = FastifyRequest<{ Params: { name: string }; Querystring: Record<string, string | undefined> }>;

/** How many batches a draft's row reads for its actors: the newest, enough for a list. */
const ACTOR_BATCHES = 200;
/** A diff bigger than this many changed lines is sent without its patches: the page offers the list and the CLI. */
const PAGE_DIFF_LINES = 20_000;
/** Diffs answered lately, by what they are a function of: a reload, a second page, a change of format ask again for the same. */
const DIFF_CACHE_ENTRIES = 8;

/** The drafts, as the page's list shows them. */
export async function draftRows(sh: Shadow): Promise<unknown[]> {
  const rows = [];
  for (const d of await sh.draftList()) {
    const log = await sh.log({ draft: d.name, limit: ACTOR_BATCHES });
    const review = await sh.review({ draft: d.name });
    rows.push({
      name: d.name,
      status: d.status,
      batches: d.batches,
      actors: [...new Set(log.map((b) => b.actor))].sort(),
      last_change: log[0]?.time ?? d.created_at,
      pending_approvals: review.approvals.filter((a) => a.status === 'pending').length,
    });
  }
  return rows;
}

/** One line of a ledger event, for the timeline; a batch says which paths it captured from the working tree first (`captured`, from the log). */
function describe(e: LedgerEvent, captured: ReadonlyMap<number, string[]>): string {
  const d = e.data;
  const s = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
  switch (e.type) {
    case 'batch/commit': {
      const ops = Array.isArray(d.ops) ? d.ops.length : 0;
      const took = typeof d.batch === 'number' ? (captured.get(d.batch) ?? []) : [];
      const capture =
        took.length === 0
          ? ''
          : `; captured ${took.length > 3 ? `${took.length} paths` : took.join(', ')} from the working tree first`;
      return `batch ${s(d.batch)}${d.intent ? `: ${s(d.intent)}` : ''} (${ops} operation${ops === 1 ? '' : 's'})${capture}`;
    }
    case 'checkpoint':
      return `checkpoint ${s(d.name)}${d.batch !== null && d.batch !== undefined ? ` at batch ${s(d.batch)}` : ''}`;
    case 'rollback':
      return `rolled back to ${s(d.target)}`;
    case 'apply/complete':
      return `applied ${s(d.written)} file${d.written === 1 ? '' : 's'}${Array.isArray(d.conflicts) && d.conflicts.length > 0 ? ` (${d.conflicts.length} with conflict markers)` : ''}`;
    case 'apply/revert':
      return 'unapplied the last apply';
    case 'approval/request':
      return `approval asked: ${s(d.kind)} (${s(d.id)})`;
    case 'approval/decision':
      return `${d.decision === 'deny' ? 'denied' : 'approved'} ${s(d.kind)} (${s(d.id)})${d.reason ? `: ${s(d.reason)}` : ''}`;
    case 'tx/status':
      return `status ${s(d.from)} → ${s(d.to)}`;
    case 'rebase':
      return `rebased onto ${s(d.onto).slice(0, 12)}`;
    case 'draft/open':
      return 'draft opened';
    default:
      return e.type;
  }
}

/** The commits a range's two ends name now (a checkpoint or `~1` moves with the draft; the commits do not). */
async function rangeCommits(sh: Shadow, draft: string, range: string): Promise<string> {
  const d = await sh.diff({ draft, range, content: 'none' });
  return `${d.from}..${d.to}`;
}

// Only renames is refused; a range the library cannot read answers its own error.
const DiffQuery = z.looseObject({
  renames: z.optional(
    z.enum(['0', '1']).check(z.describe('0 to leave renames unpaired; 1, the default, pairs them as git diff -M')),
  ),
  range: z.optional(
    z.string().check(z.describe('a..b: two points of the draft; empty or absent for the diff against the bases')),
  ),
});

export function registerPageReads(route: PageRoute, sh: Shadow): void {
  route(
    'GET',
    '/ui/api/drafts',
    { summary: 'The drafts, as the page lists them', ok: PAGE_DRAFTS, errors: [] },
    async (_req, reply) => reply.send(maskSecretsIn({ drafts: await draftRows(sh) })),
  );

  // One draft: its state, what apply needs decided, and the points a diff can span.
  route(
    'GET',
    '/ui/api/drafts/:name',
    {
      summary: 'One draft: its state, its decisions, its checkpoints and batches',
      params: DRAFT_PARAM,
      ok: PAGE_DRAFT,
      errors: [404],
    },
    async (req, reply) => {
      const draft = (req as Named).params.name;
      const [show, review, status, checkpoints, batches] = [
        await sh.draftShow({ draft }),
        await sh.review({ draft }),
        await sh.status({ draft }),
        await sh.checkpoints({ draft }),
        await sh.log({ draft }),
      ];
      const { diff: _diff, ...decisions } = review;
      return reply.send(
        maskSecretsIn({
          draft: show,
          review: decisions,
          drifted: status.drifted,
          checkpoints,
          batches: batches.map((b) => ({
            batch: b.batch,
            commit: b.commit,
            actor: b.actor,
            actor_type: b.actor_type,
            model: b.model,
            time: b.time,
            intent: b.intent,
          })),
        }),
      );
    },
  );

  // Who did what, when: the ledger, each event with a line to show.
  route(
    'GET',
    '/ui/api/drafts/:name/timeline',
    { summary: "The draft's ledger, an event a line", params: DRAFT_PARAM, ok: TIMELINE, errors: [404] },
    async (req, reply) => {
      const draft = (req as Named).params.name;
      const events = await sh.events({ draft });
      const captured = new Map((await sh.log({ draft })).map((b) => [b.batch, b.captured]));
      // The ledger masks what it keeps; events joined from another machine's older ledger may not have been.
      return reply.send(
        maskSecretsIn({
          draft,
          events: events.map((e) => ({
            seq: e.seq,
            ts: e.ts,
            type: e.type,
            actor: e.actor,
            what: describe(e, captured),
            ...(e.origin ? { via: e.origin.remote } : {}),
          })),
        }),
      );
    },
  );

  // The diff against the bases (no range) or between two points (`range=a..b`), renames paired unless `renames=0`.
  const diffs = new Map<string, unknown>();
  const diff = {
    summary: "The draft's diff against its bases, or between two points, secrets masked",
    params: DRAFT_PARAM,
    query: inputSchema(DiffQuery),
    ok: PAGE_DIFF,
    errors: [400, 404],
  };
  route('GET', '/ui/api/drafts/:name/diff', diff, async (req, reply) => {
    const { params, query } = req as Named;
    const refused = (): ShadowError =>
      new ShadowError('INVALID_ARGUMENT', 'renames is 0 or 1', {
        hint: 'leave it out to pair renames as git diff -M does',
      });
    parseOr(z.pick(DiffQuery, { renames: true }), query, refused);
    const renames = query.renames !== '0';
    const range = query.range === undefined || query.range === '' ? undefined : query.range;
    // A diff is a function of its two sides: two commits (a range: each end resolved to its commit now), or the
    // publish set against the bases (the review fingerprint hashes each path's old and new entry, and the tip).
    // The diff against the bases says which state it shows: the page sends that back with its decisions.
    const seen = range === undefined ? (await sh.review({ draft: params.name })).review_fingerprint : undefined;
    const key = seen !== undefined ? `bases ${seen}` : `range ${await rangeCommits(sh, params.name, range!)}`;
    const cacheKey = `${params.name}\0${key}\0${renames}`;
    const cached = diffs.get(cacheKey);
    if (cached) return reply.send(cached);
    // One pass: the patches carry their line counts (a diff too large to draw is dropped after, a rare cost).
    const full = await sh.diff({ draft: params.name, range, content: 'patch', renames, redact: true });
    const lines = full.files.reduce((n, f) => n + (f.insertions ?? 0) + (f.deletions ?? 0), 0);
    const tooLarge = lines > PAGE_DIFF_LINES;
    let patch = '';
    const files = full.files.map(({ patch: p, ...f }) => {
      if (p !== undefined && !tooLarge) patch += p;
      return f;
    });
    const answer = {
      draft: params.name,
      range: range ?? null,
      from: full.from ?? null,
      to: full.to ?? null,
      files,
      patch,
      too_large: tooLarge,
      lines,
      ...(seen ? { review_fingerprint: seen } : {}),
    };
    diffs.delete(cacheKey);
    diffs.set(cacheKey, answer);
    if (diffs.size > DIFF_CACHE_ENTRIES) diffs.delete(diffs.keys().next().value!);
    return reply.send(answer);
  });
}
