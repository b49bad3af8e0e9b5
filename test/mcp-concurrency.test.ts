import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo } from './helpers/disk-repo.js';
import { commits, CONFLICT_CODES, connect, fsck, showAll, type Mcp } from './helpers/mcp-client.js';
import { codeOf, okJson } from './helpers/tool-outcome.js';

/*
 * Four `shadow mcp` clients on one draft at once: none of their batches is
 * lost, conflicts fail with a conflict code, the ledger stays a chain.
 */

/* ------------------------------------------------------------------------------------------------
 * Four clients on one draft at once.
 * ---------------------------------------------------------------------------------------------- */

const NAMES = ['claude', 'codex', 'cursor', 'gemini'];
const BATCHES = 25;

interface ConcCtx {
  repo: DiskRepo;
  clients: Mcp[];
  root: string;
  phase1Tip: string;
}

const Conc = suite<ConcCtx>('four MCP clients, one draft');
Conc.before(async (c) => {
  c.repo = new DiskRepo({
    'README.md': 'Hello\n',
    'shared/lines.txt': NAMES.map((n) => `${n}=0\n`).join(''),
    'shared/turn.txt': 'turn=0\n',
    'shared/claim.txt': 'unclaimed\n',
  });
  c.root = c.repo.ref('HEAD')!;
  c.clients = await Promise.all(NAMES.map((n) => connect(c.repo, n, ['--draft', 'conc'])));
});
Conc.after(async (c) => {
  await Promise.all(c.clients.map((m) => m.close()));
  c.repo.cleanup();
});

Conc('25 batches each, at once, on distinct files: 100 batch commits, none lost, each with its actor', async (c) => {
  const { repo, clients } = c;
  const results = await Promise.all(
    clients.map(async (m, i) => {
      const out: any[] = [];
      for (let j = 1; j <= BATCHES; j++) {
        out.push(
          okJson(
            await m.call('batch_write', {
              intent: `${NAMES[i]} ${j}`,
              operations: [
                { operation: 'write', path: `${NAMES[i]}/f${j}.txt`, content: `${NAMES[i]} wrote batch ${j}\n` },
              ],
            }),
          ),
        );
      }
      return out;
    }),
  );
  const all = results.flat();
  assert.is(all.length, 100);
  assert.equal(
    all.map((r) => r.batch).sort((a, b) => a - b),
    Array.from({ length: 100 }, (_, i) => i + 1),
  );
  const tip = repo.ref('refs/shadow/drafts/conc')!;
  c.phase1Tip = tip;
  assert.is(repo.git('rev-list', '--count', `${c.root}..${tip}`).trim(), '100');
  const log = commits(repo, `${c.root}..${tip}`);
  assert.equal(new Set(log.map((x) => x.oid)), new Set(all.map((r) => r.commit)));
  const perActor = new Map<string, number>();
  for (const x of log) {
    const [actor, j] = x.subject.split(' ') as [string, string];
    assert.ok(NAMES.includes(actor), x.subject);
    assert.is(x.trailers['Shadow-Actor'], actor, x.subject);
    assert.is(x.author, actor, x.subject);
    assert.is(x.trailers['Shadow-Draft'], 'conc');
    assert.ok(Number(j) >= 1 && Number(j) <= BATCHES);
    perActor.set(actor, (perActor.get(actor) ?? 0) + 1);
  }
  assert.equal(
    [...perActor.entries()].sort(),
    NAMES.map((n) => [n, BATCHES]),
  );
  // Every file, as native git reads it.
  const paths = NAMES.flatMap((n) => Array.from({ length: BATCHES }, (_, j) => `${n}/f${j + 1}.txt`));
  const contents = showAll(repo, tip, paths);
  for (const p of paths) {
    const [n, f] = p.split('/') as [string, string];
    assert.is(contents.get(p), `${n} wrote batch ${f.slice(1, -4)}\n`, p);
  }
  // And as each client reads another's files.
  for (let i = 0; i < clients.length; i++) {
    const other = NAMES[(i + 1) % NAMES.length]!;
    assert.is(
      (await clients[i]!.call('read_file', { path: `${other}/f${BATCHES}.txt` })).text,
      `${other}/f${BATCHES}.txt (from the draft): lines 1-1 of 1\n     1\t${other} wrote batch ${BATCHES}`,
    );
  }
  assert.is(repo.ref('refs/shadow/drafts/default'), undefined);
  fsck(repo);
});

