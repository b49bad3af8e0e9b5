/*
 * Payloads a model sends to the agent tools: good ones every tool must take,
 * and bad batches and arguments that the engine, the tools and their
 * schemas all refuse.
 */

export const SEED = {
  operations: [
    { operation: 'write', path: 'src/hello.ts', content: 'export const hi = 1\n' },
    { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, world' },
    { operation: 'delete', path: 'old.txt' },
  ],
};

/** Payloads a model sends that every tool must take. */
export const GOOD: Record<string, unknown[]> = {
  batch_write: [
    SEED,
    { intent: 'greet', ...SEED },
    {
      intent: 'the other operations',
      operations: [
        { operation: 'write', path: 'bin/run', content: 'IyEvYmluL3NoCg==', encoding: 'base64', mode: '100755' },
        { operation: 'patch', path: 'a.txt', diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n' },
        { operation: 'rename', path: 'a.txt', to: 'b.txt' },
        { operation: 'chmod', path: 'b.txt', mode: '100644' },
        { operation: 'delete', path: 'c.txt', expect: 'sha256:' + '0'.repeat(64) },
      ],
    },
  ],
  apply_patch: [
    {
      input:
        '*** Begin Patch\n*** Update File: README.md\n@@\n-Hello\n+Hello, world\n*** Add File: docs/new.md\n+# New\n*** End Patch\n',
    },
    { input: "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\nEOF\n" },
  ],
  read_file: [{ path: 'README.md' }, { path: 'src/app.js', start_line: 2, end_line: 3 }],
  list_files: [{}, { path: 'src' }, { path: 'src', recursive: true }],
  search: [{ pattern: 'TODO' }, { pattern: 'to+do', regex: true, case_sensitive: false, path: 'src', max_results: 5 }],
  begin_write: [
    { target_file: 'docs/guide.md', operation: 'create' },
    { target_file: 'docs/guide.md', operation: 'append', intent: 'more' },
  ],
  append_content: [{ session_id: 'not-a-session', content: '# Guide\n' }],
  finalize_write: [{ session_id: 'not-a-session' }, { session_id: 'not-a-session', content: '# Guide\n' }],
  diff: [{}, { range: '1..2', stat: true }],
  log: [{}, { limit: 5 }],
  status: [{}],
  checkpoint: [{ name: 'before-refactor' }, { name: 'green', message: 'tests pass' }],
  rollback: [{ target: '~1' }],
  rebase: [{}, { onto: 'main' }],
  revert: [{ batches: ['1'] }],
  unapply: [{ dry_run: true }],
  resolve: [{ paths: ['src/a.ts'] }],
  propose: [{}, { message: 'refactor the parser' }],
  apply_status: [{}],
  apply: [{}],
};

/**
 * Batches the batch engine refuses before anything runs: the schema must
 * refuse them too, and the tool must answer with the library's code.
 */
export const BAD_BATCHES: Array<[string, unknown]> = [
  ['missing operations', { intent: 'nothing to do' }],
  ['empty operations', { operations: [] }],
  ['unknown operation', { operations: [{ operation: 'frobnicate', path: 'a.txt' }] }],
  ['missing content', { operations: [{ operation: 'write', path: 'a.txt' }] }],
  ['edit without old_content', { operations: [{ operation: 'edit', path: 'README.md', content: 'x' }] }],
  ['an unknown field of an operation', { operations: [{ operation: 'delete', path: 'a.txt', force: true }] }],
  ['a bad mode', { operations: [{ operation: 'chmod', path: 'a.txt', mode: '777' }] }],
  ['absolute path', { operations: [{ operation: 'write', path: '/etc/passwd', content: 'x' }] }],
  ['a .. segment', { operations: [{ operation: 'write', path: '../outside.txt', content: 'x' }] }],
  ['a .. segment inside', { operations: [{ operation: 'write', path: 'src/../../outside.txt', content: 'x' }] }],
  ['.git/x', { operations: [{ operation: 'write', path: '.git/x', content: 'x' }] }],
  ['.git/hooks in another case', { operations: [{ operation: 'write', path: '.GIT/hooks/pre-commit', content: 'x' }] }],
  ['rename into .git', { operations: [{ operation: 'rename', path: 'README.md', to: '.git/config' }] }],
];

/** Arguments the other tools refuse (INVALID_ARGUMENT from the tool, a refusal from the schema). */
export const BAD_ARGS: Array<[string, unknown]> = [
  ['apply_patch', {}],
  ['apply_patch', { input: '' }],
  ['apply_patch', { patch: '*** Begin Patch\n*** Delete File: old.txt\n*** End Patch' }],
  ['apply_patch', { input: 5 }],
  ['read_file', {}],
  ['read_file', { path: '' }],
  ['read_file', { path: 'README.md', start_line: 0 }],
  ['read_file', { path: 'README.md', start_line: 1.5 }],
  ['read_file', { path: 'README.md', start_line: '2' }],
  ['read_file', { path: 'README.md', lines: 3 }],
  ['list_files', { recursive: 'yes' }],
  ['search', {}],
  ['search', { pattern: '' }],
  ['search', { pattern: 'x', max_results: 0 }],
  ['begin_write', { target_file: 'a.md', operation: 'replace' }],
  ['begin_write', { operation: 'create' }],
  ['append_content', { session_id: 'x' }],
  ['finalize_write', {}],
  ['diff', { stat: 'true' }],
  ['log', { limit: 0 }],
  ['status', { verbose: true }],
  ['checkpoint', {}],
  ['rollback', { target: '' }],
  ['rebase', { onto: '' }],
  ['revert', { batches: [] }],
  ['resolve', { paths: [] }],
  ['resolve', { paths: ['/abs'] }],
  ['propose', { message: 5 }],
  ['apply_status', { force: true }],
  ['apply_status', { paths: 'src' }],
  ['apply_status', { paths: [] }],
  ['apply_status', { paths: [''] }],
  ['apply_status', { paths: [3] }],
  ['apply_status', { paths: ['/etc/passwd'] }],
  ['apply_status', { paths: ['src/../../outside'] }],
  ['apply_status', { paths: ['C:/Users'] }],
];
