import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import AjvModule from 'ajv/dist/2020.js';
import { draftForActor } from '../src/agent-tools/call-tool.js';
import { TOOLS, formatTools, inputJsonSchema, offeredTools, type JsonSchema } from '../src/agent-tools/definitions.js';
import { outputJsonSchema } from '../src/agent-tools/output-schemas.js';
import { PROFILES, parseProfiles, toolsFor } from '../src/agent-tools/profiles.js';
import { compileAll } from './helpers/tool-schemas.js';
import { refComponentProblem } from '../src/core/ref-component.js';
import { BAD_ARGS, BAD_BATCHES, GOOD } from './helpers/tool-payloads.js';
import { FILESYSTEM_TOOL_NAMES, SHADOW_TOOL_NAMES } from './helpers/tool-names.js';

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
  for (const d of defs as Array<{ name: string; inputSchema: JsonSchema }>)
    out.set(d.name, ajv.compile(d.inputSchema) as Validator);
  return out;
}

const Schemas = suite('tool definitions and their JSON Schemas');

Schemas(
  'the tool list: apply only when allowed; names unique; every schema an object schema of draft 2020-12 that ajv compiles strictly',
  () => {
    const names = offeredTools().map((t) => t.name);
    assert.equal(names, SHADOW_TOOL_NAMES);
    assert.equal(
      offeredTools({ allowApply: true }).map((t) => t.name),
      [...names, 'apply', 'unapply'],
    );
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
  },
);

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
    assert.equal(mcp[i], {
      name: t.name,
      title: t.annotations.title,
      description: t.description,
      inputSchema: schema,
      outputSchema: outputJsonSchema(t),
      annotations: t.annotations,
    });
  });
  // The field descriptions reach the schema (a model reads them).
  const batch = inputJsonSchema(TOOLS[0]!) as any;
  assert.match(batch.properties.operations.description, /applied in order/);
  assert.match(batch.properties.intent.description, /commit message/);
});

Schemas("every tool's schema takes the payloads a model sends, the seed batch among them", () => {
  const v = validators(formatTools('mcp', offeredTools({ allowApply: true })));
  assert.equal([...v.keys()].sort(), Object.keys(GOOD).sort());
  for (const [name, payloads] of Object.entries(GOOD)) {
    for (const p of payloads) {
      const check = v.get(name)!;
      assert.ok(check(p), `${name} refused ${JSON.stringify(p)}: ${JSON.stringify(check.errors)}`);
    }
  }
});

Schemas(
  'the batch_write schema refuses the batches the engine refuses: missing operations, unknown operation, missing content',
  () => {
    const check = validators(formatTools('mcp', offeredTools())).get('batch_write')!;
    for (const [what, batch] of BAD_BATCHES.filter(([w]) => !/path|\.\.|\.git/.test(w))) {
      assert.is(check(batch), false, `the schema took a batch with ${what}`);
    }
  },
);

Schemas('the batch_write schema refuses unsafe paths: absolute, "..", .git (as the engine does)', () => {
  const check = validators(formatTools('mcp', offeredTools())).get('batch_write')!;
  const accepted = BAD_BATCHES.filter(([w]) => /path|\.\.|\.git/.test(w))
    .filter(([, batch]) => check(batch))
    .map(([what]) => what);
  assert.equal(accepted, [], `the advertised schema accepts batches the engine refuses: ${accepted.join(', ')}`);
});

Schemas("the other tools' schemas refuse what the tools refuse", () => {
  const v = validators(formatTools('mcp', offeredTools()));
  for (const [name, args] of BAD_ARGS)
    assert.is(v.get(name)!(args), false, `${name} schema took ${JSON.stringify(args)}`);
});

Schemas.run();

const Profiles = suite('profiles: the shapes of tools served');

Profiles(
  'parseProfiles: default shadow, comma lists, all, in a fixed order; an unknown name is USAGE naming the choices',
  () => {
    assert.equal(parseProfiles(undefined), ['shadow']);
    assert.equal(parseProfiles(''), ['shadow']);
    assert.equal(parseProfiles('filesystem, anthropic'), ['anthropic', 'filesystem']);
    assert.equal(parseProfiles('all'), PROFILES);
    assert.equal(parseProfiles(['shadow', 'anthropic,shadow']), ['shadow', 'anthropic']);
    try {
      parseProfiles('shadow,vscode');
      assert.unreachable('vscode was taken');
    } catch (e) {
      assert.is((e as { code: string }).code, 'USAGE');
      assert.match((e as Error).message, /vscode/);
      assert.match((e as { hint: string }).hint, /shadow, anthropic, filesystem or all/);
    }
  },
);

Profiles(
  "toolsFor: shadow's set unchanged by default; the editor in both its names; the filesystem server's names; all of them with read_file served once, as shadow's",
  () => {
    assert.equal(toolsFor(['shadow']), offeredTools());
    assert.equal(
      toolsFor(['anthropic']).map((t) => t.name),
      ['str_replace_based_edit_tool', 'str_replace_editor'],
    );
    assert.equal(
      toolsFor(['filesystem']).map((t) => t.name),
      FILESYSTEM_TOOL_NAMES,
    );
    const all = toolsFor(PROFILES, { allowApply: true });
    assert.equal(
      all.map((t) => t.name),
      [
        ...offeredTools({ allowApply: true }).map((t) => t.name),
        'str_replace_based_edit_tool',
        'str_replace_editor',
        ...FILESYSTEM_TOOL_NAMES.filter((n) => n !== 'read_file'),
      ],
    );
    assert.is(all.find((t) => t.name === 'read_file')!.profile, undefined);
    assert.is(new Set(all.map((t) => t.name)).size, all.length);
  },
);