Conc(
  'the same files at once: each batch lands or fails with a conflict code; the draft holds exactly what the landed batches say',
  async (c) => {
    const { repo, clients } = c;
    interface Landed {
      who: number;
      j: number;
      commit: string;
      turn: string;
    }
    const landed: Landed[] = [];
    const failures = new Map<string, number>();
    const values = NAMES.map(() => 0);
    await Promise.all(
      clients.map(async (m, i) => {
        for (let j = 1; j <= BATCHES; j++) {
          const operations: unknown[] = [
            // This client's own line: only it changes it, so the edit merges whoever moved the tip.
            {
              operation: 'edit',
              path: 'shared/lines.txt',
              old_content: `${NAMES[i]}=${values[i]}\n`,
              content: `${NAMES[i]}=${j}\n`,
            },
            // Everyone's counter: lands, is already there, or no longer matches.
            { operation: 'edit', path: 'shared/turn.txt', old_content: `turn=${j - 1}\n`, content: `turn=${j}\n` },
            // A whole-file write: conflicts with a write that landed while this batch was in flight.
            { operation: 'write', path: 'shared/last.txt', content: `${NAMES[i]} ${j}\n` },
          ];
          // One claim for four claimants: at most one lands.
          if (j === 1)
            operations.push({
              operation: 'edit',
              path: 'shared/claim.txt',
              old_content: 'unclaimed',
              content: `claimed by ${NAMES[i]}`,
            });
          const r = await m.call('batch_write', { intent: `shared ${NAMES[i]} ${j}`, operations });
          if (r.isError) {
            const code = codeOf(r);
            assert.ok(CONFLICT_CODES.includes(code), r.text.slice(0, 500));
            assert.match(r.text, /Nothing was written/);
            failures.set(code, (failures.get(code) ?? 0) + 1);
            continue;
          }
          const out = JSON.parse(r.text);
          assert.is(out.success, true);
          values[i] = j;
          landed.push({ who: i, j, commit: out.commit, turn: out.results[1].status });
        }
      }),
    );
    const failed = [...failures.values()].reduce((a, b) => a + b, 0);
    assert.is(landed.length + failed, 100);
    assert.ok(failed >= 3, `only ${failed} failures: three of the four claims must fail`);
    assert.ok(landed.length >= 1);

    // Native git: exactly the landed batches, each by its actor, nothing else.
    const tip = repo.ref('refs/shadow/drafts/conc')!;
    const log = commits(repo, `${c.phase1Tip}..${tip}`);
    assert.is(log.length, landed.length);
    assert.equal(new Set(log.map((x) => x.oid)), new Set(landed.map((l) => l.commit)));
    assert.equal(new Set(log.map((x) => x.subject)), new Set(landed.map((l) => `shared ${NAMES[l.who]} ${l.j}`)));
    for (const x of log) {
      const actor = x.subject.split(' ')[1]!;
      assert.is(x.trailers['Shadow-Actor'], actor);
      assert.is(x.author, actor);
    }
    const batchNumbers = log.map((x) => Number(x.trailers['Shadow-Batch']));
    assert.equal(
      [...batchNumbers].sort((a, b) => a - b),
      Array.from({ length: log.length }, (_, k) => 101 + k),
    );

    // The final content follows from the landed batches alone.
    const newest = log[0]!.subject.split(' ');
    const claims = landed.filter((l) => l.j === 1);
    assert.ok(claims.length <= 1, `${claims.length} claims landed`);
    const expected: Record<string, string> = {
      'shared/lines.txt': NAMES.map((n, i) => `${n}=${values[i]}\n`).join(''),
      'shared/turn.txt': `turn=${landed.filter((l) => l.turn === 'updated').length}\n`,
      'shared/last.txt': `${newest[1]} ${newest[2]}\n`,
      'shared/claim.txt': claims.length === 1 ? `claimed by ${NAMES[claims[0]!.who]}\n` : 'unclaimed\n',
    };
    const git = showAll(repo, tip, Object.keys(expected));
    for (const [path, text] of Object.entries(expected)) {
      assert.is(git.get(path), text, path);
      const lines = text.slice(0, -1).split('\n');
      const view = (await clients[0]!.call('read_file', { path })).text;
      assert.is(
        view,
        `${path} (from the draft): lines 1-${lines.length} of ${lines.length}\n${lines.map((l, k) => `${String(k + 1).padStart(6)}\t${l}`).join('\n')}`,
      );
    }
    // The working tree was never touched.
    assert.is(repo.git('status', '--porcelain'), '');
    fsck(repo);
  },
);

Conc('the ledger of the draft is an intact chain after four writers', ({ repo }) => {
  const r = repo.shadow(['events', '--verify', '--draft', 'conc']);
  assert.is(r.status, 0, r.stdout + r.stderr);
});

Conc.run();
