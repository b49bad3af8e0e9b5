import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Volume, createFsFromVolume } from 'memfs';
import { createHash } from 'node:crypto';
import type { FileSystem } from '../src/index.js';
import { appendEvent, readEvents, verifyLedger } from '../src/state/ledger.js';
import { toJsonSafe } from '../src/core/json-safe.js';
import { testContext, type TestContext } from './helpers/context.js';

const PATH = '/shadow/events.jsonl';

const Ledger = suite<{ ctx: TestContext; fs: FileSystem }>('ledger');
Ledger.before.each((c) => {
  const vol = new Volume();
  vol.mkdirSync('/shadow', { recursive: true });
  c.fs = createFsFromVolume(vol) as unknown as FileSystem;
  c.ctx = testContext(c.fs);
});

const add = (ctx: TestContext, type: string, data: Record<string, unknown> = {}) =>
  appendEvent(ctx, PATH, { type, draft: 'd', actor: 'tester', data }, 100);

Ledger('events chain: seq counts up, prev is the sha256 of the line before', async ({ ctx, fs }) => {
  await add(ctx, 'draft/open');
  await add(ctx, 'batch/commit', { batch: 1 });
  await add(ctx, 'tx/status', { from: 'open', to: 'proposed' });
  const lines = String(fs.readFileSync(PATH, 'utf8')).trimEnd().split('\n');
  const events = readEvents(ctx, PATH);
  assert.equal(
    events.map((e) => [e.seq, e.type]),
    [
      [1, 'draft/open'],
      [2, 'batch/commit'],
      [3, 'tx/status'],
    ],
  );
  assert.is(events[0]!.prev, null);
  for (let i = 1; i < lines.length; i++)
    assert.is(
      events[i]!.prev,
      createHash('sha256')
        .update(lines[i - 1]!)
        .digest('hex'),
    );
  assert.equal(verifyLedger(ctx, PATH), { ok: true, events: 3, sealed: 0 });
});

Ledger('a line edited by hand: verify names the first broken line', async ({ ctx, fs }) => {
  for (let i = 0; i < 5; i++) await add(ctx, 'batch/commit', { batch: i + 1 });
  const lines = String(fs.readFileSync(PATH, 'utf8')).split('\n');
  for (const [what, edit] of [
    ['a value changed', (l: string[]) => (l[2] = l[2]!.replace('"batch":3', '"batch":33'))],
    ['a line removed', (l: string[]) => l.splice(1, 1)],
    ['a line inserted', (l: string[]) => l.splice(3, 0, l[3]!)],
    ['garbage', (l: string[]) => (l[1] = 'not json at all')],
  ] as const) {
    const copy = [...lines];
    edit(copy);
    fs.writeFileSync(PATH, copy.join('\n'));
    const v = verifyLedger(ctx, PATH);
    assert.is(v.ok, false, what);
    assert.ok(v.broken && v.broken.line >= 2 && v.broken.line <= 5, `${what}: line ${v.broken?.line}`);
  }
});

Ledger(
  'a writer that crashed mid-line: the next append seals the torn line and the chain verifies',
  async ({ ctx, fs }) => {
    await add(ctx, 'draft/open');
    await add(ctx, 'batch/commit', { batch: 1 });
    fs.appendFileSync(PATH, '{"seq":3,"ts":"2026-11-22T12:00:00.000Z","type":"batch/co');
    const torn = verifyLedger(ctx, PATH);
    assert.is(torn.ok, false);
    assert.match(torn.broken!.reason, /torn/);
    const e = await add(ctx, 'batch/commit', { batch: 2 });
    const events = readEvents(ctx, PATH);
    assert.equal(
      events.map((x) => x.type),
      ['draft/open', 'batch/commit', 'ledger/seal', 'batch/commit'],
    );
    assert.is(e.seq, 4);
    const v = verifyLedger(ctx, PATH);
    assert.equal(v, { ok: true, events: 4, sealed: 1 });
  },
);

Ledger('a held lock: the append waits, then fails LOCKED, and nothing is appended', async ({ ctx, fs }) => {
  await add(ctx, 'draft/open');
  fs.writeFileSync(`${PATH}.lock`, '');
  try {
    await add(ctx, 'batch/commit');
    assert.unreachable();
  } catch (e) {
    assert.is((e as { code: string }).code, 'LOCKED');
  }
  assert.is(readEvents(ctx, PATH).length, 1);
});

Ledger('values JSON cannot hold are repaired, content never enters', async ({ ctx }) => {
  const cyc: Record<string, unknown> = { a: 1 };
  cyc.self = cyc;
  const e = await add(ctx, 'x', {
    nan: NaN,
    inf: Infinity,
    big: 12n,
    when: new Date(0),
    bytes: Buffer.from('secret content'),
    lone: 'a\ud800b',
    undef: undefined,
    fn: () => 1,
    cyc,
    list: [undefined, 1],
  });
  assert.equal(e.data, {
    nan: null,
    inf: null,
    big: '12',
    when: '1970-01-01T00:00:00.000Z',
    bytes: { bytes: 14 },
    lone: 'a\ufffdb',
    cyc: { a: 1, self: '[cycle]' },
    list: [null, 1],
  });
  assert.equal(readEvents(ctx, PATH)[0]!.data, e.data);
  assert.equal(toJsonSafe(new Map([[1, 'a']])), { 1: 'a' });
});

Ledger.run();
