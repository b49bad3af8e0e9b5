import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { ShadowError } from '../errors.js';
import type { BatchInput } from '../drafts/batch/ops.js';
import { describeIssues, FileOperationSchema, parseJsonText } from '../drafts/batch/batch-schema.js';

/**
 * Plan files: `{"id"?, "intent"?, "batches": [{"id": 1, "intent"?, "operations": [...]}, …]}`,
 * or JSON Lines with one batch a line. Validated whole before anything runs.
 */

const PlanBatchSchema = z.strictObject({
  id: z.number().check(z.int(), z.positive()),
  intent: z.optional(z.string().check(z.maxLength(10_000))),
  actor: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  operations: z.array(FileOperationSchema).check(z.minLength(1)),
});

const PlanSchema = z.strictObject({
  id: z.optional(z.string().check(z.minLength(1), z.maxLength(200), z.regex(/^[A-Za-z0-9._-]+$/))),
  intent: z.optional(z.string().check(z.maxLength(10_000))),
  batches: z.array(PlanBatchSchema).check(z.minLength(1)),
});

export interface PlanBatch extends BatchInput {
  id: number;
}

export interface Plan {
  /** The plan's id: given in the file, else `plan-` and the start of its fingerprint. */
  id: string;
  intent?: string;
  batches: PlanBatch[];
  /** sha256 of the plan's content: resume refuses a plan file that changed. */
  fingerprint: string;
  /** Whether the file named the id (a derived id changes with the content). */
  idGiven: boolean;
}

function invalid(problems: Array<{ path: string; message: string }>): ShadowError {
  const noun = problems.length === 1 ? 'problem' : 'problems';
  return new ShadowError(
    'INVALID_PLAN',
    `the plan is invalid (${problems.length} ${noun}), nothing was run: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
    {
      hint: 'fix every listed batch; batch ids run 1, 2, 3… in order',
      data: { problems },
    },
  );
}

/** Parse plan text (JSON, or JSON Lines of batches), validating every batch. */
export function parsePlan(text: string): Plan {
  const trimmed = text.trim();
  let doc: unknown;
  if (trimmed.startsWith('{') && !/\}\s*\n\s*\{/.test(trimmed)) {
    doc = parseJsonText(trimmed, 'plan');
    // One line of JSON Lines: a single batch, not a plan document.
    if (doc !== null && typeof doc === 'object' && !Array.isArray(doc) && !('batches' in doc) && 'operations' in doc)
      doc = { batches: [doc] };
  } else {
    const batches = trimmed
      .split('\n')
      .map((l, i) => ({ l: l.trim(), i }))
      .filter(({ l }) => l !== '')
      .map(({ l, i }) => {
        try {
          return parseJsonText(l, `plan line ${i + 1}`);
        } catch (e) {
          throw invalid([{ path: `line ${i + 1}`, message: (e as Error).message }]);
        }
      });
    doc = { batches };
  }
  const r = PlanSchema.safeParse(doc);
  if (!r.success) {
    const problems = describeIssues(r.error.issues, doc).map((p) => {
      const m = /^batches\[(\d+)\](.*)$/.exec(p.path);
      const batches = (doc as { batches?: Array<{ id?: unknown }> }).batches;
      const id = m ? batches?.[Number(m[1])]?.id : undefined;
      return m ? { path: `batch ${id ?? `#${Number(m[1]) + 1}`}${m[2]}`, message: p.message } : p;
    });
    throw invalid(problems);
  }
  const plan = r.data;
  const problems: Array<{ path: string; message: string }> = [];
  plan.batches.forEach((b, i) => {
    if (b.id !== i + 1)
      problems.push({
        path: `batches[${i}].id`,
        message: `is ${b.id}; batch ids run 1..n in order, so this one must be ${i + 1}`,
      });
  });
  if (problems.length > 0) throw invalid(problems);
  const fingerprint = createHash('sha256').update(JSON.stringify(plan)).digest('hex');
  const out: Plan = {
    id: plan.id ?? `plan-${fingerprint.slice(0, 12)}`,
    batches: plan.batches as PlanBatch[],
    fingerprint,
    idGiven: plan.id !== undefined,
  };
  if (plan.intent !== undefined) out.intent = plan.intent;
  return out;
}
