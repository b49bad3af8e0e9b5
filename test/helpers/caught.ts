import * as assert from 'uvu/assert';

/** What a synchronous call threw: a ShadowError's fields. */
export interface Caught {
  code: string;
  message: string;
  hint?: string;
  data: Record<string, unknown>;
}

/** The error `fn` throws; fails the test when it throws nothing. */
export function caught(fn: () => unknown): Caught {
  try {
    fn();
  } catch (e) {
    return e as Caught;
  }
  return assert.unreachable('expected an error') as never;
}

/** The code `f` rejects with ('no error' when it resolves). */
export async function codeOf(f: () => Promise<unknown>): Promise<string> {
  try {
    await f();
  } catch (e) {
    return (e as { code: string }).code;
  }
  return 'no error';
}
