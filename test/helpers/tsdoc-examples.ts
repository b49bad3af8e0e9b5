/**
 * The `@example` blocks of TSDoc comments, and a type check of them against
 * the built library (its declarations in dist/src/), as a program that reads
 * the API reference would write them.
 */
import ts from 'typescript';
import { join } from 'node:path';

/** One `@example` block: where it stands, and its code. */
export interface ExampleBlock {
  /** The source file, as given. */
  file: string;
  /** The declaration it documents: `Class.method`, `Interface.method`, `function`. */
  member: string;
  /** The 1-based line of the block's first line of code in `file`. */
  line: number;
  code: string;
}

/** A block that does not compile: where, and what the compiler says. */
export interface ExampleProblem {
  file: string;
  member: string;
  line: number;
  message: string;
}

// The block tags that end an `@example`, as TypeDoc reads them: a tag after whitespace, mid-line too.
const TAG_NAMES = 'example|param|returns?|internal|see|throws|remarks|deprecated|defaultValue|typeParam|privateRemarks';
const BLOCK_TAG = new RegExp(String.raw`(^|\s)@(${TAG_NAMES})\b`, 'g');

/** The name a declaration is documented under, with its container's name. */
function memberName(node: ts.Node): string {
  const own = (n: ts.Node): string | undefined => {
    const name = (n as { name?: ts.Node }).name;
    const named = name && (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name));
    return named ? name.text : undefined;
  };
  const names: string[] = [];
  for (let n: ts.Node | undefined = node; n && !ts.isSourceFile(n); n = n.parent) {
    const name = own(n);
    const container = ts.isClassLike(n) || ts.isInterfaceDeclaration(n) || ts.isFunctionLike(n);
    const holder = container || ts.isVariableDeclaration(n) || ts.isPropertyDeclaration(n);
    if (name !== undefined && holder) names.unshift(name);
  }
  return names.join('.') || '(module)';
}

/** The JSDoc comments attached to `node` itself (not those TypeScript borrows from its parent). */
function ownDocs(node: ts.Node): ts.JSDoc[] {
  return ((node as { jsDoc?: ts.JSDoc[] }).jsDoc ?? []).filter((d) => d.parent === node);
}

/**
 * Every `@example` block of `text` (a TypeScript source), with the
 * declaration it documents and the line where its code starts. Keep
 * `wanted` to choose declarations by their documented name.
 */
