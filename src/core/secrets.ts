/**
 * The secret guard: finds credentials in the lines a change adds.
 *
 * secretlint's recommended preset was measured against the corpus in
 * test/fixtures/secrets/ (see bench/secrets.bench.ts, which prints both): it
 * has no rule for Stripe keys, Google API keys, JWTs or a generic
 * keyword-plus-entropy secret, misses fine-grained GitHub tokens, project
 * OpenAI keys and lone AWS access key ids, and reports nothing for a private
 * key whose body is not a valid key; and it loads about 600 KB of code into
 * every process that scans. So the rules are shadow's own, written after the
 * published formats of each provider, with the false-positive defences of
 * mature scanners: entropy floors, placeholders, and an inline pragma.
 *
 * Speed: one anchor regex runs over the whole text (native, linear); rule
 * regexes run only on the lines an anchor hits.
 */

export interface SecretRule {
  id: string;
  description: string;
  /** Applied to one line; the value is the first capture group (or the whole match). */
  pattern: RegExp;
  /** Least Shannon entropy (bits a character) of the value. */
  minEntropy?: number;
}

export interface SecretFinding {
  rule: string;
  description: string;
  path: string;
  /** 1-based line in the new content. */
  line: number;
  /** The value redacted: its first 4 characters and a mask. Never the value itself. */
  redacted: string;
}

/** Redact a secret the one way shadow ever shows one: first 4 characters, then a mask. */
export function redact(value: string): string {
  return `${value.slice(0, 4)}${'*'.repeat(Math.min(Math.max(value.length - 4, 4), 16))}`;
}

