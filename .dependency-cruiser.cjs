/**
 * The import rules of shadow's source, checked by test/import-rules.test.ts
 * on every `npm test` (and by hand: `npx depcruise src cli`).
 *
 * The rooms, from the bottom up (each may import the rooms below it and
 * itself, nothing above):
 *
 *   core/       pure helpers every room shares; no I/O
 *   durable/    files that survive a crash: atomic writes, fsync order, locks
 *   git/format/ git's formats as pure codecs: objects, trees, diffs,
 *               attributes and eol rules, pack and reflog encodings; no I/O
 *   git/        git's storage on disk over those codecs: objects, packs,
 *               refs, reflogs, index, config, attributes, ignore rules,
 *               working-tree conversion
 *   state/      shadow's own records: draft metadata, applies, the ledger,
 *               sessions' and worktrees' files, caches
 *   drafts/     the transactional core: batches, captures, views, history,
 *               checkpoints, the change set a publish writes. Inside it,
 *               the draft itself at its top level and its rooms, from the
 *               bottom up:
 *                 text/ codex-patch/   pure text (edit, patch, apply_patch)
 *                 publish-set/         the change set
 *                 hunks/               the change set cut into hunks, a choice applied
 *                 view/                the view over the working tree
 *                 batch/ history/      writing a batch; reading the past
 *                 rebase/              moving a draft, reverting batches
 *   review/     proposals, policy, approvals, the secret guard
 *   publish/    apply, unapply, recover, commit modes, the branch move
 *   plans/ sessions/ worktrees/   built on drafts, never on review,
 *               publish or each other
 *   remotes/    sharing drafts through git remotes: push, fetch, the
 *               snapshot of a draft's files; on drafts and review
 *   api/, shadow.ts, open.ts, index.ts   the library's facade
 *   http/, agent-tools/, cli/            the surfaces, on the facade: they
 *               reach the rooms only through index.ts / shadow.ts, plus
 *               the batch schema, errors and core/'s shared helpers
 *
 * context.ts and errors.ts are the two modules every room may import.
 */
const ROOMS = [
  'core',
  'durable',
  'git',
  'state',
  'drafts',
  'review',
  'publish',
  'plans',
  'sessions',
  'worktrees',
  'remotes',
  'api',
  'http',
  'agent-tools',
];
const SHARED = '^src/(context|errors)\\.ts$';
const room = (name) => `^src/${name}/`;
const DRAFT_ROOMS = '^src/drafts/[a-z-]+/';
const draftRooms = (names) => `^src/drafts/(${names.join('|')})/`;
const IO = '^(node:)?(fs|fs/promises|child_process|net|http|https)$';
const rooms = (names) => `^src/(${names.join('|')})/`;

/** drafts/`name`/ may import only the `allowed` rooms of drafts/ (itself included); the drafts-imports rule says the rest. */
function draftsRoom(name, allowed, comment) {
  return {
    name: `drafts-${name}-imports`,
    comment,
    severity: 'error',
    from: { path: draftRooms([name]) },
    to: { path: DRAFT_ROOMS, pathNot: draftRooms([name, ...allowed]) },
  };
}

/** drafts/`name`/ is pure text: only the `allowed` pure rooms, core/ and errors.ts. */
function pureText(name, allowed, comment) {
  return {
    name: `drafts-${name}-is-pure`,
    comment,
    severity: 'error',
    from: { path: draftRooms([name]) },
    to: { path: '^src/', pathNot: [draftRooms([name, ...allowed]), room('core'), '^src/errors\\.ts$'] },
  };
}

