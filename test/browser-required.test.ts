import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/*
 * A browser test that cannot run must not pass: without a Chromium the
 * review page's tests say SKIP and the run goes on, except under CI=true or
 * where .ci/run made sure of a Chromium (SHADOW_REQUIRE_CHROMIUM=1), where
 * the run fails and says why. Held through the runner itself, on the real
 * browser test file, with a Chromium that is not there.
 */

const RUNNER = join(dirname(fileURLToPath(import.meta.url)), 'run-tests.js');

/** The runner on the browser test file alone, with no Chromium and `extra` in an environment of its own. */
function runWithoutChromium(extra: Record<string, string>): { status: number | null; out: string } {
  const env: Record<string, string> = { SHADOW_CHROMIUM: '/nonexistent/chromium', ...extra };
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  const r = spawnSync(process.execPath, [RUNNER, 'page-browser'], { env, encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

test('without CI the browser tests say SKIP, and why, and the run passes', () => {
  const r = runWithoutChromium({});
  assert.is(r.status, 0, r.out);
  assert.match(r.out, /^ {5}SKIP review page in a browser: no Chromium found \(apt-get install chromium/m);
  assert.match(r.out, /\n0 passed, 0 failed\n$/);
});

for (const [name, env, why] of [
  ['CI=true', { CI: 'true' }, 'CI=true'],
  [
    'SHADOW_REQUIRE_CHROMIUM=1 (.ci/run found or installed one)',
    { SHADOW_REQUIRE_CHROMIUM: '1' },
    'SHADOW_REQUIRE_CHROMIUM=1',
  ],
] as const) {
  test(`under ${name} a browser test that cannot run fails the run, saying no Chromium was found`, () => {
    const r = runWithoutChromium(env);
    assert.is(r.status, 1, r.out);
    assert.match(r.out, /^FAIL page-browser\.test\.js +0 passed +1 failed/m);
    assert.ok(r.out.includes(`review page in a browser: no Chromium found`), r.out);
    assert.ok(r.out.includes(`and ${why}`), r.out);
    assert.not.match(r.out, /^ *SKIP /m);
    assert.match(r.out, /\n0 passed, 1 failed\n$/);
  });
}

test.run();
