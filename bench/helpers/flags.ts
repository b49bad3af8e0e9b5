/**
 * The command-line flags of a benchmark: `--name value` or `--name=value`,
 * `--help` prints `help` and exits, anything unknown is an error naming it.
 * Each handler gets the flag's value on demand (a switch takes none).
 */
export function readFlags(
  argv: readonly string[],
  help: string,
  handlers: Record<string, (value: () => string) => void>,
): void {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    const [flag, inline] = eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    if (flag === '--help' || flag === '-h') {
      process.stdout.write(help);
      process.exit(0);
    }
    const handler = handlers[flag];
    if (!handler) throw new Error(`unknown option ${a}\n${help}`);
    handler(() => inline ?? argv[++i] ?? '');
  }
}

/** A comma-separated list of positive integers (`1,10,1_000`). */
export function positiveInts(value: string, name: string): number[] {
  const xs = value.split(',').map((x) => Number(x.replace(/_/g, '')));
  if (xs.length === 0 || xs.some((x) => !Number.isInteger(x) || x <= 0))
    throw new Error(`${name} takes a comma-separated list of positive integers`);
  return xs;
}

/** One positive integer. */
export function positiveInt(value: string, name: string): number {
  const xs = positiveInts(value, name);
  if (xs.length !== 1) throw new Error(`${name} takes a positive integer`);
  return xs[0]!;
}

/** A comma-separated list of names, each one of `allowed`. */
export function namesOf<T extends string>(value: string, allowed: readonly T[], name: string): Set<T> {
  const names = value.split(',');
  for (const n of names)
    if (!(allowed as readonly string[]).includes(n))
      throw new Error(`${name}: unknown case ${n} (cases: ${allowed.join(', ')})`);
  return new Set(names as T[]);
}

/** The options most benchmarks take alike; `strace` only where the bench counts syscalls. */
export interface SharedOptions {
  runs?: number;
  quick: boolean;
  keep: boolean;
  cacheDir: string;
  strace?: boolean;
}

/**
 * The handlers of the flags most benchmarks share, for readFlags: `--runs
 * <n>`, `--quick`, `--keep`, `--cache <dir>`, and `--no-strace` where `o`
 * has `strace`.
 */
export function sharedFlags(o: SharedOptions): Record<string, (value: () => string) => void> {
  return {
    '--runs': (v) => (o.runs = positiveInt(v(), '--runs')),
    '--quick': () => (o.quick = true),
    '--keep': () => (o.keep = true),
    '--cache': (v) => (o.cacheDir = v()),
    ...('strace' in o ? { '--no-strace': () => (o.strace = false) } : {}),
  };
}