Profiles(
  'every tool of every profile: MCP hints, a strict object input schema and an output schema of type object that takes the error shape, compiled by ajv strictly',
  () => {
    const compiled = compileAll();
    for (const profile of PROFILES) {
      for (const t of toolsFor([profile], { allowApply: true })) {
        const key = `${profile}:${t.name}`;
        assert.ok(compiled.has(key), key);
        assert.equal(
          Object.keys(t.annotations).sort(),
          ['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint', 'title'],
          key,
        );
        assert.ok(t.annotations.title.length > 0, key);
        assert.ok(!(t.annotations.readOnlyHint && t.annotations.destructiveHint), key);
        assert.ok(t.description.length > 40, key);
        const input = inputJsonSchema(t);
        assert.is(input.type, 'object', key);
        assert.is(input.additionalProperties, false, key);
        const output = outputJsonSchema(t);
        assert.is(output.type, 'object', key);
        const { output: check } = compiled.get(key)!;
        assert.ok(
          check({ error: { code: 'NOT_FOUND', message: 'gone', hint: 'look', data: { path: 'x' } } }),
          `${key}: ${JSON.stringify(check.errors)}`,
        );
        assert.not.ok(check({ error: { message: 'no code' } }), key);
      }
    }
    const fs = new Map(toolsFor(['filesystem']).map((t) => [t.name, t.annotations]));
    assert.equal(
      FILESYSTEM_TOOL_NAMES.filter((n) => fs.get(n)!.readOnlyHint),
      [
        'read_text_file',
        'read_file',
        'read_media_file',
        'read_multiple_files',
        'list_directory',
        'list_directory_with_sizes',
        'directory_tree',
        'search_files',
        'get_file_info',
        'list_allowed_directories',
      ],
    );
    assert.equal(
      ['write_file', 'edit_file', 'move_file'].map((n) => fs.get(n)!.destructiveHint),
      [true, true, true],
    );
    assert.equal(
      ['write_file', 'create_directory', 'edit_file'].map((n) => fs.get(n)!.idempotentHint),
      [true, true, false],
    );
    // The filesystem server's result is { content }; the editor's names its command and path.
    assert.ok(compiled.get('filesystem:write_file')!.output({ content: 'Successfully wrote to a' }));
    assert.not.ok(compiled.get('filesystem:write_file')!.output({}));
    assert.ok(
      compiled
        .get('anthropic:str_replace_based_edit_tool')!
        .output({ command: 'view', path: 'a', kind: 'file', start_line: 1 }),
    );
    assert.ok(
      compiled
        .get('shadow:batch_write')!
        .output({ success: true, draft: 'default', batch: 1, commit: 'abc', results: [] }),
    );
    assert.ok(
      compiled.get('shadow:batch_write')!.output({
        success: false,
        draft: 'default',
        batch: null,
        commit: null,
        results: [],
        error: { code: 'INVALID_BATCH', message: 'x' },
      }),
    );
  },
);

Profiles(
  "the input schemas take what those clients send: Anthropic's editor commands, the filesystem server's arguments",
  () => {
    const compiled = compileAll();
    const editor = compiled.get('anthropic:str_replace_based_edit_tool')!.input;
    for (const args of [
      { command: 'view', path: '/repo/a.py', view_range: [1, -1] },
      { command: 'create', path: 'a.py', file_text: '' },
      { command: 'str_replace', path: 'a.py', old_str: 'a', new_str: 'b' },
      { command: 'insert', path: 'a.py', insert_line: 0, insert_text: 'x' },
      { command: 'insert', path: 'a.py', insert_line: 3, new_str: 'x' },
    ])
      assert.ok(editor(args), `${JSON.stringify(args)}: ${JSON.stringify(editor.errors)}`);
    // undo_edit is text_editor_20250124's (str_replace_editor); text_editor_20250728 has none.
    assert.not.ok(editor({ command: 'undo_edit', path: 'a.py' }));
    assert.ok(compiled.get('anthropic:str_replace_editor')!.input({ command: 'undo_edit', path: 'a.py' }));
    for (const args of [
      { command: 'delete', path: 'a' },
      { command: 'view' },
      { command: 'view', path: 'a', view_range: [1] },
      { command: 'insert', path: 'a', insert_line: -1, insert_text: 'x' },
    ]) {
      assert.not.ok(editor(args), JSON.stringify(args));
    }
    const fs = (name: string, args: unknown): boolean => compiled.get(`filesystem:${name}`)!.input(args);
    assert.ok(fs('read_text_file', { path: '/a', head: 10 }));
    assert.ok(fs('edit_file', { path: 'a', edits: [{ oldText: 'x', newText: 'y' }], dryRun: true }));
    assert.ok(fs('search_files', { path: '.', pattern: '**/*.ts', excludePatterns: ['node_modules'] }));
    assert.ok(fs('move_file', { source: 'a', destination: 'b' }));
    assert.ok(fs('list_allowed_directories', {}));
    assert.not.ok(fs('edit_file', { path: 'a', edits: [{ old_text: 'x', new_text: 'y' }] }));
    assert.not.ok(fs('read_multiple_files', { paths: [] }));
  },
);

Profiles(
  "formatTools anthropic: the editor as the API's own tool type (schema-less there), the others with their schemas",
  () => {
    const defs = formatTools('anthropic', toolsFor(['anthropic', 'filesystem'])) as any[];
    assert.equal(defs.slice(0, 2), [
      { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
      { type: 'text_editor_20250124', name: 'str_replace_editor' },
    ]);
    assert.equal(Object.keys(defs[2]).sort(), ['description', 'input_schema', 'name']);
  },
);

Profiles.run();

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
