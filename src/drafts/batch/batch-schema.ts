import * as z from 'zod/mini';
import { ShadowError } from '../../errors.js';
import { diagnoseJson } from '../../core/json-diagnose.js';
import { OPERATION_NAMES, type BatchInput } from './ops.js';
import { pathProblem } from '../../core/path-rules.js';
import { invalidUtf8At } from '../../core/utf8.js';

/**
 * The schemas of everything that crosses shadow's boundary, and the
 * translation of their problems into one ShadowError listing `path: message`
 * for each. zod's mini build: its import costs about 3 ms, the full build 50.
 */

/**
 * What a repository path must look like, for JSON Schema readers (an
 * agent's runtime): relative, no empty, `.` or `..` segment, no `.git` in
 * any case, no control character or backslash. The engine's own check
 * (pathProblem) stays the authority; this catches the same mistakes early.
 */
export const REPO_PATH_PATTERN = String.raw`^(?![A-Za-z]:)(?!/)(?!.*//)(?!.*/$)(?!(?:.*/)?\.\.?(?:/|$))(?!(?:.*/)?(?:\.[Gg][Ii][Tt]|[Gg][Ii][Tt]~1)[. ]*(?:/|$))[^\u0000-\u001f\u007f\\]+$`;

/** A path relative to the repository root, checked by the engine's path rules. */
export const RepoPath = z.string().check(
  z.superRefine((value, ctx) => {
    const problem = pathProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, input: value });
  }),
);

const Expect = z.optional(z.string());
const Mode = z.enum(['100644', '100755']);

const WriteOp = z.strictObject({
  operation: z.literal('write'),
  path: RepoPath,
  content: z.string(),
  encoding: z.optional(z.enum(['utf8', 'base64'])),
  mode: z.optional(Mode),
  expect: Expect,
});
const EditOp = z.strictObject({
  operation: z.literal('edit'),
  path: RepoPath,
  old_content: z.string().check(z.minLength(1)),
  content: z.string(),
  expect: Expect,
});
const PatchOp = z.strictObject({
  operation: z.literal('patch'),
  path: RepoPath,
  diff: z.string().check(z.minLength(1)),
  expect: Expect,
});
const DeleteOp = z.strictObject({ operation: z.literal('delete'), path: RepoPath, expect: Expect });
const RenameOp = z.strictObject({ operation: z.literal('rename'), path: RepoPath, to: RepoPath, expect: Expect });
const ChmodOp = z.strictObject({ operation: z.literal('chmod'), path: RepoPath, mode: Mode, expect: Expect });
/** A patch in Codex's apply_patch format (codex-patch.ts): its paths are in its text, checked as it resolves. */
const ApplyPatchOp = z.strictObject({ operation: z.literal('apply_patch'), patch: z.string().check(z.minLength(1)) });

/** One file operation. */
export const FileOperationSchema = z.discriminatedUnion('operation', [
  WriteOp,
  EditOp,
  PatchOp,
  DeleteOp,
  RenameOp,
  ChmodOp,
  ApplyPatchOp,
]);

/** A batch: `{intent?, actor?, request_id?, operations: [...]}`. */
export const BatchInputSchema = z.strictObject({
  intent: z.optional(z.string().check(z.maxLength(10_000))),
  actor: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  // A client's own id for the request: a batch sent again with it returns the first one's commit (it lives in a commit trailer).
  request_id: z.optional(
    z.string().check(z.regex(/^[A-Za-z0-9._:@+-]{1,128}$/, 'is 1 to 128 of A-Z a-z 0-9 . _ : @ + -')),
  ),
  operations: z.array(FileOperationSchema).check(z.minLength(1)),
});

