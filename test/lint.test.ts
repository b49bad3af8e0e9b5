/**
 * The project's TypeScript passes its type-aware lint rules (eslint.config.js)
 * with no message at all, as `npm run lint` (`--max-warnings 0`) does, and
 * each rule finds the mistake it is there for.
 *
 * Only src/ and cli/ are linted here (what ships): the type-aware pass over
 * the whole project takes about 45 s on one core, over these two about 30 s.
 * `npm run lint` covers test/ and bench/ as well.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = 'test/fixtures/lint/dropped-await.ts';

/** One line per message: `file:line:rule message`. */
function findings(results: ESLint.LintResult[]): string[] {
  return results.flatMap((r) =>
    r.messages.map((m) => `${r.filePath.slice(ROOT.length)}:${m.line}:${m.ruleId ?? '(no rule)'} ${m.message}`),
  );
}

test('src/ and cli/ pass every lint rule with no warning and no error', async () => {
  const results = await new ESLint({ cwd: ROOT }).lintFiles(['src', 'cli']);
  assert.ok(results.length > 100, `only ${results.length} files linted`);
  const found = findings(results);
  assert.equal(found.length, 0, `\n${found.join('\n')}`);
});

test('each rule finds its own mistake in the fixture, one per rule', async () => {
  // The fixture is in the ignores (it would fail npm run lint), so it is linted here with ignores off.
  const results = await new ESLint({ cwd: ROOT, ignore: false }).lintFiles([join(ROOT, FIXTURE)]);
  const found = results.flatMap((r) => r.messages.map((m) => `${m.line}:${m.ruleId ?? '(no rule)'}`));
  assert.equal(found.sort(), [
    '13:@typescript-eslint/no-misused-promises',
    '17:@typescript-eslint/await-thenable',
    '21:@typescript-eslint/switch-exhaustiveness-check',
    '9:@typescript-eslint/no-floating-promises',
  ]);
});

test.run();
