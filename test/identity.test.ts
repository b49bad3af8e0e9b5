import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { connect } from './helpers/mcp-client.js';

/*
 * Who wrote a batch: a person or an AI and its model, from --model and
 * --actor-type, SHADOW_MODEL and SHADOW_ACTOR_TYPE, an MCP client's name;
 * recorded as trailers git reads (Shadow-Actor-Type, Shadow-Model, and
 * Assisted-by: AGENT:MODEL for an AI), kept on the branch by apply --commit.
 */

const REF = 'refs/shadow/drafts/default';
const batch = (path: string, content: string): string =>
  JSON.stringify({ intent: 'work', operations: [{ operation: 'write', path, content }] });
const trailer = (repo: DiskRepo, key: string, rev = REF): string =>
  repo.git('log', '-1', `--format=%(trailers:key=${key},valueonly)`, rev).trim();

const test = suite('identity');

test('--model makes an AI batch: Shadow-Actor-Type ai, Shadow-Model, Assisted-by; apply --commit keeps them on the branch', () => {
  const repo = new DiskRepo({ 'README.md': 'hi\n' });
  try {
    const r = repo.shadow(['batch', '-', '--actor', 'claude code', '--model', 'anthropic/claude-sonnet-4-5'], {
      input: batch('a.txt', 'a\n'),
    });
    assert.is(r.status, 0, r.stderr);
    assert.is(trailer(repo, 'Shadow-Actor-Type'), 'ai');
    assert.is(trailer(repo, 'Shadow-Model'), 'anthropic/claude-sonnet-4-5');
    assert.is(trailer(repo, 'Assisted-by'), 'claude-code:anthropic/claude-sonnet-4-5');
    assert.is(trailer(repo, 'Shadow-Actor'), 'claude code');
    assert.match(repo.shadow(['log']).stdout, /claude code \(anthropic\/claude-sonnet-4-5\)/);
    assert.is(repo.shadow(['apply', '--commit']).status, 0);
    assert.is(trailer(repo, 'Assisted-by', 'HEAD'), 'claude-code:anthropic/claude-sonnet-4-5');
  } finally {
    repo.cleanup();
  }
});

test("a person by default: Shadow-Actor-Type human, no Assisted-by; SHADOW_MODEL makes an AI; shadow.trailer none leaves Assisted-by out; a capture is the person's", () => {
  const repo = new DiskRepo({ 'README.md': 'hi\n' });
  try {
    assert.is(repo.shadow(['batch', '-'], { input: batch('a.txt', 'a\n') }).status, 0);
    assert.is(trailer(repo, 'Shadow-Actor-Type'), 'human');
    assert.is(trailer(repo, 'Assisted-by'), '');
    repo.write('README.md', 'hi, said the person\n');
    assert.is(
      repo.shadow(['batch', '-'], { input: batch('README.md', 'hi\nmore\n'), env: { SHADOW_MODEL: 'openai/gpt-5' } })
        .status,
      0,
    );
    assert.is(trailer(repo, 'Assisted-by'), 'Test-User:openai/gpt-5');
    assert.is(trailer(repo, 'Shadow-Actor-Type', `${REF}~1`), 'human', "the capture of the person's change");
    assert.match(repo.git('log', '-1', '--format=%s', `${REF}~1`), /^capture/);
    repo.git('config', 'shadow.trailer', 'none');
    assert.is(repo.shadow(['batch', '-', '--model', 'x/y'], { input: batch('b.txt', 'b\n') }).status, 0);
    assert.is(trailer(repo, 'Assisted-by'), '');
    assert.is(trailer(repo, 'Shadow-Model'), 'x/y');
  } finally {
    repo.cleanup();
  }
});

test('bad identities: an actor type neither ai nor human, a model id too long or with a newline: refused, nothing written', async () => {
  const repo = new DiskRepo({ 'README.md': 'hi\n' });
  try {
    assert.is(repo.shadow(['batch', '-', '--actor-type', 'robot'], { input: batch('a.txt', 'a\n') }).status, 2);
    await withShadow(repo, async (sh) => {
      for (const [options, code] of [
        [{ actorType: 'robot' }, 'INVALID_ARGUMENT'],
        [{ model: 'm'.repeat(201) }, 'INVALID_ARGUMENT'],
        [{ model: 'a\nb' }, 'INVALID_ARGUMENT'],
      ] as const) {
        const r = await sh.batch(JSON.parse(batch('a.txt', 'a\n')), options);
        assert.is(r.success, false);
        assert.is(r.error?.code, code);
      }
    });
    assert.is(repo.ref(REF), undefined);
  } finally {
    repo.cleanup();
  }
});

test('an MCP client is an AI under its own name, with the model shadow mcp was given', async () => {
  const repo = new DiskRepo({ 'README.md': 'hi\n' });
  const mcp = await connect(repo, 'Claude Code', ['--model', 'anthropic/claude-opus-4']);
  try {
    const r = await mcp.call('batch_write', {
      intent: 'x',
      operations: [{ operation: 'write', path: 'm.txt', content: 'm\n' }],
    });
    assert.not.ok(r.isError, r.text);
    assert.is(trailer(repo, 'Shadow-Actor'), 'Claude Code');
    assert.is(trailer(repo, 'Shadow-Actor-Type'), 'ai');
    assert.is(trailer(repo, 'Assisted-by'), 'Claude-Code:anthropic/claude-opus-4');
  } finally {
    await mcp.close();
    repo.cleanup();
  }
});

test.run();
