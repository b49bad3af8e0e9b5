/** How a batch that lost the race for its draft's ref tries again (batch.ts). */

/**
 * A batch that keeps losing the race for its draft's ref gives up (BUSY)
 * once it has made this many attempts and tried for `shadow.lockTimeout`,
 * or after HARD_MAX_ATTEMPTS at the most: under heavy contention a count
 * alone gave up within a second while the others were still landing.
 */
export const MAX_ATTEMPTS = 25;
export const HARD_MAX_ATTEMPTS = 1000;
/** The longest pause between two attempts of a batch (ms). */
const MAX_RETRY_PAUSE_MS = 50;

/** A pause before attempt `attempt + 1`: random (from `token`, hex) up to 2^attempt ms, at most MAX_RETRY_PAUSE_MS. */
export function retryPause(attempt: number, token: string): number {
  const u = parseInt(token.slice(0, 4), 16) / 0xffff;
  return Math.floor(u * Math.min(2 ** attempt, MAX_RETRY_PAUSE_MS));
}

