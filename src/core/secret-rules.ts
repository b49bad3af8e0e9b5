/**
 * The rules of the secret guard, and how a matched value is judged real:
 * provider formats (prefixes, alphabets, lengths), entropy floors, and the
 * placeholders and code shapes that are not secrets. The scanner that runs
 * them is in secret-scan.ts.
 */

export interface SecretRule {
  id: string;
  description: string;
  /** Applied to one line; the value is the first capture group (or the whole match). */
  pattern: RegExp;
  /** Least Shannon entropy (bits a character) of the value. */
  minEntropy?: number;
}

/**
 * Where a secret was found: a file's content, a path, a commit message
 * (intent, trailers), a commit's author or committer (the actor), a
 * checkpoint's tag (its name, tagger and message).
 */
export type SecretWhere = 'content' | 'path' | 'message' | 'author' | 'committer' | 'checkpoint';

export interface SecretFinding {
  rule: string;
  description: string;
  where: SecretWhere;
  /** The file (content: its path; path: the path masked); empty for a commit's or a tag's own fields. */
  path: string;
  /** 1-based line in the new content (or in the message, the path, the name). */
  line: number;
  /** The value redacted: its first 4 characters and a mask. Never the value itself. */
  redacted: string;
}

/** Redact a secret the one way shadow ever shows one: first 4 characters, then a mask. */
export function redact(value: string): string {
  return `${value.slice(0, 4)}${'*'.repeat(Math.min(Math.max(value.length - 4, 4), 16))}`;
}

