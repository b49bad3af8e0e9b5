import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import realStringWidth from 'string-width';
import stringWidth from '../cli/yargs-shims/string-width.js';
import findUp from '../cli/yargs-shims/find-up.js';
import { readFileSync } from 'node:fs';

/**
 * The CLI bundle's stand-ins for two of yargs' dependencies: the one for
 * `string-width` (loaded in a sixth of the time) agrees with the package on
 * what help text and terminals hold (ASCII, ANSI colours, CJK, fullwidth
 * forms, combining and format marks, emoji, East Asian ambiguous
 * characters); the one for `escalade/sync` finds shadow's package.json.
 */

const Width = suite('string-width stand-in');

const SAMPLES = [
  '',
  'shadow batch <file>       apply a batch of file operations',
  '\u001b[31mred\u001b[39m and \u001b[1mbold\u001b[22m',
  '\u001b]8;;https://example.com\u0007link\u001b]8;;\u0007',
  '漢字のテスト',
  'ｆｕｌｌｗｉｄｔｈ ＡＢＣ',
  'café',
  'cafe\u0301',
  'zero\u200bwidth\u200dspace',
  '😀 smile',
  'rocket 🚀 and 👍',
  '한국어',
  'Ω ± § ° × ÷',
  'tab\tand\u0007bell',
  '—em dash— “quotes”',
  'lone \ud800 surrogate',
];

Width('the same widths as string-width on help text, colours, CJK, marks and emoji', () => {
  for (const s of SAMPLES) assert.is(stringWidth(s), realStringWidth(s), JSON.stringify(s));
});

Width('options: ambiguous characters as wide, ANSI codes counted', () => {
  for (const s of ['± × ÷ §', 'Ω°'])
    assert.is(stringWidth(s, { ambiguousIsNarrow: false }), realStringWidth(s, { ambiguousIsNarrow: false }), s);
  const coloured = '\u001b[31mred\u001b[39m';
  assert.is(
    stringWidth(coloured, { countAnsiEscapeCodes: true }),
    realStringWidth(coloured, { countAnsiEscapeCodes: true }),
  );
});

const FindUp = suite('escalade stand-in');

FindUp("yargs finds shadow's own package.json whatever directory it starts from (never the user's)", () => {
  const isPackage = (_dir: string, names: string[]): string | undefined =>
    names.includes('package.json') ? 'package.json' : undefined;
  for (const start of ['/tmp', process.cwd(), '/']) {
    const found = findUp(start, isPackage);
    assert.ok(found, `from ${start}`);
    assert.is((JSON.parse(readFileSync(found!, 'utf8')) as { name: string }).name, 'shadow-drafts');
  }
  assert.is(
    findUp('/tmp', () => undefined),
    undefined,
    'nothing matches: undefined, as escalade',
  );
});

Width.run();
FindUp.run();
