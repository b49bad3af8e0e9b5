import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import AjvModule from 'ajv/dist/2020.js';
import { formatTools, offeredTools } from '../src/agent-tools/definitions.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { TOOL_NAMES } from './helpers/mcp-client.js';

/*
 * `shadow tools --format openai|anthropic|mcp`: the tool definitions an
 * agent's runtime is given, and their schemas checked with ajv.
 */

const Ajv2020 = AjvModule.default;

/* ------------------------------------------------------------------------------------------------
 * shadow tools --format openai|anthropic|mcp
 * ---------------------------------------------------------------------------------------------- */

const Tools = suite<{ repo: DiskRepo }>('shadow tools');
Tools.before((c) => {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n' });
});
Tools.after((c) => c.repo.cleanup());

Tools('--format openai: [{type: "function", function: {name, description, parameters}}], exit 0', ({ repo }) => {
  const r = repo.shadow(['tools', '--format', 'openai']);
  assert.is(r.status, 0, r.stderr);
  const defs = r.json() as any[];
  assert.equal(defs, formatTools('openai', offeredTools()));
  assert.equal(
    defs.map((d) => d.function.name),
    TOOL_NAMES,
  );
  for (const d of defs) {
    assert.equal(Object.keys(d).sort(), ['function', 'type']);
    assert.is(d.type, 'function');
    assert.equal(Object.keys(d.function).sort(), ['description', 'name', 'parameters']);
    assert.is(d.function.parameters.type, 'object');
  }
});

Tools('--format anthropic: [{name, description, input_schema}], exit 0; --allow-apply adds apply', ({ repo }) => {
  const r = repo.shadow(['tools', '--format', 'anthropic']);
  assert.is(r.status, 0, r.stderr);
  const defs = r.json() as any[];
  assert.equal(defs, formatTools('anthropic', offeredTools()));
  for (const d of defs) {
    assert.equal(Object.keys(d).sort(), ['description', 'input_schema', 'name']);
    assert.is(d.input_schema.type, 'object');
  }
  const withApply = repo.shadow(['tools', '--format', 'anthropic', '--allow-apply']);
  assert.is(withApply.status, 0);
  assert.equal(
    (withApply.json() as any[]).map((d) => d.name),
    [...TOOL_NAMES, 'apply', 'unapply'],
  );
});

Tools('a bad --format exits 2 and prints no definitions', ({ repo }) => {
  const r = repo.shadow(['tools', '--format', 'gemini']);
  assert.is(r.status, 2);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /gemini/);
});

Tools(
  'the printed mcp schemas (ajv, draft 2020-12) take the seed batch and refuse what the engine refuses',
  ({ repo }) => {
    const r = repo.shadow(['tools', '--format', 'mcp']);
    assert.is(r.status, 0, r.stderr);
    const defs = r.json() as any[];
    assert.equal(defs, formatTools('mcp', offeredTools()));
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    const check = new Map(defs.map((d) => [d.name as string, ajv.compile(d.inputSchema)]));
    const batch = check.get('batch_write')!;
    const seed = {
      operations: [
        { operation: 'write', path: 'src/hello.ts', content: 'export const hi = 1\n' },
        { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, world' },
        { operation: 'delete', path: 'old.txt' },
      ],
    };
    assert.ok(batch(seed), JSON.stringify(batch.errors));
    assert.ok(check.get('read_file')!({ path: 'README.md', start_line: 1, end_line: 10 }));
    assert.ok(check.get('begin_write')!({ target_file: 'a.md', operation: 'create' }));
    assert.ok(check.get('status')!({}));
    const refused = (b: unknown): boolean => !batch(b);
    assert.ok(refused({}), 'missing operations');
    assert.ok(refused({ operations: [{ operation: 'frobnicate', path: 'a.txt' }] }), 'unknown operation');
    assert.ok(refused({ operations: [{ operation: 'write', path: 'a.txt' }] }), 'missing content');
    const unsafe = ['/etc/passwd', '../outside.txt', '.git/x'].filter(
      (p) => !refused({ operations: [{ operation: 'write', path: p, content: 'x' }] }),
    );
    assert.equal(unsafe, [], `the printed schema accepts these paths: ${unsafe.join(', ')}`);
  },
);

Tools.run();
