/**
 * A process that writes MERGE_AT_PACKS packs into the repository at argv[2],
 * merges them on a PackMergeThread and then simply returns, never closing
 * the thread: it must end on its own (test/pack-merge-thread.test.ts).
 */
import { blobOid } from '../../src/git/format/git-objects.js';
import { MERGE_AT_PACKS } from '../../src/git/pack-consolidate.js';
import { Repository } from '../../src/git/repository.js';
import { nodeContext, PackMergeThread } from '../../src/index.js';

const store = Repository.open(nodeContext({ packMerger: new PackMergeThread() }), process.argv[2]!);
for (let i = 0; i < MERGE_AT_PACKS; i++) {
  const content = Buffer.from(`exit ${i}\n`);
  store.objects.releaseKeep(await store.objects.writeConcurrently([{ oid: blobOid(content), type: 'blob', content }]));
}
store.objects.mergeInSteps();
await store.objects.merging();
const packs = (await import('node:fs'))
  .readdirSync(`${process.argv[2]}/.git/objects/pack`)
  .filter((f) => f.endsWith('.idx'));
console.log(packs.length === 1 ? `merged ${MERGE_AT_PACKS}` : `packs left: ${packs.join(' ')}`);
store.close();
