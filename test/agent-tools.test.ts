import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import AjvModule from 'ajv/dist/2020.js';
import { draftForActor } from '../src/agent-tools/call-tool.js';
import { TOOLS, formatTools, inputJsonSchema, offeredTools, type JsonSchema } from '../src/agent-tools/definitions.js';
import { outputJsonSchema } from '../src/agent-tools/output-schemas.js';
import { refComponentProblem } from '../src/core/ref-component.js';
import { BAD_ARGS, BAD_BATCHES, GOOD } from './helpers/tool-payloads.js';

/*
 * The agent tools' definitions: the JSON Schemas the tools advertise,
 * checked with ajv (draft 2020-12) against the payloads a model sends, good
 * and bad; and the draft --draft-per-actor gives each actor.
 */

// ajv is CommonJS: node hands its module.exports to the default import, whose `default` is the class again.
const Ajv2020 = AjvModule.default;

/* ------------------------------------------------------------------------------------------------
 * Schemas: the JSON Schema of every tool, checked with ajv's draft 2020-12 validator.
 * ---------------------------------------------------------------------------------------------- */

type Validator = ((data: unknown) => boolean) & { errors?: unknown };

function validators(defs: unknown[]): Map<string, Validator> {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const out = new Map<string, Validator>();
  for (const d of defs as Array<{ name: string; inputSchema: JsonSchema }>) out.set(d.name, ajv.compile(d.inputSchema) as Validator);
  return out;
}

const Schemas = suite('tool definitions and their JSON Schemas');

Schemas('the tool list: apply only when allowed; names unique; every schema an object schema of draft 2020-12 that ajv compiles strictly', () => {
  const names = offeredTools().map((t) => t.name);
  assert.equal(names, [
    'batch_write', 'read_file', 'list_files', 'search', 'begin_write', 'append_content', 'finalize_write',
    'diff', 'log', 'status', 'checkpoint', 'rollback', 'rebase', 'revert', 'resolve', 'propose', 'apply_status',
  ]);
  assert.equal(offeredTools({ allowApply: true }).map((t) => t.name), [...names, 'apply']);
  assert.is(new Set(TOOLS.map((t) => t.name)).size, TOOLS.length);
  const ajv = new Ajv2020({ strict: true });
  for (const t of TOOLS) {
    const s = inputJsonSchema(t);
    assert.is(s.type, 'object', t.name);
    assert.is(s.additionalProperties, false, t.name);
    assert.is(s.$schema, undefined, t.name);
    assert.ok(t.description.length > 40, t.name);
    ajv.compile(s); // throws on anything that is not draft 2020-12
  }
  // Read tools say so; writing tools do not.
  const read = TOOLS.filter((t) => t.annotations.readOnlyHint).map((t) => t.name);
  assert.equal(read, ['read_file', 'list_files', 'search', 'diff', 'log', 'status', 'apply_status']);
  assert.is(TOOLS.find((t) => t.name === 'batch_write')!.annotations.destructiveHint, true);
  assert.is(TOOLS.find((t) => t.name === 'apply')!.annotations.destructiveHint, true);
});

Schemas('formatTools: the openai, anthropic and mcp shapes carry the same schemas', () => {
  const tools = offeredTools({ allowApply: true });
  const openai = formatTools('openai', tools) as any[];
  const anthropic = formatTools('anthropic', tools) as any[];
  const mcp = formatTools('mcp', tools) as any[];
  tools.forEach((t, i) => {
    const schema = inputJsonSchema(t);
    assert.equal(Object.keys(openai[i]).sort(), ['function', 'type']);
    assert.is(openai[i].type, 'function');
    assert.equal(openai[i].function, { name: t.name, description: t.description, parameters: schema });
    assert.equal(anthropic[i], { name: t.name, description: t.description, input_schema: schema });
    assert.equal(mcp[i], { name: t.name, title: t.annotations.title, description: t.description, inputSchema: schema, outputSchema: outputJsonSchema(t), annotations: t.annotations });
  });
  // The field descriptions reach the schema (a model reads them).
  const batch = inputJsonSchema(TOOLS[0]!) as any;
  assert.match(batch.properties.operations.description, /applied in order/);
  assert.match(batch.properties.intent.description, /commit message/);
});

Schemas('every tool\'s schema takes the payloads a model sends, the seed batch among them', () => {
  const v = validators(formatTools('mcp', offeredTools({ allowApply: true })));
  assert.equal([...v.keys()].sort(), Object.keys(GOOD).sort());
  for (const [name, payloads] of Object.entries(GOOD)) {
    for (const p of payloads) {
      const check = v.get(name)!;
      assert.ok(check(p), `${name} refused ${JSON.stringify(p)}: ${JSON.stringify(check.errors)}`);
    }
  }
});

Schemas('the batch_write schema refuses the batches the engine refuses: missing operations, unknown operation, missing content', () => {
  const check = validators(formatTools('mcp', offeredTools())).get('batch_write')!;
  for (const [what, batch] of BAD_BATCHES.filter(([w]) => !/path|\.\.|\.git/.test(w))) {
    assert.is(check(batch), false, `the schema took a batch with ${what}`);
  }
});

Schemas('the batch_write schema refuses unsafe paths: absolute, "..", .git (as the engine does)', () => {
  const check = validators(formatTools('mcp', offeredTools())).get('batch_write')!;
  const accepted = BAD_BATCHES.filter(([w]) => /path|\.\.|\.git/.test(w))
    .filter(([, batch]) => check(batch))
    .map(([what]) => what);
  assert.equal(accepted, [], `the advertised schema accepts batches the engine refuses: ${accepted.join(', ')}`);
});

Schemas('the other tools\' schemas refuse what the tools refuse', () => {
  const v = validators(formatTools('mcp', offeredTools()));
  for (const [name, args] of BAD_ARGS) assert.is(v.get(name)!(args), false, `${name} schema took ${JSON.stringify(args)}`);
});

Schemas.run();

const Names = suite('draftForActor (--draft-per-actor)');

Names('agent-<actor>, made a safe ref component; junk names become agent-anonymous', () => {
  const cases: Array<[string, string]> = [
    ['claude', 'agent-claude'],
    ['Claude Code', 'agent-claude-code'],
    ['Cursor Agent/2', 'agent-cursor-agent-2'],
    ['gpt-4.1', 'agent-gpt-4.1'],
    ['a..b', 'agent-a.b'],
    ['..', 'agent-anonymous'],
    ['', 'agent-anonymous'],
    ['@@@', 'agent-anonymous'],
    ['x'.repeat(100), `agent-${'x'.repeat(60)}`],
  ];
  for (const [actor, draft] of cases) {
    const got = draftForActor(actor);
    assert.is(got, draft, actor);
    assert.is(refComponentProblem(got), undefined, `${actor} -> ${got}`);
  }
  for (const odd of ['name.lock', 'a@{b}', 'x/.y', '-lead', 'trail.', 'ünïcödé', 'a\u0000b']) {
    const got = draftForActor(odd);
    assert.match(got, /^agent-/);
    assert.is(refComponentProblem(got), undefined, `${odd} -> ${got}`);
  }
});

Names.run();
