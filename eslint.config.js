// Type-aware lint rules, kept few on purpose: each one catches a class of bug
// the compiler does not (a promise nobody awaits, a promise where a callback
// must return void, an await on a value that is not a promise, a switch that
// forgets a member of a union). Style is not linted here.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/**', 'node_modules/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  // Mistakes on purpose, one per rule: test/lint.test.ts checks the rules find them.
  { ignores: ['test/fixtures/lint/**'] },
  {
    files: ['src/**/*.ts', 'cli/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // A `default` is an explicit choice for the rest; a switch without one
      // must name every member of the union it switches on.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
);
