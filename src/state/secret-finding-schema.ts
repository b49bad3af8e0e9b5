import * as z from 'zod/mini';

/**
 * A secret finding as the caches and the proposal keep it (values already
 * masked). Files written before findings had a `where` read as `content`.
 */
export const SecretFindingSchema = z.object({
  rule: z.string(),
  description: z.string(),
  where: z._default(z.enum(['content', 'path', 'message', 'author', 'committer', 'checkpoint']), 'content'),
  path: z.string(),
  line: z.number(),
  redacted: z.string(),
});