/** `name` may import only `allowed` rooms (itself included) and the shared modules. */
function only(name, allowed, comment) {
  return {
    name: `${name}-imports`,
    comment,
    severity: 'error',
    from: { path: room(name) },
    to: { path: '^src/', pathNot: [rooms([name, ...allowed]), SHARED] },
  };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No module may import itself through others (type imports count: they are the design too).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    only('core', [], 'core/ is the bottom: pure helpers that know no other room.'),
    {
      name: 'core-is-pure',
      comment: 'core/ does no I/O: it is tested without a disk.',
      severity: 'error',
      from: { path: room('core') },
      to: { dependencyTypes: ['core'], path: IO },
    },
    only('durable', ['core'], 'durable/ is the file discipline both substrates use; it knows neither.'),
    {
      name: 'git-format-imports',
      comment: 'git/format/ is pure: codecs that know only core/ and each other.',
      severity: 'error',
      from: { path: '^src/git/format/' },
      to: { path: '^src/', pathNot: ['^src/git/format/', room('core'), SHARED] },
    },
    {
      name: 'git-format-is-pure',
      comment: 'git/format/ does no I/O: it is tested without a disk.',
      severity: 'error',
      from: { path: '^src/git/format/' },
      to: { dependencyTypes: ['core'], path: IO },
    },
    only('git', ['core', 'durable'], "git/ reads and writes git's formats and knows nothing of drafts."),
    only('state', ['core', 'durable', 'git'], "state/ is shadow's own records, below every capability."),
    only(
      'drafts',
      ['core', 'durable', 'git', 'state'],
      'drafts/ is the transactional core every capability builds on.',
    ),
    pureText('text', [], 'drafts/text/ finds and replaces text for edit and patch: no git, no workspace.'),
    pureText(
      'codex-patch',
      ['text'],
      "drafts/codex-patch/ parses and applies Codex's patch format to text: no git, no workspace.",
    ),
    {
      name: 'drafts-text-no-io',
      comment: 'drafts/text/ and drafts/codex-patch/ do no I/O: they are tested on strings.',
      severity: 'error',
      from: { path: draftRooms(['text', 'codex-patch']) },
      to: { dependencyTypes: ['core'], path: IO },
    },
    draftsRoom(
      'publish-set',
      [],
      'drafts/publish-set/ is the change set: it reads the draft, never a view, batch or rebase.',
    ),
    draftsRoom(
      'view',
      ['publish-set'],
      'drafts/view/ reads the draft over the working tree, and what git keeps out of reach there (submodules, sparse paths).',
    ),
    draftsRoom(
      'batch',
      ['text', 'codex-patch', 'view', 'publish-set'],
      "drafts/batch/ writes one batch; it knows nothing of history's reports or of rebase.",
    ),
    draftsRoom(
      'hunks',
      ['publish-set'],
      "drafts/hunks/ cuts a draft's diff into hunks and applies a choice of them to the bases: text in, text out.",
    ),
    {
      name: 'drafts-hunks-no-io',
      comment: 'drafts/hunks/ reads blobs through the function it is given: no git store, no file system.',
      severity: 'error',
      from: { path: draftRooms(['hunks']) },
      to: {
        path: '^src/',
        pathNot: [draftRooms(['hunks', 'publish-set']), room('core'), '^src/git/format/', '^src/errors\\.ts$'],
      },
    },
    {
      name: 'drafts-hunks-no-node-io',
      comment: 'drafts/hunks/ does no I/O: it is tested on strings.',
      severity: 'error',
      from: { path: draftRooms(['hunks']) },
      to: { dependencyTypes: ['core'], path: IO },
    },
    draftsRoom(
      'history',
      ['view', 'publish-set', 'hunks'],
      "drafts/history/ reads and moves a draft's past; it never runs a batch or a rebase.",
    ),
    draftsRoom(
      'rebase',
      ['batch', 'history', 'view', 'publish-set', 'hunks'],
      'drafts/rebase/ lands one commit of merged paths, or a split of hunks; no other room of drafts/ builds on it.',
    ),
    only('review', ['core', 'durable', 'git', 'state', 'drafts'], 'review/ judges a draft; it never publishes.'),
    only('publish', ['core', 'durable', 'git', 'state', 'drafts', 'review'], 'publish/ asks review before it writes.'),
    only('plans', ['core', 'durable', 'git', 'state', 'drafts'], 'plans/ run batches on drafts.'),
    only('sessions', ['core', 'durable', 'git', 'state', 'drafts'], 'sessions/ stream content into one batch.'),
    only('worktrees', ['core', 'durable', 'git', 'state', 'drafts'], 'worktrees/ mirror a draft into a directory.'),
    only(
      'remotes',
      ['core', 'durable', 'git', 'state', 'drafts', 'review', 'publish'],
      'remotes/ share drafts through git remotes; review judges what may leave; the notes publish wrote travel with them.',
    ),
    {
      name: 'facade-above-rooms',
      comment: 'Nothing below the facade imports it, nor the surfaces built on it.',
      severity: 'error',
      from: { path: rooms(ROOMS.filter((r) => !['http', 'agent-tools'].includes(r))) },
      to: { path: ['^src/(shadow|open|index|node-context)\\.ts$', rooms(['http', 'agent-tools']), '^cli/'] },
    },
    {
      name: 'api-below-surfaces',
      comment: "api/ is the facade's calls; the surfaces use it through shadow.ts and index.ts.",
      severity: 'error',
      from: { path: room('api') },
      to: { path: ['^src/(shadow|open|index)\\.ts$'] },
    },
    {
      name: 'surfaces-through-the-facade',
      comment: 'The HTTP API and the agent tools call the library as any program would.',
      severity: 'error',
      from: { path: rooms(['http', 'agent-tools']) },
      to: {
        path: '^src/',
        pathNot: [
          rooms(['http', 'agent-tools', 'core', 'durable']),
          '^src/(index|shadow|errors|context)\\.ts$',
          '^src/drafts/batch/batch-schema\\.ts$',
        ],
      },
    },
    {
      name: 'cli-through-the-library',
      comment:
        "The CLI uses the library's public entry point, the agent tools it serves, and the batch schema's byte decoder.",
      severity: 'error',
      from: { path: '^cli/' },
      to: {
        path: '^src/',
        pathNot: ['^src/(index|errors)\\.ts$', room('agent-tools'), '^src/drafts/batch/batch-schema\\.ts$'],
      },
    },
    {
      name: 'library-not-cli',
      comment: 'The library never imports the CLI.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^cli/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
  },
};
