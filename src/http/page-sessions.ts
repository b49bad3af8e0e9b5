import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The review page's credentials, in memory for the server's life: one-time
 * login tokens (printed by `shadow serve` in a URL) and the browser sessions
 * they open. A session is a random cookie value and its CSRF token
 * (synchronizer token: the page reads it from a GET and sends it back in
 * `X-CSRF-Token` on every request that changes state).
 */

export interface PageSession {
  readonly id: string;
  readonly csrf: string;
}

/** How long a one-time login URL stays good: it is meant to be opened right away. */
export const ONCE_TTL_MS = 5 * 60 * 1000;

/** A session unused this long is over (a page left open overnight asks for a new URL: `shadow page`). */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;

function token(): string {
  return randomBytes(32).toString('base64url');
}

/** Equal strings, compared in constant time. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export class PageSessions {
  private readonly onces = new Map<string, number>();
  private readonly sessions = new Map<string, PageSession>();
  private readonly lastSeen = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    /** Tokens minted elsewhere (page-login-files.ts): spent through this when not one of this object's own. */
    private readonly redeemElsewhere: (once: string) => boolean = () => false,
    private readonly onceTtlMs = ONCE_TTL_MS,
    private readonly idleMs = SESSION_IDLE_MS,
  ) {}

  /** A new one-time login token, good for `onceTtlMs`. */
  mintOnce(): string {
    this.prune();
    const once = token();
    this.onces.set(once, this.now() + this.onceTtlMs);
    return once;
  }

  private spentListener: ((once: string) => void) | undefined;

  /** Be told of every token offered for redemption, good or not (it is spent either way). */
  onSpent(listener: (once: string) => void): void {
    this.spentListener = listener;
  }

  /** Spend a one-time token: a new session, or undefined when it is unknown, spent or expired (spent either way). */
  redeem(once: string): PageSession | undefined {
    const expires = this.onces.get(once);
    this.onces.delete(once);
    this.spentListener?.(once);
    const good = expires === undefined ? this.redeemElsewhere(once) : this.now() <= expires;
    if (!good) return undefined;
    const s: PageSession = { id: token(), csrf: token() };
    this.sessions.set(s.id, s);
    this.lastSeen.set(s.id, this.now());
    return s;
  }

  /** The session a cookie value names, unless it lay unused past `idleMs` (then it is over); using it keeps it. */
  session(id: string | undefined): PageSession | undefined {
    const s = id === undefined ? undefined : this.sessions.get(id);
    if (!s) return undefined;
    const now = this.now();
    if (now - this.lastSeen.get(s.id)! > this.idleMs) {
      this.end(s.id);
      return undefined;
    }
    this.lastSeen.set(s.id, now);
    return s;
  }

  end(id: string): void {
    this.sessions.delete(id);
    this.lastSeen.delete(id);
  }

  private prune(): void {
    const now = this.now();
    for (const [once, expires] of this.onces) if (now > expires) this.onces.delete(once);
  }
}
