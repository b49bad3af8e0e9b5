import { PassThrough } from 'node:stream';
import type { Shadow } from '../shadow.js';
import type { PageRoute } from './page-route.js';
import { EVENT_STREAM } from './answer-schemas.js';

/**
 * The review page's live updates: `GET /ui/api/live` is a server-sent event
 * stream of every draft's ledger, so a batch an agent makes, in this process
 * or any other (a CLI, another server, a plan), appears without a reload.
 *
 * The ledgers are watched by polling their size while at least one page
 * listens (every LIVE_POLL_MS, a stat per draft, the draft list every
 * fourth tick), not with file-system events: a ledger is appended by other
 * processes, on file systems where inotify says nothing (network mounts,
 * containers' bind mounts), and a stat per draft is cheap. Events:
 * `ready` (to each page once the ledgers' places are taken, with the newest
 * event of each draft: it reads the state it shows then), `ledger` (one per new ledger line: draft, seq, type,
 * actor, ts) and `drafts` (a draft appeared or went away).
 */

export const LIVE_POLL_MS = 250;
/** A comment line now and then keeps proxies and the browser from timing the stream out. */
const KEEPALIVE_MS = 15_000;

type Listener = (event: string, data: unknown) => void;

interface Watched {
  size: number;
  seq: number;
}

class LedgerFeed {
  private readonly listeners = new Set<Listener>();
  private readonly watched = new Map<string, Watched>();
  private timer: NodeJS.Timeout | undefined;
  private ticks = 0;
  private polling = false;
  private firstLook: Promise<void> = Promise.resolve();

  constructor(private readonly sh: Shadow) {}

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    if (!this.timer) {
      this.firstLook = this.poll(true);
      this.timer = setInterval(() => void this.poll(false), LIVE_POLL_MS);
      this.timer.unref();
    }
    // Once the ledgers' places are recorded: every event after this reaches the listener.
    void this.firstLook.then(() => {
      if (this.listeners.has(listener))
        listener('ready', { seen: Object.fromEntries([...this.watched].map(([name, w]) => [name, w.seq])) });
    });
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  private emit(event: string, data: unknown): void {
    for (const l of this.listeners) l(event, data);
  }

  private size(draft: string): number {
    try {
      return this.sh.context.fs.statSync(this.sh.eventsPath({ draft })).size;
    } catch {
      return 0;
    }
  }

  /** One look: new drafts, gone drafts, ledgers that grew. The first look only records where each ledger stands. */
  private async poll(first: boolean): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      if (first || this.ticks++ % 4 === 0) {
        const names = new Set((await this.sh.draftList()).map((d) => d.name));
        let changed = false;
        for (const name of names) {
          if (this.watched.has(name)) continue;
          // Found at the first look: its ledger so far is the state a page reads. Found later: a new draft, all of it news.
          const last = first ? ((await this.sh.events({ draft: name })).at(-1)?.seq ?? 0) : 0;
          this.watched.set(name, { size: first ? this.size(name) : 0, seq: last });
          changed = true;
        }
        for (const name of [...this.watched.keys()]) {
          if (names.has(name)) continue;
          this.watched.delete(name);
          changed = true;
        }
        if (changed && !first) this.emit('drafts', { drafts: [...names].sort() });
      }
      for (const [name, w] of this.watched) {
        const size = this.size(name);
        if (size === w.size) continue;
        w.size = size;
        for (const e of await this.sh.events({ draft: name })) {
          if (e.seq <= w.seq) continue;
          w.seq = e.seq;
          this.emit('ledger', { draft: name, seq: e.seq, type: e.type, actor: e.actor, ts: e.ts });
        }
      }
    } catch (e) {
      // A draft dropped between the list and its read: the next look sees it gone.
      this.emit('problem', { message: (e as Error).message });
    } finally {
      this.polling = false;
    }
  }
}

export function registerPageLive(route: PageRoute, sh: Shadow): void {
  const feed = new LedgerFeed(sh);
  route(
    'GET',
    '/ui/api/live',
    { summary: "Every draft's ledger as it grows (server-sent events)", ok: EVENT_STREAM, errors: [] },
    async (req, reply) => {
      const stream = new PassThrough();
      const send = (event: string, data: unknown): void => {
        stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      };
      // A dropped stream is reopened after a second (the page reads its state again on `ready`).
      stream.write('retry: 1000\n\n');
      const unsubscribe = feed.subscribe(send);
      const keepalive = setInterval(() => stream.write(': keepalive\n\n'), KEEPALIVE_MS);
      keepalive.unref();
      req.raw.once('close', () => {
        clearInterval(keepalive);
        unsubscribe();
        stream.end();
      });
      return reply.type('text/event-stream; charset=utf-8').header('x-accel-buffering', 'no').send(stream);
    },
  );
}
