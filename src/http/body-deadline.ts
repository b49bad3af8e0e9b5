import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long a request's body may take: `idleMs` without a byte, `bodyMs` from its headers to its last byte. */
export interface BodyLimits {
  idleMs: number;
  bodyMs: number;
}

export type BodyTimeout = 'idle' | 'total';

/**
 * Watch one request until its body has arrived, and call `expire` once when
 * no byte came for `idleMs` or the body is not complete `bodyMs` after the
 * headers. Bytes are counted on the socket rather than where a route reads
 * them, so a body nobody reads (node drains it after an early 401) is bound
 * too, and time the server spends on a complete request never counts.
 */
export function watchBody(
  req: IncomingMessage,
  limits: BodyLimits,
  now: () => number,
  expire: (why: BodyTimeout, socket: Socket) => void,
): { stop(): void } {
  const socket = req.socket;
  const start = now();
  let lastBytes = socket.bytesRead;
  let lastByteAt = start;
  // A quarter of the bound: a stalled body is cut between 1 and 1.25 times it.
  const timer = setInterval(check, Math.max(10, Math.floor(Math.min(limits.idleMs, limits.bodyMs) / 4)));
  timer.unref();
  socket.once('close', stop);
  return { stop };

  function stop(): void {
    clearInterval(timer);
    socket.off('close', stop);
  }

  function check(): void {
    if (req.complete || socket.destroyed) return stop();
    const t = now();
    if (socket.bytesRead !== lastBytes) {
      lastBytes = socket.bytesRead;
      lastByteAt = t;
    }
    const why: BodyTimeout | undefined =
      t - lastByteAt >= limits.idleMs ? 'idle' : t - start >= limits.bodyMs ? 'total' : undefined;
    if (why === undefined) return;
    stop();
    expire(why, socket);
  }
}