export function examplesOf(
  file: string,
  text: string,
  wanted: (member: string) => boolean = () => true,
): ExampleBlock[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const blocks: ExampleBlock[] = [];
  const visit = (node: ts.Node): void => {
    for (const doc of ownDocs(node)) {
      const member = memberName(node);
      const first = sf.getLineAndCharacterOfPosition(doc.getStart(sf)).line + 1;
      if (wanted(member)) blocks.push(...blocksOfComment(file, member, first, doc.getText(sf)));
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return blocks;
}

/** The `@example` blocks of one comment, whose first line is line `first` of the file. */
function blocksOfComment(file: string, member: string, first: number, comment: string): ExampleBlock[] {
  const lines = comment
    .split('\n')
    .map((l, i) =>
      (i === 0 ? l.replace(/^\s*\/\*\*/, '') : l.replace(/^\s*\*(?!\/)\s?/, '')).replace(/\s*\*\/\s*$/, ''),
    );
  // The comment as one text with each character's line, so a block found anywhere maps back to the file.
  const text = lines.join('\n');
  const lineAt = (pos: number): number => first + (text.slice(0, pos).match(/\n/g)?.length ?? 0);
  const tags = [...text.matchAll(BLOCK_TAG)].map((m) => ({
    name: m[2],
    start: m.index + m[1]!.length,
    end: m.index + m[0].length,
  }));
  const blocks: ExampleBlock[] = [];
  tags.forEach((tag, i) => {
    if (tag.name !== 'example') return;
    const end = tags[i + 1]?.start ?? text.length;
    let start = tag.end;
    while (start < end && /\s/.test(text[start]!)) start++;
    let code = text.slice(start, end).replace(/\s+$/, '');
    let line = lineAt(start);
    const fenced = /^```[a-z]*\n([\s\S]*?)\n?```$/.exec(code);
    if (fenced) {
      code = fenced[1]!;
      line += 1;
    }
    if (code !== '') blocks.push({ file, member, line, code });
  });
  return blocks;
}

/**
 * The names a module exports (`export { a, type B } from`, `export
 * function`, `export class`), with whether each is a type only.
 */
export function exportedNames(file: string, text: string): Map<string, { typeOnly: boolean }> {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const names = new Map<string, { typeOnly: boolean }>();
  for (const s of sf.statements) {
    if (ts.isExportDeclaration(s) && s.exportClause && ts.isNamedExports(s.exportClause)) {
      for (const e of s.exportClause.elements) names.set(e.name.text, { typeOnly: s.isTypeOnly || e.isTypeOnly });
    } else if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && s.name && isExported(s)) {
      names.set(s.name.text, { typeOnly: false });
    }
  }
  return names;
}

/** Whether a statement carries `export`. */
function isExported(s: ts.Statement): boolean {
  return ts.getModifiers(s as ts.HasModifiers)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false;
}

/**
 * What an example may use without writing it: the library's exports, a few
 * Node built-ins the examples reach for, and these placeholders.
 */
const PLACEHOLDERS = [
  "declare const dir: string; // a repository's directory",
  "declare const id: string; // a write session's id",
];
const NODE_IMPORTS = [
  "import { readFile } from 'node:fs/promises';",
  "import { createReadStream } from 'node:fs';",
  "import { execFileSync, spawn } from 'node:child_process';",
  "import { pathToFileURL } from 'node:url';",
];
/** The package's name: an example may import from it, as a program using the library does. */
const PACKAGE = 'shadow-drafts';

/**
 * Type-check each block as the body of `async function (sh: Shadow)` in a
 * module of its own beside `libraryDir` (the built dist/src/), the
 * library's exports in scope. Returns the blocks that do not compile.
 */
export function checkExamples(
  blocks: readonly ExampleBlock[],
  libraryDir: string,
  exports: ReadonlyMap<string, { typeOnly: boolean }>,
): ExampleProblem[] {
  const virtual = new Map<string, { block: ExampleBlock; headerLines: number; text: string }>();
  blocks.forEach((block, i) => {
    const own = block.code.split('\n').filter((l) => /^\s*import\s/.test(l));
    const body = block.code.split('\n').map((l) => (/^\s*import\s/.test(l) ? '' : l));
    const importedBy = (l: string): string[] =>
      [...(/\{([^}]*)\}/.exec(l)?.[1] ?? '').matchAll(/(\w+)\s*(?:,|$)/g)].map((m) => m[1]!);
    const mine = new Set(own.flatMap(importedBy));
    const names = [...exports].filter(([n]) => !mine.has(n)).map(([n, e]) => (e.typeOnly ? `type ${n}` : n));
    if (!names.includes('type Shadow') && !names.includes('Shadow') && !mine.has('Shadow')) names.push('type Shadow');
    const header = [
      ...own.map((l) => l.replace(`'${PACKAGE}'`, "'./index.js'")),
      `import { ${names.join(', ')} } from './index.js';`,
      ...NODE_IMPORTS,
      ...PLACEHOLDERS,
      // The inner block lets an example open its own `sh`.
      `export async function example(sh: Shadow): Promise<void> { {`,
    ];
    const text = [...header, ...body, '} }', ''].join('\n');
    virtual.set(join(libraryDir, `__example_${i}.ts`), { block, headerLines: header.length, text });
  });
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.es2024.string.d.ts'],
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    noEmit: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (f) => virtual.get(f)?.text ?? readFile(f);
  host.fileExists = (f) => virtual.has(f) || fileExists(f);
  host.getSourceFile = (f, lang, ...rest) => {
    const v = virtual.get(f);
    return v ? ts.createSourceFile(f, v.text, lang) : getSourceFile(f, lang, ...rest);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  const problems: ExampleProblem[] = [];
  for (const [f, v] of virtual) {
    const sf = program.getSourceFile(f)!;
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      const at = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line;
      const { file, member, line } = v.block;
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      problems.push({ file, member, line: line + Math.max(0, at - v.headerLines), message });
    }
  }
  return problems;
}
