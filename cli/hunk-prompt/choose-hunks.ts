import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Shadow } from '../../src/index.js';
import type { CliIO } from '../io.js';
import { AnswerReader } from './answer-reader.js';
import { chooseEditor, runEditor } from './editor.js';
import { parseDiff } from './parse-diff.js';
import { promptColours } from './prompt-colours.js';
import { chosen, reassemble } from './reassemble.js';
import { walkFile, type WalkIO } from './walk-file.js';

/**
 * `shadow apply -p`'s questions: the draft's diff as `shadow diff` prints
 * it (against the bases, renames paired), walked file by file and hunk by
 * hunk as `git add -p` walks git's, and the patch of what was chosen.
 */

export interface ChooseOptions {
  sh: Shadow;
  io: CliIO;
  draft: string | undefined;
  /** Only the files these pathspecs match (from the repository root). */
  paths: string[] | undefined;
  /** `--no-color`. */
  noColour: boolean;
  /** Where the editor runs. */
  cwd: string;
}

/**
 * The patch of the chosen hunks ('' for none; `asked` false when nothing was
 * asked, and git's words for why were said), or 'interrupted' (Ctrl-C:
 * apply nothing).
 */
export type Chosen = { patch: string; asked: boolean } | 'interrupted';

async function draftDiff(o: ChooseOptions, color: boolean): Promise<string> {
  const r = await o.sh.diff({ draft: o.draft, content: 'patch', paths: o.paths, color });
  return r.files
    .map((f) => (f.patch === undefined || f.patch === '' || f.patch.endsWith('\n') ? (f.patch ?? '') : `${f.patch}\n`))
    .join('');
}

/** core.commentChar when it is one character, else `#` (git's default, and its choice for `auto`). */
function commentChar(config: (name: string) => string | undefined): string {
  const c = config('core.commentchar');
  return c !== undefined && [...c].length === 1 ? c : '#';
}

const isTrue = (v: string | undefined): boolean =>
  v !== undefined && ['true', 'yes', 'on', '1', ''].includes(v.trim().toLowerCase());

/** Ask about every hunk; what was chosen. */
export async function chooseHunks(o: ChooseOptions): Promise<Chosen> {
  const config = (name: string): string | undefined => o.sh.gitConfig(name);
  const plain = await draftDiff(o, false);
  if (plain === '') {
    o.io.stderr('No changes.\n');
    return { patch: '', asked: false };
  }
  const { colours, colourDiff } = promptColours(config, o.io, o.noColour);
  const files = parseDiff(plain, colourDiff ? await draftDiff(o, true) : undefined);
  const reader = new AnswerReader(o.io.stdin, isTrue(config('interactive.singlekey')));
  const editFile = join(o.sh.layout.gitdir, 'shadow', 'hunk-edit.diff');
  const walkIO: WalkIO = {
    colours,
    colourDiff,
    out: (s) => o.io.stdout(s),
    err: (s) => o.io.stderr(s),
    reader,
    commentChar: commentChar(config),
    edit: async (text) => {
      const editor = chooseEditor(o.io.env, config);
      if (editor === undefined) {
        o.io.stderr('error: Terminal is dumb, but EDITOR unset\n');
        return undefined;
      }
      mkdirSync(join(o.sh.layout.gitdir, 'shadow'), { recursive: true });
      writeFileSync(editFile, text);
      reader.pause();
      const ok = await runEditor(editor, editFile, {
        env: o.io.env,
        cwd: o.cwd,
        stderrIsTTY: o.io.isTTY,
        stderr: (s) => o.io.stderr(s),
      });
      if (!ok) {
        o.io.stderr(`error: There was a problem with the editor '${editor}'.\n`);
        return undefined;
      }
      return readFileSync(editFile, 'utf8');
    },
  };
  let binary = 0;
  try {
    for (const file of files) {
      if (file.binary && file.hunks.length === 0) {
        binary++;
        continue;
      }
      const end = await walkFile(walkIO, file);
      if (end === 'interrupt') return 'interrupted';
      if (end === 'quit') break;
    }
  } finally {
    reader.pause();
  }
  if (binary === files.length) {
    o.io.stderr('Only binary files changed.\n');
    return { patch: '', asked: false };
  }
  return {
    patch: files
      .filter(chosen)
      .map((f) => reassemble(f, false))
      .join(''),
    asked: true,
  };
}
