import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import yargs from 'yargs';
import { COMMANDS, commandName } from '../cli/command-table.js';
import { COMMAND_TASKS } from '../cli/command-tasks.js';
import { commandDocs } from '../cli/reference/command-doc.js';
import { COMMAND_ERRORS, COMMAND_EXITS, COMMON_ERRORS } from '../cli/reference/command-errors.js';
import { EXAMPLES } from '../cli/reference/command-examples.js';
import { cliReference, REGENERATE } from '../cli/reference/markdown.js';

/**
 * The command reference (docs/cli.md) is made from the command table and
 * stays what the table makes (as jj's test_generate_md_cli_help.rs keeps
 * jj's); what the table says beside the builders (tasks, error codes,
 * examples, exit statuses) names only commands the table holds and codes
 * shadow has and raises.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const paths = (): string[] =>
  COMMANDS.flatMap((e) => ('commands' in e ? e.commands.map((c) => `${e.name} ${commandName(c)}`) : [commandName(e)]));

const Reference = suite('the generated command reference');

Reference('docs/cli.md is what the command table generates', () => {
  const committed = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
  const generated = cliReference();
  if (committed !== generated) {
    const a = committed.split('\n');
    const b = generated.split('\n');
    const line = a.findIndex((l, i) => l !== b[i]);
    const where = `first at line ${line + 1}:\n  committed: ${a[line]}\n  generated: ${b[line]}`;
    assert.unreachable(
      `docs/cli.md differs from what the command table generates (${where})\nrun \`${REGENERATE}\` and commit docs/cli.md`,
    );
  }
});

Reference('every command has its section, synopsis, exit statuses and error codes, in the order of its task', () => {
  const md = cliReference();
  const docs = commandDocs();
  assert.equal(docs.map((d) => d.path).sort(), paths().sort(), 'one doc per command of the table');
  let at = 0;
  for (const d of docs) {
    const i = md.indexOf(`\n### shadow ${d.path}\n`, at);
    assert.ok(i > at, `the section of ${d.path}, after the one before it`);
    at = i;
    const next = md.indexOf('\n### ', i + 1);
    const section = md.slice(i, next === -1 ? undefined : next);
    assert.ok(section.includes(`\n${d.synopsis}\n`), `${d.path}: its synopsis`);
    assert.ok(d.synopsis.startsWith(`shadow ${d.path}`), d.synopsis);
    assert.match(section, /\*\*Exit status:\*\* `0` ok/);
    for (const code of d.errors) assert.ok(section.includes(`\`${code}\``), `${d.path}: ${code}`);
    for (const e of d.examples) assert.ok(section.includes(`\n${e}\n`), `${d.path}: example ${e}`);
  }
  assert.match(
    md,
    /\| `--sandbox <read-only\\\|workspace-write>` \| override shadow\.sandbox \|/,
    'a choice list is escaped inside a table',
  );
  assert.match(md, /`3` approvals pending/, "apply's own exit status");
});

Reference('the options are read from each builder: the same names and aliases yargs registers', () => {
  for (const e of COMMANDS) {
    for (const spec of 'commands' in e ? e.commands : [e]) {
      const path = 'commands' in e ? `${e.name} ${commandName(spec)}` : commandName(spec);
      const doc = commandDocs().find((d) => d.path === path)!;
      const y = yargs([]);
      spec.builder?.(y);
      // yargs' own record of what a builder declared (not in its typings).
      const registered = (
        y as unknown as { getOptions(): { key: Record<string, unknown>; alias: Record<string, string[]> } }
      ).getOptions();
      const aliases = new Set(Object.values(registered.alias).flat());
      const keys = Object.keys(registered.key).filter((k) => k !== 'help' && k !== 'version' && !aliases.has(k));
      assert.equal(
        [...doc.positionals, ...doc.options].map((o) => o.name).sort(),
        keys.sort(),
        `${path}: options and positionals`,
      );
      for (const o of doc.options)
        assert.equal(o.aliases, registered.alias[o.name] ?? [], `${path} --${o.name}: aliases`);
      for (const o of [...doc.positionals, ...doc.options])
        assert.ok((o.describe ?? '').length > 0, `${path}: ${o.name} says what it is`);
    }
  }
  const diff = commandDocs().find((d) => d.path === 'diff')!;
  assert.match(
    diff.epilog ?? '',
    /--find-renames/,
    "the text a builder adds after its options (git's forms shadow diff reads)",
  );
});

Reference('each command of the table is in exactly one task, and the tasks name no other', () => {
  const names = COMMANDS.map((e) => ('commands' in e ? e.name : commandName(e)));
  const listed = COMMAND_TASKS.flatMap((t) => t.commands);
  for (const n of names) assert.is(listed.filter((l) => l === n).length, 1, `${n}: in exactly one task`);
  assert.equal([...listed].sort(), [...names].sort());
});

Reference(
  'error codes, examples and exit statuses are kept for commands of the table, and each example runs its command',
  () => {
    const all = paths();
    assert.equal(
      Object.keys(COMMAND_ERRORS).sort(),
      [...all].sort(),
      'an error list for every command, and for no other',
    );
    for (const k of [...Object.keys(EXAMPLES), ...Object.keys(COMMAND_EXITS)])
      assert.ok(all.includes(k), `${k} is a command`);
    for (const [path, lines] of Object.entries(EXAMPLES)) {
      for (const l of lines) assert.ok(l.includes(`shadow ${path}`), `${path}: ${l}`);
    }
  },
);

/** Every code of the ErrorCode union in src/errors.ts. */
function errorCodes(): Set<string> {
  const text = readFileSync(join(ROOT, 'src/errors.ts'), 'utf8');
  const union = text.slice(text.indexOf('export type ErrorCode ='), text.indexOf('export interface ShadowErrorJSON'));
  return new Set([...union.matchAll(/^\s*\| '([A-Z0-9_]+)'/gm)].map((m) => m[1]!));
}

/** The text of every .ts file under `dir`. */
function sources(dir: string, skip: (path: string) => boolean): string {
  let text = '';
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && path.endsWith('.ts') && !skip(path)) text += readFileSync(path, 'utf8');
  }
  return text;
}

Reference('every error code a command lists is one of src/errors.ts, and something in shadow raises it', () => {
  const codes = errorCodes();
  assert.ok(codes.has('USAGE') && codes.has('STALE_REVIEW') && codes.size > 60, `read the union: ${codes.size} codes`);
  const skip = (p: string): boolean =>
    p.endsWith('/src/errors.ts') || p.endsWith('/http-errors.ts') || p.includes('/cli/reference/');
  const code = sources('src', skip) + sources('cli', skip);
  for (const [path, list] of [['every command', COMMON_ERRORS] as const, ...Object.entries(COMMAND_ERRORS)]) {
    assert.equal(list.length, new Set(list).size, `${path}: no code twice`);
    for (const c of list) {
      assert.ok(codes.has(c), `${path}: ${c} is not an error code of src/errors.ts`);
      assert.ok(code.includes(`'${c}'`), `${path}: nothing in src/ or cli/ raises ${c}`);
    }
  }
});

Reference.run();
