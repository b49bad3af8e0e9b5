import type { Argv } from 'yargs';

/** One option or positional as a command's yargs builder declares it. */
export interface OptionRecord {
  name: string;
  aliases: string[];
  type?: string;
  array?: boolean;
  choices?: readonly unknown[];
  default?: unknown;
  describe?: string;
  required?: boolean;
  conflicts?: string[];
  implies?: string[];
}

/** What a builder declares: positionals and options in its order, and the text it adds after the options. */
export interface BuilderRecord {
  positionals: OptionRecord[];
  options: OptionRecord[];
  epilog?: string;
}

type Declared = {
  alias?: string | readonly string[];
  type?: string;
  array?: boolean;
  choices?: readonly unknown[];
  default?: unknown;
  describe?: string;
  demandOption?: boolean | string;
  conflicts?: string | readonly string[];
  implies?: string | readonly string[];
};

const list = (v: string | readonly string[] | undefined): string[] =>
  v === undefined ? [] : typeof v === 'string' ? [v] : [...v];

function toRecord(name: string, o: Declared): OptionRecord {
  const r: OptionRecord = { name, aliases: list(o.alias) };
  if (o.type !== undefined) r.type = o.type;
  if (o.array) r.array = true;
  if (o.choices !== undefined) r.choices = o.choices;
  if (o.default !== undefined) r.default = o.default;
  if (o.describe !== undefined) r.describe = o.describe;
  if (o.demandOption) r.required = true;
  if (o.conflicts !== undefined) r.conflicts = list(o.conflicts);
  if (o.implies !== undefined) r.implies = list(o.implies);
  return r;
}

/**
 * Run a command's yargs builder against a stand-in that records what it
 * declares, so the reference reads the options from the builder itself
 * (one source). A builder that calls a method the stand-in lacks fails
 * here, rather than losing what it declares from the reference.
 */
export function recordBuilder(builder: ((y: Argv) => Argv) | undefined): BuilderRecord {
  const record: BuilderRecord = { positionals: [], options: [] };
  if (!builder) return record;
  const find = (name: string): OptionRecord | undefined =>
    [...record.options, ...record.positionals].find((o) => o.name === name);
  const standIn = {
    positional(name: string, o: Declared) {
      record.positionals.push(toRecord(name, o));
      return standIn;
    },
    option(name: string, o: Declared) {
      record.options.push(toRecord(name, o));
      return standIn;
    },
    conflicts(a: string, b: string) {
      const o = find(a);
      if (o) o.conflicts = [...(o.conflicts ?? []), b];
      return standIn;
    },
    epilog(text: string) {
      record.epilog = text;
      return standIn;
    },
    // How yargs parses, not what a reader is offered.
    parserConfiguration() {
      return standIn;
    },
  };
  builder(standIn as unknown as Argv);
  return record;
}
