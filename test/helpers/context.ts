import type { Context, FileSystem } from '../../src/index.js';

/** A deterministic context: a clock that moves only when told (or when code sleeps), counting ids. */
export interface TestContext extends Context {
  advance(ms: number): void;
}

export function testContext(fs: FileSystem, env: Record<string, string | undefined> = {}): TestContext {
  let now = Date.UTC(2026, 10, 22, 12, 0, 0);
  let n = 0;
  return {
    fs,
    env,
    clock: {
      now: () => now,
      tzOffsetMinutes: () => 60,
      sleep: async (ms: number) => {
        now += ms;
      },
    },
    ids: {
      token: () => (n++).toString(16).padStart(8, '0'),
      uuid: () => `00000000-0000-4000-8000-${(n++).toString(16).padStart(12, '0')}`,
    },
    advance(ms: number) {
      now += ms;
    },
  };
}
