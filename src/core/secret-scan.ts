/**
 * The secret guard: finds credentials in the lines a change adds.
 *
 * Why not secretlint. Its recommended preset (@secretlint/core and
 * @secretlint/secretlint-rule-preset-recommend 12.0, default options) was
 * measured against the corpus in test/fixtures/secrets/ (85 made-up secrets,
 * 98 look-alikes) by bench/secrets.bench.ts, which prints both side by side.
 * It misses two of the three targets: recall 48% (target 100%) and false
 * positives 6% (target at most 5%). Its speed is borderline: 47 to 68 MB/s
 * on source-like text across runs on a loaded machine (target 50), about a
 * third of shadow's (136 to 188 MB/s in the same runs), plus a fixed cost of
 * about 0.35 ms a file (shadow: about 10 µs), which dominates when a review
 * scans many small files.
 * Where its rules fall short, rule by rule:
 *   - no rule at all for Stripe keys, Google API keys, JWTs, or a generic
 *     keyword-plus-entropy secret (all required here): 26 of its 44 misses;
 *   - AWS access key ids are off in the preset (`enableIDScanRule: false`);
 *     its secret access key pattern ends in `\b`, so a key whose last
 *     character is `/` or `+` is missed (1 key in 32);
 *   - GitLab: `glpat-` only (no trigger, deploy or runner tokens); Slack: no
 *     rotating `xoxe.` tokens, webhooks under `/services/` only; Anthropic:
 *     `sk-ant-api0N-` only (no admin keys);
 *   - private keys only when the body is at least 100 base64 characters and
 *     starts with `MI` or the OpenSSH magic: EC keys (`MHc…`), Ed25519 PKCS#8
 *     keys (64 characters), PGP and encrypted PKCS#8 blocks go unreported;
 *   - no placeholder defence on its token rules: `ghp_xxx…`, Slack's own
 *     documentation webhook (`T00000000/B00000000/XXXX…`), `xoxb-your-bot-token`
 *     and `npm_XXXX…` are reported (5 of its 6 false positives).
 * Where it has rules, its patterns are exact (it found every GitHub, OpenAI
 * and npm key of the corpus), and it knows providers shadow has no rule for
 * (SendGrid, Shopify, Hugging Face, …). But since it would need half the
 * rules rewritten and a placeholder layer on top, the rules here are
 * shadow's own, written after each provider's published format, with the
 * false-positive defences of mature scanners (gitleaks, detect-secrets):
 * entropy floors, placeholders and typed-in runs (`abcdefgh`, `00000000`),
 * references rather than values (`process.env.X`, `getPassword()`), and an
 * inline `shadow:allow-secret` pragma.
 *
 * Speed and linearity: one anchor regex runs over the whole text (native,
 * linear) and tells, line by line, which rules its hits can lead to; only
 * those rules run, on those lines. Every rule regex is linear in its line
 * and bounded in what it backtracks: a token rule starts only where its own
 * character class starts (a lookbehind) and ends greedily where the class
 * ends (a lookahead), with the format's longest length as its bound (V8
 * overflows its backtrack stack on an unbounded class over megabytes), so no
 * start lies inside another start's run; keyword rules use bounded gaps only.
 */

import {
  entropy,
  looksReal,
  PLACEHOLDER,
  redact,
  RULES,
  type SecretFinding,
  type SecretWhere,
} from './secret-rules.js';

export { entropy, redact, RULES, type SecretFinding, type SecretRule, type SecretWhere } from './secret-rules.js';

/** Anything a rule could match starts near one of these (the source of a fresh global regex per scan). */
const ANCHORS =
  /AKIA|ASIA|ABIA|ACCA|gh[pousr]_|github_pat_|gl(?:patt?|ptt|dt|rt|soat|cbt)-|xox[abposre]|xapp-|hooks\.slack\.com|[sr]k_(?:live|test)_|whsec_|AIza|npm_|sk-|eyJ|private[_ -]?key|passw|pwd|secret|token|api[_-]?key|access[_-]?key|auth[_-]?key|credential/gi;

