/**
 * `npm run docs:cli`: writes docs/cli.md from the command table (after a
 * build; run from the repository root).
 */
import { writeFileSync } from 'node:fs';
import { cliReference } from './markdown.js';

writeFileSync(new URL('../../../docs/cli.md', import.meta.url), cliReference());
process.stdout.write('wrote docs/cli.md\n');