/** One problem of an input, located by its path in the document. */
export interface InputProblem {
  path: string;
  message: string;
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s ? `.${String(p)}` : String(p);
  return s || '(document)';
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let v: unknown = root;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

function withArticle(noun: string): string {
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function kindOf(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : withArticle(typeof v);
}

/** Turn zod issues into messages a person or a model can act on. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], input: unknown): InputProblem[] {
  return issues.map((issue) => {
    const path = formatPath(issue.path);
    const value = valueAt(input, issue.path);
    switch (issue.code) {
      case 'invalid_type':
        return {
          path,
          message:
            value === undefined
              ? `is missing (expected ${issue.expected})`
              : `must be ${withArticle(issue.expected)}, got ${kindOf(value)}`,
        };
      case 'unrecognized_keys':
        return {
          path,
          message: `has unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`,
        };
      case 'invalid_union': {
        const disc = (issue as { discriminator?: string }).discriminator;
        if (disc === 'operation') {
          return {
            path,
            message:
              value === undefined
                ? `is missing (one of ${OPERATION_NAMES.join(', ')})`
                : `"${String(value)}" is not an operation; use one of ${OPERATION_NAMES.join(', ')}`,
          };
        }
        return { path, message: 'does not match any accepted shape' };
      }
      case 'invalid_value':
        return {
          path,
          message: `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${JSON.stringify(value)}`,
        };
      case 'too_small':
        if (issue.origin === 'array')
          return {
            path,
            message:
              Number(issue.minimum) === 1 ? 'is empty; send at least one' : `needs at least ${issue.minimum} items`,
          };
        if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint')
          return { path, message: `must be at least ${issue.minimum}, got ${JSON.stringify(value)}` };
        return {
          path,
          message: Number(issue.minimum) === 1 ? 'must not be empty' : `must be at least ${issue.minimum} long`,
        };
      case 'too_big':
        if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint')
          return { path, message: `must be at most ${issue.maximum}, got ${JSON.stringify(value)}` };
        return {
          path,
          message: `must be at most ${issue.maximum}${issue.origin === 'array' ? ' items' : ' characters'}`,
        };
      default:
        return { path, message: issue.message };
    }
  });
}

/** Validate with `schema`, or throw `code` listing every problem. */
export function validate<T>(
  schema: z.ZodMiniType<T>,
  input: unknown,
  code: 'INVALID_BATCH' | 'INVALID_ARGUMENT',
  what: string,
): T {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const problems = describeIssues(r.error.issues, input);
  const noun = problems.length === 1 ? 'problem' : 'problems';
  throw new ShadowError(
    code,
    `${what} is invalid (${problems.length} ${noun}): ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
    {
      hint:
        code === 'INVALID_BATCH'
          ? 'fix every listed field and resend the whole batch; nothing was written'
          : 'check the arguments',
      data: { problems },
    },
  );
}

const BOM = '\uFEFF';
// ignoreBOM keeps a leading BOM in the text, so positions in it count from the document's first byte.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Where a place in a shortened document stands in the document it was made
 * from: batch-stream.ts parses a large document with each operation cut out
 * and a short stand-in left in its place, and answers the errors of what
 * is left with the byte offsets, positions, lines and columns of the whole.
 */
export interface Shortening {
  /** The document's byte offset of byte `offset` of the shortened bytes. */
  offset(offset: number): number;
  /** The document's character position, line and column of character `at` of the shortened text `text` (its start). */
  place(text: string, at: number): { position: number; line: number; column: number };
}

/**
 * Decode a JSON document's bytes as UTF-8, refusing what is not: a lenient
 * decode would turn a path byte `\xff` into U+FFFD and write a file nobody
 * asked for. INVALID_JSON names the byte offset of the first byte that does
 * not decode (`data.offset`). `shortened`: the bytes stand for a larger
 * document, whose offset and line the error gives.
 *
 * @example
 * decodeJsonBytes(await readFile('batch.json'))
 */
export function decodeJsonBytes(bytes: Uint8Array, what = 'batch', shortened?: Shortening): string {
  const at = invalidUtf8At(bytes);
  if (at === -1) return strictUtf8.decode(bytes);
  const before = strictUtf8.decode(bytes.subarray(0, at));
  const line = shortened ? shortened.place(before, before.length).line : before.split('\n').length;
  const offset = shortened ? shortened.offset(at) : at;
  // The valid text before the bad byte reads as a document cut off there, which says which field held it.
  const cut = before.trim() === '' ? undefined : diagnoseJson(before.startsWith(BOM) ? before.slice(1) : before);
  const inside = cut?.truncated ? cut.inside : undefined;
  const byte = bytes[at]!;
  throw new ShadowError(
    'INVALID_JSON',
    `the ${what} JSON is not valid UTF-8: byte 0x${byte.toString(16).padStart(2, '0')} at byte offset ${offset} (line ${line}${inside ? `, inside ${inside}` : ''}) does not decode`,
    {
      hint: `send the ${what} as UTF-8 text; file content that is not text goes in a write op with "encoding": "base64"`,
      data: { offset, byte, line, ...(inside ? { inside } : {}) },
    },
  );
}

/**
 * Parse batch JSON, given as text or as UTF-8 bytes; INVALID_JSON says where
 * and whether it was cut off. A leading byte order mark is skipped, as git
 * and most JSON tools skip it; positions still count it. `shortened`: the
 * input stands for a larger document, where the error's positions are.
 */
export function parseJsonText(input: string | Uint8Array, what = 'batch', shortened?: Shortening): unknown {
  const text = typeof input === 'string' ? input : decodeJsonBytes(input, what, shortened);
  const skip = text.startsWith(BOM) ? 1 : 0;
  const body = skip ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch {
    const d = diagnoseJson(body);
    const { position, line, column } = shortened
      ? shortened.place(text, d.position + skip)
      : { position: d.position + skip, line: d.line, column: d.line === 1 ? d.column + skip : d.column };
    const at = `at character ${position} (line ${line}, column ${column})`;
    const message = d.truncated
      ? `the ${what} JSON is cut off ${at}: ${d.reason}; it was probably truncated in transit`
      : `the ${what} JSON is malformed ${at}: ${d.reason}`;
    throw new ShadowError('INVALID_JSON', message, {
      hint: d.truncated
        ? `resend the whole ${what}; large file contents are safer in smaller batches`
        : `send one valid JSON document`,
      data: { position, line, column, truncated: d.truncated, inside: d.inside },
    });
  }
}

/** Validate a batch document. */
export function validateBatch(input: unknown): BatchInput {
  return validate(BatchInputSchema, input, 'INVALID_BATCH', 'the batch') as BatchInput;
}

/** A path a reader asks for (`cat`, `ls`): INVALID_PATH unless shadow would accept it in a batch. */
export function checkPath(path: string): string {
  const problem = pathProblem(path);
  if (problem) {
    throw new ShadowError(
      'INVALID_PATH',
      `"${path.length > 200 ? `${path.slice(0, 200)}…` : path}" is not a path shadow reads: ${problem}`,
      {
        hint: 'give a path relative to the repository root, with forward slashes',
        data: { path },
      },
    );
  }
  return path;
}