const ruleBit = (id: string): number => 1 << RULES.findIndex((r) => r.id === id);
const GENERIC = ruleBit('generic-secret') | ruleBit('aws-secret-access-key');
/** The rules an anchor (lower-cased) can lead to, as bits of RULES indexes. */
function rulesOf(anchor: string): number {
  if (anchor.startsWith('github_pat_')) return ruleBit('github-fine-grained-token');
  if (/^gh._$/.test(anchor)) return ruleBit('github-token');
  if (/^gl.*-$/.test(anchor)) return ruleBit('gitlab-token');
  if (anchor.startsWith('xox') || anchor === 'xapp-') return ruleBit('slack-token');
  if (anchor.startsWith('hooks.')) return ruleBit('slack-webhook');
  if (/^[sr]k_/.test(anchor)) return ruleBit('stripe-key');
  if (anchor === 'whsec_') return ruleBit('stripe-webhook-secret');
  if (anchor === 'aiza') return ruleBit('google-api-key');
  if (anchor === 'npm_') return ruleBit('npm-token');
  if (anchor === 'sk-') return ruleBit('openai-key') | ruleBit('anthropic-key');
  if (anchor === 'eyj') return ruleBit('jwt');
  if (anchor.startsWith('private')) return ruleBit('private-key') | GENERIC;
  if (/^a(?:kia|sia|bia|cca)$/.test(anchor)) return ruleBit('aws-access-key-id');
  return GENERIC;
}
const RULES_OF = new Map<string, number>();

const PRAGMA = 'shadow:allow-secret';

const BASE64_RUN = /^[A-Za-z0-9+/]{1,4096}/;
/** How far past the header a private key body is looked for: blank lines and armor headers (PGP, legacy PEM) come first. */
const KEY_BODY_LOOKAHEAD = 6;

/**
 * The lines to scan, all in one string joined by newlines, without an object
 * a line: `number(i)` is the 1-based line in the file of the i-th line.
 */
interface Source {
  text: string;
  number(i: number): number;
  where: SecretWhere;
  /** Given: receives each value found, for masking it in place (never stored). */
  values?: string[];
}

/** Walks the lines of a source forward: the line holding an offset, and the lines after it. */
class Cursor {
  i = 0;
  start = 0;
  end: number;
  constructor(private readonly text: string) {
    this.end = this.lineEnd(0);
  }
  private lineEnd(from: number): number {
    const e = this.text.indexOf('\n', from);
    return e === -1 ? this.text.length : e;
  }
  /** Move to the line holding `offset` (never backwards). */
  seek(offset: number): void {
    while (this.end < offset && this.next());
  }
  /** Move to the next line; false past the last. */
  next(): boolean {
    if (this.end >= this.text.length) return false;
    this.start = this.end + 1;
    this.end = this.lineEnd(this.start);
    this.i++;
    return true;
  }
  get line(): string {
    return this.text.slice(this.start, this.end);
  }
  /** A cursor on the same line, to walk on from without moving this one. */
  clone(): Cursor {
    const c = new Cursor(this.text);
    c.i = this.i;
    c.start = this.start;
    c.end = this.end;
    return c;
  }
}

/**
 * The body of the private key whose header on line `at` is followed by
 * `after`, or undefined when none follows (code that names the header,
 * documentation with an elided body). A body is base64, at least 40
 * characters on its first line, random-looking and no placeholder. It is on
 * the same line after an escaped newline (JSON), or on the next given lines,
 * which must be the next lines of the file. null: the body cannot be seen (the
 * header is the last given line), and a key is the safe guess.
 */
