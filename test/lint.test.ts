/**
 * Each lint rule of eslint.config.js finds the mistake it is there for. The
 * fixture holds one mistake per rule; it is linted with the project's rules
 * over a program of its own (test/fixtures/lint/tsconfig.json), which type
 * information needs and which costs a fraction of the whole project's.
 *
 * That src/ and cli/ pass every rule with no message is checked by
 * `.ci/run`, before the suite (a whole-project type-aware pass takes longer
 * than most test files together); `npm run lint` covers test/ and bench/
 * as well.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = 'test/fixtures/lint/dropped-await.ts';

test('each rule finds its own mistake in the fixture, one per rule', async () => {
  // The fixture is in the ignores (it would fail npm run lint), so it is linted here with ignores off.
  const eslint = new ESLint({
    cwd: ROOT,
    ignore: false,
    overrideConfig: { languageOptions: { parserOptions: { project: './test/fixtures/lint/tsconfig.json' } } },
  });
  const results = await eslint.lintFiles([join(ROOT, FIXTURE)]);
  const found = results.flatMap((r) => r.messages.map((m) => `${m.line}:${m.ruleId ?? '(no rule)'}`));
  assert.equal(found.sort(), [
    '13:@typescript-eslint/no-misused-promises',
    '17:@typescript-eslint/await-thenable',
    '21:@typescript-eslint/switch-exhaustiveness-check',
    '9:@typescript-eslint/no-floating-promises',
  ]);
});

test.run();
