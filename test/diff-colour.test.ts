import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';

/**
 * `sh.diff({ color: true })` (what `shadow diff` prints on a terminal)
 * against native `git diff --color=always` on the same change: first the plain texts are the same patch, then the
 * coloured bytes are the same, escape for escape (headers bold, hunk ranges
 * cyan, old red, new green, context plain, git's reset at each line's end,
 * whitespace errors of added lines on red under each core.whitespace
 * rule, blank lines added at the end of a file, CRLF, "No newline").
 */

const DRAFT = 'refs/shadow/drafts/default';

// Lines start with digits or blanks, so git finds no function name for a hunk header (shadow writes none).
const body = (n: number, tag: string): string =>
  Array.from({ length: n }, (_, i) => `${String(i).padStart(3, '0')} ${tag}\n`).join('');

const Colour = suite<{ repo: DiskRepo }>('diff colours against git --color=always');
Colour.before.each(async (ctx) => {
  ctx.repo = new DiskRepo({
    'ws.txt': body(12, 'ws'),
    'eof.txt': body(6, 'eof'),
    'crlf.txt': body(8, 'crlf').replace(/\n/g, '\r\n'),
    'nonl.txt': `${body(5, 'nonl')}005 last`,
    'gone.txt': body(4, 'gone'),
    'old/moved.txt': body(20, 'moved'),
    'tool.sh': '001 echo\n',
    'blanks.txt': `${body(4, 'blank')}\n\n`,
  });
  ctx.repo.write('data.bin', Buffer.from([0, 1, 2, 3, 4]));
  ctx.repo.git('add', '-A');
  ctx.repo.git('commit', '-q', '-m', 'binary');
  const wsLines = body(12, 'ws').split('\n');
  wsLines[2] = '002 trailing spaces   ';
  wsLines[4] = ' \t004 space before tab';
  wsLines[6] = '\t006 tab indent';
  wsLines[8] = '        008 eight spaces indent';
  wsLines[9] = '009 trailing tab\t';
  wsLines[10] = '';
  const moved = body(20, 'moved').replace('010 moved\n', '010 moved and changed  \n');
  await withShadow(ctx.repo, async (sh) => {
    const r = await sh.batch({
      operations: [
        { operation: 'write', path: 'ws.txt', content: wsLines.join('\n') },
        { operation: 'write', path: 'eof.txt', content: `${body(6, 'eof')}\n  \n\t\n` },
        {
          operation: 'write',
          path: 'crlf.txt',
          content: body(8, 'crlf').replace(/\n/g, '\r\n').replace('003 crlf\r\n', '003 crlf changed\r\n'),
        },
        { operation: 'write', path: 'nonl.txt', content: `${body(5, 'nonl')}005 last, changed` },
        { operation: 'delete', path: 'gone.txt' },
        { operation: 'rename', path: 'old/moved.txt', to: 'new/moved.txt' },
        { operation: 'write', path: 'new/moved.txt', content: moved },
        { operation: 'chmod', path: 'tool.sh', mode: '100755' },
        { operation: 'write', path: 'added.txt', content: '001 new  \n\n002 after a blank\n' },
        {
          operation: 'write',
          path: 'data.bin',
          content: Buffer.from([0, 1, 2, 3, 5]).toString('base64'),
          encoding: 'base64',
        },
        { operation: 'write', path: 'blanks.txt', content: `${body(4, 'blank')}\n\n\n 004 \n` },
      ],
    });
    assert.ok(r.success, JSON.stringify(r.error));
  });
});
Colour.after.each((ctx) => ctx.repo.cleanup());

const RULES = [
  undefined,
  '-trailing-space',
  '-blank-at-eof,-space-before-tab',
  'indent-with-non-tab,tabwidth=4',
  'tab-in-indent,-space-before-tab',
  'cr-at-eol',
  'trail,-space',
];

/** The draft's diff against HEAD (renames paired), as one text: plain, or in git's colours. */
const shadowDiff = (repo: DiskRepo, color: boolean): Promise<string> =>
  withShadow(repo, async (sh) =>
    (await sh.diff({ content: 'patch', renames: true, color })).files.map((f) => f.patch).join(''),
  );

Colour(
  "every line kind, under each core.whitespace rule: the coloured patch is git diff's, byte for byte",
  async ({ repo }) => {
    for (const rule of RULES) {
      if (rule === undefined) repo.gitResult('config', '--unset', 'core.whitespace');
      else repo.git('config', 'core.whitespace', rule);
      assert.is(
        await shadowDiff(repo, false),
        repo.git('diff', '--no-color', '-M', 'HEAD', DRAFT),
        `the same patch first (${rule})`,
      );
      assert.is(
        await shadowDiff(repo, true),
        repo.git('diff', '--color=always', '-M', 'HEAD', DRAFT),
        `core.whitespace=${rule}`,
      );
    }
    const coloured = await shadowDiff(repo, true);
    for (const escape of [
      '\x1b[1mdiff --git',
      '\x1b[36m@@',
      '\x1b[31m-',
      '\x1b[32m+\x1b[m',
      '\x1b[41m',
      '\x1b[1msimilarity index',
    ]) {
      assert.ok(coloured.includes(escape), JSON.stringify(escape));
    }
  },
);

Colour('no colour unless asked', async ({ repo }) => {
  await withShadow(repo, async (sh) => {
    const plain = await sh.diff({ content: 'patch' });
    assert.not.ok(plain.files.some((f) => f.patch?.includes('\x1b')));
    const coloured = await sh.diff({ content: 'patch', color: true });
    assert.ok(coloured.files.every((f) => f.patch?.startsWith('\x1b[1mdiff --git ')));
  });
});

Colour.run();
