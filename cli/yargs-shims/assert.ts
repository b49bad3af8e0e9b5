/**
 * The two checks yargs makes of its own state (`strictEqual`,
 * `notStrictEqual`), in place of node's `assert` module in the CLI bundle
 * (esbuild `alias` in cli/bundle.mjs): loading node's module (its error
 * class, diffing and call tracker) cost every command at start for checks
 * that do not fail. Equality is node's strict one, `Object.is`.
 */

function fail(message: string | Error | undefined, fallback: string): never {
  if (message instanceof Error) throw message;
  throw new Error(message ?? fallback);
}

export function strictEqual(actual: unknown, expected: unknown, message?: string | Error): void {
  if (!Object.is(actual, expected)) fail(message, `expected ${String(expected)}, got ${String(actual)}`);
}

export function notStrictEqual(actual: unknown, expected: unknown, message?: string | Error): void {
  if (Object.is(actual, expected)) fail(message, `expected anything but ${String(expected)}`);
}