export const RULES: readonly SecretRule[] = [
  {
    id: 'aws-access-key-id',
    description: 'AWS access key id',
    pattern: /\b((?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b/,
    minEntropy: 2.5,
  },
  {
    id: 'aws-secret-access-key',
    description: 'AWS secret access key',
    // `aws…secret…` (env names, YAML under aws:) or `secretAccessKey` (SDK options, `aws sts` JSON).
    pattern:
      /(?:aws.{0,20}?(?:secret|private)|secret_?access_?key).{0,20}?["']?\s{0,4}(?:=>|[:=])\s{0,4}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/i,
    minEntropy: 4,
  },
  {
    id: 'github-token',
    description: 'GitHub token (classic)',
    pattern: /(?<![A-Za-z0-9_])(gh[pousr]_[A-Za-z0-9]{36,251})(?![A-Za-z0-9_])/,
    minEntropy: 3,
  },
  {
    id: 'github-fine-grained-token',
    description: 'GitHub fine-grained token',
    pattern: /(?<![A-Za-z0-9_])(github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})(?![A-Za-z0-9_])/,
    minEntropy: 3,
  },
  {
    id: 'gitlab-token',
    description: 'GitLab token',
    // Personal/project/group (glpat), pipeline trigger (glptt), deploy (gldt), runner (glrt),
    // SCIM/OAuth (glsoat), CI build (glcbt).
    pattern: /(?<![A-Za-z0-9_-])((?:glpat|glptt|gldt|glrt|glsoat|glcbt)-[A-Za-z0-9_-]{20,128})(?![A-Za-z0-9_-])/,
    minEntropy: 3,
  },
  {
    id: 'slack-token',
    description: 'Slack token',
    // Bot, user, app-level, legacy workspace, refresh and rotating (`xoxe.xoxp-…`) tokens.
    pattern: /(?<![A-Za-z0-9.-])((?:xox[abposr]|xoxe\.xox[bp]|xoxe|xapp)-[A-Za-z0-9-]{10,256})(?![A-Za-z0-9-])/,
    minEntropy: 3,
  },
  {
    id: 'slack-webhook',
    description: 'Slack webhook URL',
    pattern:
      /(https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_]{8,64}\/[A-Za-z0-9_]{8,64}\/[A-Za-z0-9_]{16,64})/,
  },
  {
    id: 'stripe-key',
    description: 'Stripe secret or restricted key',
    pattern: /(?<![A-Za-z0-9_])((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,247})(?![A-Za-z0-9_])/,
    minEntropy: 3,
  },
  {
    id: 'stripe-webhook-secret',
    description: 'Stripe webhook signing secret',
    pattern: /(?<![A-Za-z0-9_])(whsec_[A-Za-z0-9]{32,64})(?![A-Za-z0-9_])/,
    minEntropy: 3,
  },
  {
    id: 'google-api-key',
    description: 'Google API key',
    pattern: /(?<![A-Za-z0-9_-])(AIza[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])/,
    minEntropy: 3,
  },
  {
    id: 'npm-token',
    description: 'npm access token',
    pattern: /(?<![A-Za-z0-9_])(npm_[A-Za-z0-9]{36})(?![A-Za-z0-9_])/,
    minEntropy: 3,
  },
  {
    id: 'openai-key',
    description: 'OpenAI API key',
    pattern:
      /(?<![A-Za-z0-9_-])(sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,256}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}))(?![A-Za-z0-9_-])/,
    minEntropy: 3.5,
  },
  {
    id: 'anthropic-key',
    description: 'Anthropic API key',
    pattern: /(?<![A-Za-z0-9_-])(sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,256})(?![A-Za-z0-9_-])/,
    minEntropy: 3.5,
  },
  {
    id: 'jwt',
    description: 'JSON Web Token',
    // Header and payload are base64url JSON objects (`eyJ`); the signature is not empty (unsigned
    // `alg: none` tokens carry nothing to steal). No part contains a dot, so each run of the
    // class is scanned a bounded number of times.
    pattern:
      /(?<![A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{10,8192}\.eyJ[A-Za-z0-9_-]{10,8192}\.[A-Za-z0-9_-]{16,8192})(?![A-Za-z0-9_-])/,
    minEntropy: 3.5,
  },
  {
    id: 'private-key',
    description: 'private key block',
    // Reported only with a key body after it (checked in code, see privateKeyBody); the body is
    // the value redacted.
    pattern: /(-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----)/,
  },
  {
    id: 'generic-secret',
    description: 'a credential assigned to a secret-looking name',
    // A keyword, up to 24 more name characters (DB_PASSWORD, SECRET_KEY_BASE, apiKeyProd), an
    // assignment, a value of 12+ characters. Values are then filtered (looksReal).
    pattern:
      /(?:passw(?:or)?d|pwd|secret|token|api[_-]?key|access[_-]?key|auth[_-]?key|private[_-]?key|credentials?)[\w.-]{0,24}?["'\]]?\s{0,4}(?:=>|:=|[:=])\s{0,4}["'`]?([^\s"'`;,)<>]{12,256})/i,
    minEntropy: 3.5,
  },
];

/** Values that are clearly not real: references, templates, examples, elisions, masks. */
export const PLACEHOLDER =
  /\$\{[^}]{0,64}\}|\{\{[^}]{0,64}\}\}|<[^>]{0,64}>|%\([^)]{0,64}\)s|example|x{6,}|\*{4,}|\.\.\.|dummy|placeholder|changeme|change_me|replace[_-]?(?:me|with)|your[_-]|redacted|fake|sample/i;
/** Generic values that name where a secret comes from rather than hold one. */
const REFERENCE =
  /^(?:process\.env|import\.meta\.env|os\.environ|os\.getenv|env\.|ENV\[|getenv|System\.getenv|\$[A-Za-z_]|config\.|settings\.|secrets\.|vault\.|this\.|self\.|[\w$.:]+\(|[A-Z_]+$|true$|false$|null$|nil$|None$|undefined$|arn:aws)/;
/** Generic values that are URLs (without a password in them) or file paths. */
const URL_OR_PATH =
  /^(?:[a-z][a-z0-9+.-]*:\/\/[^/@]*(?:[/?#]|$)|~?\.{0,2}\/[\w.\-/]*$|[\w.\-/]+\.(?:pem|key|json|ya?ml|txt|crt|p12|pfx|env|pub|toml)$)/i;
/** One word of code: snake_case, camelCase, PascalCase or UPPER_CASE, with at most a short number at its end. */
const WORD = /^(?:[a-z][a-z_]*|[A-Z]?[a-z]+(?:[A-Z][a-z]+)*|[A-Z][A-Z_]*)\d{0,3}$/;

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

/** A run of 8 equal or 8 ascending characters (`00000000`, `abcdefgh`, `ABC…XYZ0123…`): a typed-in placeholder. */
function hasTypedRun(s: string): boolean {
  let asc = 1;
  let same = 1;
  for (let i = 1; i < s.length; i++) {
    const d = s.charCodeAt(i) - s.charCodeAt(i - 1);
    asc = d === 1 ? asc + 1 : 1;
    same = d === 0 ? same + 1 : 1;
    if (asc >= 8 || same >= 8) return true;
  }
  return false;
}

/** A generic value that reads as code or words rather than as a random secret. */
function readsAsCode(value: string): boolean {
  if (REFERENCE.test(value) || URL_OR_PATH.test(value)) return true;
  // A name or a number, or a type (`Optional[SecretStr]`): no digits, only letters and punctuation of code.
  if (/^[A-Za-z_.\-[\]|]+$/.test(value) || /^\d+$/.test(value)) return true;
  // Words joined by separators: member expressions (`options.accessToken`), keys (`acme.session.token.v2`).
  const parts = value.split(/[.\-_/:]+/).filter((p) => p !== '');
  return parts.length >= 2 && parts.every((p) => WORD.test(p));
}

/** True unless the value is a placeholder, below the rule's entropy floor, or (generic rule) reads as code. */
export function looksReal(rule: SecretRule, value: string): boolean {
  if (PLACEHOLDER.test(value) || hasTypedRun(value)) return false;
  if (rule.minEntropy !== undefined && entropy(value) < rule.minEntropy) return false;
  if (rule.id === 'generic-secret' && readsAsCode(value)) return false;
  return true;
}
