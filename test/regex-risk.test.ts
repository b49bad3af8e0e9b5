import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { nestedRepetitionAt } from '../src/core/regex-risk.js';
import { memRepo } from './helpers/mem-repo.js';

/*
 * The guard in front of an agent's regular-expression search: a repetition
 * of a group that itself repeats can backtrack for exponential time (and a
 * regex cannot be interrupted), so such patterns are refused before they run.
 */

const Risk = suite('nested repetition');

Risk('found where a repeated group repeats: the index of the outer quantifier', () => {
  const cases: Array<[string, number]> = [
    ['(a+)+', 4],
    ['(a*)*b', 4],
    ['^(\\w*\\s?)*$', 9],
    ['(x+x+)+y', 6],
    ['(?:a+)+', 6],
    ['(a+)*?', 4],
    ['(a+){2,5}', 4],
    ['((a+)b)+', 7],
  ];
  for (const [p, at] of cases) assert.is(nestedRepetitionAt(p), at, p);
});

Risk('not found where nothing repeats a repetition: quantified atoms, optional groups, classes, escapes', () => {
  for (const p of [
    'to+do',
    'foo(bar)+',
    '(a|b)*c',
    '[(a+)]+',
    '\\(a+\\)+',
    '(a+)?',
    'a{2,}',
    '(ab){3}',
    '[\\]+]*x',
    'GREE+T\\b',
    '(?<y>\\d{4})-(\\d{2})',
  ]) {
    assert.is(nestedRepetitionAt(p), undefined, p);
  }
});

Risk(
  'sh.search refuses such a pattern with INVALID_ARGUMENT, at once; the same text as a plain substring is fine',
  async () => {
    const repo = await memRepo({ 'a.txt': `${'a'.repeat(40)}!\n` });
    const sh = await repo.open();
    try {
      const err = await sh.search('(a+)+$', { regex: true }).then(
        () => undefined,
        (e: { code?: string; message?: string }) => e,
      );
      assert.is(err?.code, 'INVALID_ARGUMENT');
      assert.match(err?.message ?? '', /repeats a group that repeats/);
      assert.equal((await sh.search('(a+)+$')).matches, [], 'as a substring it is only text');
      assert.is((await sh.search('a+!', { regex: true })).matches.length, 1);
    } finally {
      sh.close();
    }
  },
);

Risk.run();