function privateKeyBody(src: Source, at: Cursor, after: string): string | undefined | null {
  const isBody = (text: string): string | undefined => {
    const body = BASE64_RUN.exec(text)?.[0] ?? '';
    if (body.length < 40 || PLACEHOLDER.test(text.slice(0, body.length + 64)) || entropy(body) < 3.5) return undefined;
    return body;
  };
  const rest = after.replace(/^(?:\\[nr]){1,8}/, '');
  if (BASE64_RUN.test(rest)) return isBody(rest);
  // The header is alone on its line (a PEM file, a YAML block, a template literal), or ends a
  // string continued on the next line ("-----BEGIN …-----\n" +). Anything else closed the string.
  if (!/^\s*$|^["'`]\s*\+\s*$/.test(rest)) return undefined;
  const c = at.clone();
  for (let n = 0; n < KEY_BODY_LOOKAHEAD; n++) {
    const prev = src.number(c.i);
    if (!c.next()) return null;
    if (src.number(c.i) !== prev + 1) return null;
    const text = c.line.replace(/^[\s"'`+|]{1,256}/, '');
    if (text === '' || /^[A-Za-z-]+: /.test(text)) continue;
    return isBody(text);
  }
  return undefined;
}

/** The global form of each rule's pattern, made once. */
const GLOBAL = RULES.map((r) => new RegExp(r.pattern.source, `${r.pattern.flags.replace('g', '')}g`));

/** The rules (bits) the anchors in `text` lead to, each line's in `perLine` if given. */
function anchorRules(text: string, perLine?: (line: Cursor, rules: number) => void): number {
  const anchors = new RegExp(ANCHORS.source, 'gi');
  const c = new Cursor(text);
  let all = 0;
  let line = 0;
  for (let m = anchors.exec(text); m; m = anchors.exec(text)) {
    if (perLine && m.index > c.end) {
      if (line !== 0) perLine(c, line);
      line = 0;
      c.seek(m.index);
    }
    const a = m[0].toLowerCase();
    let bits = RULES_OF.get(a);
    if (bits === undefined) RULES_OF.set(a, (bits = rulesOf(a)));
    line |= bits;
    all |= bits;
  }
  if (perLine && line !== 0) perLine(c, line);
  return all;
}

/**
 * Scan one line with the rules in `rules` (bits); findings in rule order, one
 * per rule and value. `text` and `lineAt` stand in for the line when it is a
 * join of several.
 */
function scanLine(
  src: Source,
  at: Cursor,
  rules: number,
  path: string,
  out: SecretFinding[],
  text = at.line,
  lineAt: (index: number) => number = () => src.number(at.i),
): void {
  const found: string[] = [];
  for (let r = 0; r < RULES.length; r++) {
    if ((rules & (1 << r)) === 0) continue;
    const rule = RULES[r]!;
    const re = GLOBAL[r]!;
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      let value: string | undefined | null = m[1] ?? m[0];
      if (rule.id === 'private-key') {
        value = privateKeyBody(src, at, text.slice(m.index + m[0].length));
        if (value === null) value = m[1] ?? m[0];
        if (value === undefined) continue;
      } else if (!looksReal(rule, value)) continue;
      if (found.includes(value)) continue;
      // A value a provider rule already named is not also a generic secret.
      if (rule.id === 'generic-secret' && found.some((v) => v.includes(value!) || value!.includes(v))) continue;
      found.push(value);
      src.values?.push(value);
      const index = m[1] === undefined ? m.index : m.index + m[0].indexOf(m[1]);
      out.push({
        rule: rule.id,
        description: rule.description,
        where: src.where,
        path,
        line: lineAt(index),
        redacted: redact(value),
      });
    }
  }
}

/** One added line of a change: its 1-based number in the new content, and its text (without its newline). */
export interface AddedLine {
  line: number;
  text: string;
}

/** How a string literal is continued at the end of a line: `"abc" +`, `"abc" \`, `"abc\` (shell), or a bare `"abc"` (implicit concatenation). */
const CONTINUED = /(["'`])([^"'`\s\\]*)\1\s*(?:\+|\\)?\s*$|(["'])([^"'`\s\\]*)\\$/;
/** How the next line carries on: a literal (`"def"`) or, after a shell `\` inside quotes, the bare rest (`def"`). */
const CARRIED = /^\s*(?:(["'`])([^"'`\s\\]*)\1|([^"'`\s\\]+)["'])/;
/** Lines that may continue a literal: they end with a quote, `+` or `\`. */
const MAY_CONTINUE = /["'`+\\][ \t\r]*$/gm;
/** Only this much of the end of a continued line and the start of the next is looked at: bounds the work on very long lines. */
const JOIN_WINDOW = 512;

function scan(path: string, src: Source): SecretFinding[] {
  const out: SecretFinding[] = [];
  anchorRules(src.text, (line, rules) => {
    if (!line.line.includes(PRAGMA)) scanLine(src, line, rules, path, out);
  });
  joinContinued(path, src, out);
  return out;
}

/**
 * Scan string literals continued across lines (`"abc" +` then `"def"`, a
 * trailing backslash, adjacent literals) joined, keeping only the findings the
 * join reveals: a token split across lines is still found, on the line where
 * it starts. Each chain of continued lines is joined and scanned once.
 */
function joinContinued(path: string, src: Source, out: SecretFinding[]): void {
  const { text } = src;
  const cursor = new Cursor(text);
  const reported = new Set(out.map((f) => `${f.line}:${f.rule}`));
  const candidates = new RegExp(MAY_CONTINUE.source, 'gm');
  for (let m = candidates.exec(text); m; m = candidates.exec(text)) {
    cursor.seek(m.index);
    const from = Math.max(cursor.start, cursor.end - JOIN_WINDOW);
    const a = text.slice(from, cursor.end);
    if (a.includes(PRAGMA)) continue;
    const cont = CONTINUED.exec(a);
    if (!cont) continue;
    let joined = `${text.slice(cursor.start, from + cont.index)}"${cont[2] ?? cont[4] ?? ''}`;
    // Where each line's piece starts in `joined`, and that line's number.
    const pieces: Array<[number, number]> = [[0, src.number(cursor.i)]];
    const c = cursor.clone();
    for (;;) {
      const prevNo = src.number(c.i);
      if (!c.next() || src.number(c.i) !== prevNo + 1) break;
      const b = text.slice(c.start, Math.min(c.end, c.start + JOIN_WINDOW));
      if (b.includes(PRAGMA)) break;
      const next = CARRIED.exec(b);
      if (!next) break;
      pieces.push([joined.length, src.number(c.i)]);
      joined += next[2] ?? next[3] ?? '';
      // The lines of this chain start no chain of their own.
      candidates.lastIndex = Math.max(candidates.lastIndex, c.end);
      // Carry on only if this line is itself a literal continued (`"def" +`).
      if (!/^\s*[+\\]\s*$/.test(b.slice(next[0].length))) break;
    }
    if (pieces.length === 1) continue;
    joined += '"';
    const rules = anchorRules(joined);
    if (rules === 0) continue;
    const lineAt = (index: number): number => {
      let k = pieces.length - 1;
      while (k > 0 && pieces[k]![0] > index) k--;
      return pieces[k]![1];
    };
    const found: SecretFinding[] = [];
    scanLine(src, cursor, rules, path, found, joined, lineAt);
    for (const f of found) {
      const key = `${f.line}:${f.rule}`;
      if (reported.has(key)) continue;
      reported.add(key);
      out.push(f);
    }
  }
}

/**
 * Scan the added lines of one file. A line with the `shadow:allow-secret`
 * pragma is skipped. A string literal continued on the next added line
 * (`"abc" +` then `"def"`, a trailing backslash, or adjacent literals) is
 * also scanned joined, so a token split across lines is still found.
 */
export function scanAddedLines(path: string, lines: readonly AddedLine[]): SecretFinding[] {
  if (lines.length === 0) return [];
  return scan(path, { text: lines.map((l) => l.text).join('\n'), number: (i) => lines[i]!.line, where: 'content' });
}

/** Scan a whole text as added lines (a new file; or, with `where`, a path, a message, a name). */
export function scanText(path: string, text: string, where: SecretWhere = 'content'): SecretFinding[] {
  return scan(path, { text, number: (i) => i + 1, where });
}

/** ANCHORS without `g`: a `test` that keeps no state between calls. */
const ANY_ANCHOR = new RegExp(ANCHORS.source, 'i');

/** Quick test: can anything in `text` be a secret? False means surely not (no anchor of any rule). */
function mayHoldSecret(text: string): boolean {
  return ANY_ANCHOR.test(text);
}

/**
 * `value` with every string in it masked by `maskSecrets` (objects and
 * arrays walked, keys kept): for records that must never hold a secret,
 * such as the ledger's events.
 */
export function maskSecretsIn<T>(value: T): T {
  if (typeof value === 'string') return (mayHoldSecret(value) ? maskSecrets(value) : value) as T;
  if (Array.isArray(value)) return value.map((v) => maskSecretsIn(v)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = maskSecretsIn(v);
    return out as T;
  }
  return value;
}

/** The lines of a private key block: header, base64 body lines (with a diff's `+`, `-` or ` ` before them), end. */
const KEY_BLOCK = /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----[^]{0,65536}?(?:-----END|$)/g;
const KEY_BODY_RUN = /[A-Za-z0-9+/=]{16,}/g;

/**
 * `text` with every secret the rules find on any of its lines masked, the
 * one way shadow shows a secret (first 4 characters, then a mask), wherever
 * the value appears in it. A private key's block is masked whole, every
 * base64 line of its body. The text may be a diff: a line's first
 * character is read as the diff's mark, so added, removed and context lines
 * are read alike, as are the paths in its headers.
 */
export function maskSecrets(text: string): string {
  if (!mayHoldSecret(text)) return text;
  const values: string[] = [];
  const lines = text.split('\n').map((l) => (/^[-+ ]/.test(l) && !/^(?:\+\+\+|---) /.test(l) ? l.slice(1) : l));
  scan('', { text: lines.join('\n'), number: (i) => i + 1, where: 'content', values });
  let out = text;
  // Longest first: a value inside another is masked with it.
  for (const v of [...new Set(values)].sort((a, b) => b.length - a.length)) out = out.split(v).join(redact(v));
  if (out.includes('PRIVATE KEY'))
    out = out.replace(KEY_BLOCK, (block) =>
      block.replace(KEY_BODY_RUN, (run) => (/[a-z]/.test(run) && /[A-Z0-9]/.test(run) ? redact(run) : run)),
    );
  return out;
}