export const RULES: readonly SecretRule[] = [
  { id: 'aws-access-key-id', description: 'AWS access key id', pattern: /\b((?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b/ },
  {
    id: 'aws-secret-access-key',
    description: 'AWS secret access key',
    pattern: /aws.{0,20}?(?:secret|private).{0,20}?['"]?\s*[:=]\s*['"]?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/i,
    minEntropy: 4,
  },
  { id: 'github-token', description: 'GitHub token (classic)', pattern: /\b(gh[pousr]_[A-Za-z0-9]{36,251})\b/ },
  { id: 'github-fine-grained-token', description: 'GitHub fine-grained token', pattern: /\b(github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})\b/ },
  { id: 'gitlab-token', description: 'GitLab token', pattern: /\b((?:glpat|glptt|gldt|glrt|glsoat|glcbt)-[A-Za-z0-9_-]{20,})\b/ },
  { id: 'slack-token', description: 'Slack token', pattern: /\b(xox[abposr]-[A-Za-z0-9-]{10,})\b/ },
  {
    id: 'slack-webhook',
    description: 'Slack webhook URL',
    pattern: /(https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_]{8,}\/[A-Za-z0-9_]{8,}\/[A-Za-z0-9_]{16,})/,
  },
  { id: 'stripe-key', description: 'Stripe secret or restricted key', pattern: /\b((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,})\b/ },
  { id: 'stripe-webhook-secret', description: 'Stripe webhook signing secret', pattern: /\b(whsec_[A-Za-z0-9]{32,})\b/ },
  { id: 'google-api-key', description: 'Google API key', pattern: /\b(AIza[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])/ },
  { id: 'npm-token', description: 'npm access token', pattern: /\b(npm_[A-Za-z0-9]{36})\b/ },
  {
    id: 'openai-key',
    description: 'OpenAI API key',
    pattern: /\b(sk-(?!ant-)(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}))(?![A-Za-z0-9_-])/,
  },
  { id: 'anthropic-key', description: 'Anthropic API key', pattern: /\b(sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,})(?![A-Za-z0-9_-])/ },
  {
    id: 'jwt',
    description: 'JSON Web Token',
    pattern: /\b(eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,})(?![A-Za-z0-9_-])/,
  },
  { id: 'private-key', description: 'private key block', pattern: /(-----BEGIN (?:(?:RSA|DSA|EC|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY(?: BLOCK)?-----)/ },
  {
    id: 'generic-secret',
    description: 'a credential assigned to a secret-looking name',
    pattern:
      /(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|auth[_-]?key|client[_-]?secret|private[_-]?key|credentials?)["'\]]?\s*(?:[:=]|=>|:=)\s*["'`]?([^\s"'`;,)]{12,})/i,
    minEntropy: 3.5,
  },
];

/** Anything a rule could match starts near one of these (the source of a fresh global regex per scan). */
const ANCHORS =
  /AKIA|ASIA|ABIA|ACCA|gh[pousr]_|github_pat_|gl(?:patt?|ptt|dt|rt|soat|cbt)-|xox[abposr]-|hooks\.slack\.com|[sr]k_(?:live|test)_|whsec_|AIza|npm_|sk-|eyJ|PRIVATE KEY|passw|pwd|secret|token|api[_-]?key|access[_-]?key|auth[_-]?key|credential/gi;

const PRAGMA = 'shadow:allow-secret';

/** Values that are clearly not real: references, templates, examples. */
const PLACEHOLDER = /\$\{[^}]*\}|\{\{[^}]*\}\}|<[^>]*>|%\([^)]*\)s|EXAMPLE|example|x{6,}|X{6,}|\*{4,}|dummy|placeholder|changeme|change_me|your[_-]|redacted|fake|sample|^\.\.\.$/i;
/** Code that merely names where a secret comes from. */
const REFERENCE = /^(?:process\.env|os\.environ|os\.getenv|env\.|ENV\[|getenv|System\.getenv|\$[A-Z_]+$|config\.|settings\.|secrets\.|vault\.|this\.|self\.|[A-Za-z_]+\(|[A-Z_]+$|true$|false$|null$|None$|undefined$)/;

/** Shannon entropy of `s`, in bits a character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

function looksReal(rule: SecretRule, value: string): boolean {
  if (PLACEHOLDER.test(value)) return false;
  if (rule.id === 'generic-secret' && REFERENCE.test(value)) return false;
  if (rule.minEntropy !== undefined && entropy(value) < rule.minEntropy) return false;
  // A generic value made of one character class only (words, digits) is a name or a number.
  if (rule.id === 'generic-secret' && (/^[a-z_.-]+$/i.test(value) || /^\d+$/.test(value))) return false;
  return true;
}

/** Scan one line; findings in rule order, one per rule and value. */
function scanLine(line: string, path: string, lineNo: number, out: SecretFinding[]): void {
  const specific = new Set<string>();
  for (const rule of RULES) {
    const m = rule.pattern.exec(line);
    if (!m) continue;
    const value = m[1] ?? m[0];
    if (!looksReal(rule, value)) continue;
    // A value a provider rule already named is not also a generic secret.
    if (rule.id === 'generic-secret' && [...specific].some((v) => v.includes(value) || value.includes(v))) continue;
    specific.add(value);
    out.push({ rule: rule.id, description: rule.description, path, line: lineNo, redacted: redact(value) });
  }
}

/** One added line of a change: its 1-based number in the new content, and its text. */
export interface AddedLine {
  line: number;
  text: string;
}

/**
 * Scan the added lines of one file. A line with the `shadow:allow-secret`
 * pragma is skipped. A string literal continued on the next added line
 * (`"abc" +` then `"def"`, or a trailing backslash) is also scanned joined,
 * so a token split across lines is still found.
 */
export function scanAddedLines(path: string, lines: readonly AddedLine[]): SecretFinding[] {
  const out: SecretFinding[] = [];
  const text = lines.map((l) => l.text).join('\n');
  // Line starts, to map an anchor hit to its line.
  const starts: number[] = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const hit = new Set<number>();
  const anchors = new RegExp(ANCHORS.source, 'gi');
  for (let m = anchors.exec(text); m; m = anchors.exec(text)) {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= m.index) lo = mid;
      else hi = mid - 1;
    }
    hit.add(lo);
    // Jump to the next line: one hit a line is enough.
    anchors.lastIndex = lo + 1 < starts.length ? starts[lo + 1]! : text.length;
  }
  for (const i of [...hit].sort((a, b) => a - b)) {
    const l = lines[i]!;
    if (l.text.includes(PRAGMA)) continue;
    scanLine(l.text, path, l.line, out);
  }
  // Literals continued across lines.
  for (let i = 0; i + 1 < lines.length; i++) {
    const a = lines[i]!;
    const b = lines[i + 1]!;
    if (b.line !== a.line + 1 || a.text.includes(PRAGMA) || b.text.includes(PRAGMA)) continue;
    const cont = /(["'])([^"'\s]*)\1\s*\+\s*$/.exec(a.text) ?? /([^\s"'\\]*)\\$/.exec(a.text);
    if (!cont) continue;
    const head = cont[2] ?? cont[1] ?? '';
    const next = /^\s*(["'])([^"'\s]*)\1/.exec(b.text) ?? /^\s*([^\s"']*)/.exec(b.text);
    const tail = next?.[2] ?? next?.[1] ?? '';
    if (head.length < 4 || tail.length < 4) continue;
    const before = out.length;
    scanLine(`${a.text.slice(0, a.text.length - cont[0].length)}"${head}${tail}"`, path, a.line, out);
    // Keep only findings the join revealed.
    for (let k = out.length - 1; k >= before; k--) {
      if (out.slice(0, before).some((f) => f.line === a.line && f.rule === out[k]!.rule)) out.splice(k, 1);
    }
  }
  return out;
}

/** Scan a whole text as added lines (a new file). */
export function scanText(path: string, text: string): SecretFinding[] {
  const lines: AddedLine[] = text.split('\n').map((t, i) => ({ line: i + 1, text: t }));
  return scanAddedLines(path, lines);
}
