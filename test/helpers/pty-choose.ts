/**
 * A program for the pty tests: `shadow apply -p`'s questions on the
 * repository in argv[2] (its default draft), the patch of the chosen hunks
 * written to argv[3], the rest left to the test. It stops before the
 * apply, so that the choice itself is compared with git's.
 */
import { writeFileSync } from 'node:fs';
import { openShadow } from '../../src/index.js';
import { chooseHunks } from '../../cli/hunk-prompt/choose-hunks.js';

const [dir, out] = process.argv.slice(2) as [string, string];
const sh = await openShadow({ dir, env: process.env });
try {
  const chosen = await chooseHunks({
    sh,
    io: {
      cwd: dir,
      env: process.env,
      stdout: (s) => process.stdout.write(s),
      stderr: (s) => process.stderr.write(s),
      stdin: process.stdin,
      isTTY: process.stdout.isTTY === true,
    },
    draft: undefined,
    paths: process.argv.slice(4).length > 0 ? process.argv.slice(4) : undefined,
    noColour: false,
    cwd: dir,
  });
  writeFileSync(out, chosen === 'interrupted' ? 'interrupted' : chosen.patch);
} finally {
  sh.close();
}
