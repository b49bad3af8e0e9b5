import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BaseMap, type Base } from '../src/state/base-map.js';
import { prng } from './helpers/prng.js';

/**
 * A draft's bases as an immutable map of layers: what a batch adds is seen
 * only by the new map, the first base of a path stays, and the layers stay
 * few however many batches add to it.
 */

const Bases = suite('base map');

const entry = (n: number): Base => ({ mode: '100644', oid: n.toString(16).padStart(40, '0') });

Bases('adding leaves the old map as it was; the first base of a path is the one that stays', () => {
  const one = BaseMap.fromRecord({ 'a.txt': entry(1), 'gone.txt': null });
  const two = one.adding([
    ['b.txt', entry(2)],
    ['a.txt', entry(99)],
  ]);
  assert.equal(one.toRecord(), { 'a.txt': entry(1), 'gone.txt': null });
  assert.is(one.has('b.txt'), false);
  assert.equal(two.get('a.txt'), entry(1));
  assert.equal(two.get('b.txt'), entry(2));
  assert.is(two.get('gone.txt'), null, 'a null base is a base');
  assert.is(two.has('gone.txt'), true);
  assert.is(two.get('never.txt'), undefined);
  assert.is(two.size, 3);
  assert.equal(two.paths().sort(), ['a.txt', 'b.txt', 'gone.txt']);
  assert.is(two.adding([['a.txt', null]]), two, 'nothing new: the same map');
});

Bases('5,000 batches of 3 paths: every map answers as a plain record would, with few layers', () => {
  const rnd = prng(5);
  let map = BaseMap.EMPTY;
  const record: Record<string, Base> = {};
  const kept: Array<[BaseMap, number]> = [];
  let deepest = 0;
  for (let b = 0; b < 5000; b++) {
    const added: Array<[string, Base]> = [];
    for (let i = 0; i < 3; i++) {
      const path = `p${Math.floor(rnd() * 12000)}`;
      const base = rnd() < 0.2 ? null : entry(b * 3 + i);
      added.push([path, base]);
      if (!(path in record)) record[path] = base;
    }
    map = map.adding(added);
    deepest = Math.max(deepest, map.depth);
    if (b % 1000 === 0) kept.push([map, map.size]);
  }
  assert.is(map.size, Object.keys(record).length);
  assert.equal(map.toRecord(), record);
  for (const [path, base] of Object.entries(record))
    if (map.get(path) !== base) assert.unreachable(`${path} has another base`);
  assert.equal(new Set(map.paths()).size, map.size, 'no path twice');
  assert.ok(deepest <= 16, `a lookup visits at most 16 layers (log2 of the paths), here ${deepest}`);
  for (const [old, size] of kept) assert.is(old.paths().length, size, 'an older map never grows');
});

Bases('replacing (what an apply wrote) overrides bases without touching the map it came from', () => {
  const map = BaseMap.fromRecord({ 'a.txt': entry(1), 'b.txt': null });
  const applied = map.replacing({ 'a.txt': entry(7), 'c.txt': null });
  assert.equal(applied.toRecord(), { 'a.txt': entry(7), 'b.txt': null, 'c.txt': null });
  assert.equal(map.get('a.txt'), entry(1));
  assert.is(map.replacing({}), map);
});

Bases.run();
