import { ShadowError } from '../errors.js';

/**
 * A pack's temporary file was gone when it was to be renamed into place:
 * `git prune` (run by `git gc --prune=now`) removes every `tmp_*` file in
 * `objects/pack`, however young. Nothing was installed; writing again is safe.
 */
export class TempPackVanished extends Error {
  constructor(override readonly cause: unknown) {
    super('a temporary pack was removed before it was renamed into place');
  }
}

/** How often a pack is written again after its temporary file was removed under it. */
const TEMP_VANISHED_ATTEMPTS = 4;

function vanishedTooOften(): ShadowError {
  return new ShadowError(
    'BUSY',
    `the temporary pack was removed ${TEMP_VANISHED_ATTEMPTS} times before it could be renamed into place (by \`git gc --prune=now\` or \`git prune\` running meanwhile): nothing was written`,
    {
      hint: 'retry once git gc has finished; `git gc` without --prune=now leaves files being written alone',
      data: { attempts: TEMP_VANISHED_ATTEMPTS },
    },
  );
}

export async function whileTempVanishes<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (e) {
      if (!(e instanceof TempPackVanished)) throw e;
      if (attempt >= TEMP_VANISHED_ATTEMPTS) throw vanishedTooOften();
    }
  }
}

export function whileTempVanishesSync<T>(write: () => T): T {
  for (let attempt = 1; ; attempt++) {
    try {
      return write();
    } catch (e) {
      if (!(e instanceof TempPackVanished)) throw e;
      if (attempt >= TEMP_VANISHED_ATTEMPTS) throw vanishedTooOften();
    }
  }
}
