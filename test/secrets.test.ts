import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  entropy,
  redact,
  RULES,
  scanAddedLines,
  scanText,
  type AddedLine,
  type SecretFinding,
} from '../src/core/secret-scan.js';
import { prng } from './helpers/prng.js';

/**
 * The secret scanner against its corpus (test/fixtures/secrets/, made-up
 * secrets in the real formats and look-alikes that are not secrets; see
 * generate.mjs there), and its contract: findings name rule, path and line;
 * values are redacted; the pragma, placeholders, tokens split across lines,
 * only the given lines are scanned, and large random input finds nothing.
 * Speed is measured in bench/secrets.bench.ts, never here.
 */

interface Case {
  id: string;
  path: string;
  text: string;
  rule: string | null;
  line?: number;
  secret?: string;
  note: string;
}

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/secrets/', import.meta.url));
const POSITIVES: Case[] = JSON.parse(readFileSync(`${FIXTURES}positives.json`, 'utf8'));
const LOOKALIKES: Case[] = JSON.parse(readFileSync(`${FIXTURES}lookalikes.json`, 'utf8'));
const RULE_IDS = RULES.map((r) => r.id);

function randomBytes(n: number, seed: number): Buffer {
  const r = prng(seed);
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(r() * 256);
  return b;
}
const show = (f: SecretFinding[]): string => JSON.stringify(f.map((x) => `${x.rule}@${x.line}`));

// ---------------------------------------------------------------- corpus

const Corpus = suite('corpus');

Corpus('is well formed: 60+ positives covering every rule several times, 60+ look-alikes, unique ids', () => {
  assert.ok(POSITIVES.length >= 60, `${POSITIVES.length} positives`);
  assert.ok(LOOKALIKES.length >= 60, `${LOOKALIKES.length} look-alikes`);
  const ids = new Set([...POSITIVES, ...LOOKALIKES].map((c) => c.id));
  assert.is(ids.size, POSITIVES.length + LOOKALIKES.length, 'ids are unique');
  for (const c of POSITIVES) {
    assert.ok(c.rule !== null && RULE_IDS.includes(c.rule), `${c.id}: rule ${c.rule} exists`);
    assert.ok(
      typeof c.line === 'number' && typeof c.secret === 'string' && c.note !== '',
      `${c.id}: line, secret and note`,
    );
  }
  for (const c of LOOKALIKES) assert.ok(c.rule === null && c.note !== '', `${c.id}: no rule, a note`);
  for (const id of RULE_IDS) {
    const n = POSITIVES.filter((c) => c.rule === id).length;
    assert.ok(n >= 2, `rule ${id} has ${n} positives`);
  }
});

Corpus('recall is 100%: every positive is found by its rule, on its line, in its path', () => {
  const missed: string[] = [];
  for (const c of POSITIVES) {
    const findings = scanText(c.path, c.text);
    if (!findings.some((f) => f.rule === c.rule && f.line === c.line && f.path === c.path)) {
      missed.push(`${c.id} (${c.note}): expected ${c.rule}@${c.line}, got ${show(findings)}`);
    }
  }
  const found = POSITIVES.length - missed.length;
  console.log(`  recall ${found}/${POSITIVES.length} = ${((100 * found) / POSITIVES.length).toFixed(1)}%`);
  assert.equal(missed, [], `missed:\n${missed.join('\n')}`);
});

Corpus('false positives are at most 5% of the look-alikes', () => {
  const flagged: string[] = [];
  for (const c of LOOKALIKES) {
    const findings = scanText(c.path, c.text);
    if (findings.length > 0) flagged.push(`${c.id} (${c.note}): ${show(findings)}`);
  }
  const rate = flagged.length / LOOKALIKES.length;
  console.log(
    `  false positives ${flagged.length}/${LOOKALIKES.length} = ${(100 * rate).toFixed(1)}%${flagged.map((f) => `\n    ${f}`).join('')}`,
  );
  assert.ok(rate <= 0.05, `false positives:\n${flagged.join('\n')}`);
});

// ---------------------------------------------------------------- findings

const Findings = suite('findings');

Findings('each rule names rule, description, where, path and line', () => {
  for (const rule of RULES) {
    const c = POSITIVES.find((p) => p.rule === rule.id)!;
    const f = scanText(c.path, c.text).find((x) => x.rule === rule.id);
    assert.ok(f, `${c.id}: a ${rule.id} finding`);
    assert.equal(
      Object.keys(f!).sort(),
      ['description', 'line', 'path', 'redacted', 'rule', 'where'],
      `${c.id}: the finding's fields`,
    );
    assert.is(f!.description, rule.description, c.id);
    assert.is(f!.where, 'content', c.id);
    assert.is(f!.path, c.path, c.id);
    assert.is(f!.line, c.line, c.id);
  }
});

Findings('line numbers come from the added lines given, not from their order', () => {
  const c = POSITIVES.find((p) => p.id === 'github-token/dotenv')!;
  const lines: AddedLine[] = [
    { line: 3, text: 'const a = 1;' },
    { line: 41, text: c.text.trimEnd() },
  ];
  const f = scanAddedLines('src/x.ts', lines);
  assert.is(show(f), '["github-token@41"]');
});

// ---------------------------------------------------------------- redaction

const Redaction = suite('redaction');

Redaction('redact keeps the first 4 characters and masks the rest', () => {
  const table: Array<[string, string]> = [
    ['ghp_0123456789abcdefghijklmnopqrstuvwxyz', `ghp_${'*'.repeat(16)}`],
    ['abcdefgh', 'abcd****'],
    ['abcde', 'abcd****'],
    ['AKIA23456789ABCDEFGH', `AKIA${'*'.repeat(16)}`],
  ];
  for (const [value, want] of table) assert.is(redact(value), want, value);
});

Redaction('no raw value, nor any 8 characters of one, appears in the findings of the corpus', () => {
  for (const c of POSITIVES) {
    const findings = scanText(c.path, c.text);
    const secret = c.secret!;
    const json = JSON.stringify(findings);
    assert.not.ok(json.includes(secret), `${c.id}: the secret is in ${json}`);
    // Pieces of it neither (the path is the caller's own, and may share a piece with a URL).
    const fields = JSON.stringify(findings.map((f) => ({ ...f, path: '' })));
    for (let i = 0; i + 8 <= secret.length; i++) {
      const piece = secret.slice(i, i + 8);
      assert.not.ok(fields.includes(piece), `${c.id}: ${JSON.stringify(piece)} of the secret is in ${fields}`);
    }
    const f = findings.find((x) => x.rule === c.rule)!;
    assert.ok(/^[^*]{4}\*{4,16}$/.test(f.redacted), `${c.id}: ${f.redacted}`);
    assert.is(f.redacted.slice(0, 4), secret.slice(0, 4), `${c.id}: the first 4 characters are the value's`);
  }
});

// ---------------------------------------------------------------- pragma

const Pragma = suite('pragma');

const pragmaCases = POSITIVES.filter((c) =>
  [
    'github-token/dotenv',
    'stripe-key/ts',
    'generic-secret/auth-token-ts',
    'private-key/rsa-pem',
    'jwt/dotenv',
  ].includes(c.id),
);

Pragma('shadow:allow-secret on the line of a finding silences it, and only it', () => {
  assert.is(pragmaCases.length, 5);
  for (const c of pragmaCases) {
    const lines = c.text.split('\n');
    const at = c.line! - 1;
    const marked = [...lines];
    marked[at] = `${lines[at]} # shadow:allow-secret`;
    assert.is(show(scanText(c.path, marked.join('\n'))), '[]', `${c.id}: silenced`);
    // The same line again, without the pragma, is still found.
    const twice = [...marked, ...lines].join('\n');
    const f = scanText(c.path, twice);
    assert.ok(
      f.length > 0 && f.every((x) => x.line > lines.length),
      `${c.id}: only the unmarked copy is found: ${show(f)}`,
    );
  }
});

Pragma('a pragma on another line silences nothing', () => {
  const c = POSITIVES.find((p) => p.id === 'github-token/dotenv')!;
  assert.is(show(scanText(c.path, `# shadow:allow-secret\n${c.text}`)), '["github-token@2"]');
});

// ---------------------------------------------------------------- placeholders

const Placeholders = suite('placeholders');

/** Each placeholder next to a real-shaped control on the same rule: the control is found, the placeholder is not. */
const PLACEHOLDERS: Array<[rule: string, placeholder: string, control: string]> = [
  ['generic-secret', 'API_KEY=${API_KEY}', 'API_KEY=Zq3Lm9Xa7Pw2Rt5Yu8Io1K'],
  ['generic-secret', 'api_key: {{ vault_api_key }}', 'api_key: Zq3Lm9Xa7Pw2Rt5Yu8Io1K'],
  ['generic-secret', 'password: "<your-password>"', 'password: "Zq3Lm9Xa7Pw2Rt5Yu8Io1K"'],
  ['generic-secret', 'client_secret = "YOUR_CLIENT_SECRET_HERE"', 'client_secret = "Zq3Lm9Xa7Pw2Rt5Yu8Io1K"'],
  ['generic-secret', 'token = process.env.GITHUB_TOKEN', 'token = "Zq3Lm9Xa7Pw2Rt5Yu8Io1K"'],
  ['generic-secret', 'password = getPassword(user.id)', 'password = "Zq3Lm9Xa7Pw2Rt5Yu8Io1K"'],
  ['generic-secret', 'token: string;', 'token: "Zq3Lm9Xa7Pw2Rt5Yu8Io1K";'],
  ['aws-access-key-id', 'AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE', 'AWS_ACCESS_KEY_ID=AKIAQ3MZ7XW2RT5YU4IO'],
  [
    'aws-secret-access-key',
    'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'aws_secret_access_key = wJ9lrXUtnFqMI/K7MDzNG/bPxRfiCYb3kP1mQ8vT',
  ],
  [
    'github-token',
    'GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
    'GITHUB_TOKEN=ghp_Zq3Lm9Xa7Pw2Rt5Yu8Io1Kj4Hg6Fd0Sa2Qw5E',
  ],
  [
    'github-token',
    'GITHUB_TOKEN=ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
    'GITHUB_TOKEN=ghp_Zq3Lm9Xa7Pw2Rt5Yu8Io1Kj4Hg6Fd0Sa2Qw5E',
  ],
  ['stripe-key', 'STRIPE_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx', 'STRIPE_KEY=sk_live_Zq3Lm9Xa7Pw2Rt5Yu8Io1Kj4'],
  ['stripe-key', "new Stripe('sk_test_your_secret_key_here')", "new Stripe('sk_test_Zq3Lm9Xa7Pw2Rt5Yu8Io1Kj4')"],
  [
    'slack-webhook',
    'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
    'https://hooks.slack.com/services/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',
  ],
  [
    'openai-key',
    'OPENAI_API_KEY=sk-proj-...',
    `OPENAI_API_KEY=sk-proj-${'Zq3Lm9Xa7Pw2Rt5Yu8Io1Kj4Hg6Fd0Sa2Qw5E'.repeat(2)}`,
  ],
  [
    'private-key',
    '-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----',
    `-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA${'Zq3Lm9Xa7Pw2Rt5Yu8Io1Kj4Hg6Fd0Sa2Qw5E'.slice(0, 48)}\n-----END RSA PRIVATE KEY-----`,
  ],
  [
    'private-key',
    'if (pem.startsWith("-----BEGIN PRIVATE KEY-----")) return;',
    `key = "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEF${'Zq3Lm9Xa7Pw2Rt5Yu8Io1Kj4Hg6Fd0Sa2Qw5E'.slice(0, 36)}\\n"`,
  ],
];

Placeholders('templates, examples, masks and references are not secrets; the same place with a value is', () => {
  for (const [rule, placeholder, control] of PLACEHOLDERS) {
    assert.is(show(scanText('config.txt', placeholder)), '[]', `placeholder ${JSON.stringify(placeholder)}`);
    const found = scanText('config.txt', control);
    assert.ok(
      found.some((f) => f.rule === rule),
      `control ${JSON.stringify(control)}: expected ${rule}, got ${show(found)}`,
    );
  }
});

// ---------------------------------------------------------------- split lines

const Split = suite('split lines');

const TOKEN = 'ghp_Zq3Lm9Xa7Pw2Rt5Yu8Io1Kj4Hg6Fd0Sa2Qw5E';
const SPLITS: Array<[name: string, text: string]> = [
  ['"…" + newline "…"', `const token = "${TOKEN.slice(0, 20)}" +\n  "${TOKEN.slice(20)}";`],
  [
    "'…' + over three lines",
    `const t =\n  '${TOKEN.slice(0, 12)}' +\n  '${TOKEN.slice(12, 30)}' +\n  '${TOKEN.slice(30)}';`,
  ],
  ['shell backslash inside quotes', `GH="${TOKEN.slice(0, 22)}\\\n${TOKEN.slice(22)}"`],
  ['adjacent literals (Python)', `auth = ("${TOKEN.slice(0, 18)}"\n        "${TOKEN.slice(18)}")`],
];

Split('a token split across lines by string concatenation is found, on the line where it starts', () => {
  for (const [name, text] of SPLITS) {
    const startLine = text.split('\n').findIndex((l) => l.includes(TOKEN.slice(0, 8))) + 1;
    const f = scanText('src/gh.ts', text).filter((x) => x.rule === 'github-token');
    assert.is(show(f), `["github-token@${startLine}"]`, name);
    assert.is(f[0]!.redacted, redact(TOKEN), name);
  }
});

Split('pieces on lines that are not consecutive in the file are not joined', () => {
  const lines: AddedLine[] = [
    { line: 10, text: `const token = "${TOKEN.slice(0, 8)}" +` },
    { line: 12, text: `  "${TOKEN.slice(8)}";` },
  ];
  assert.is(show(scanAddedLines('src/gh.ts', lines).filter((x) => x.rule === 'github-token')), '[]');
});

// ---------------------------------------------------------------- added lines only

const AddedOnly = suite('added lines only');

AddedOnly('only the lines given are scanned', () => {
  const c = POSITIVES.find((p) => p.id === 'aws-access-key-id/dotenv')!;
  const all = c.text.split('\n').map((text, i) => ({ line: i + 1, text }));
  assert.is(show(scanAddedLines(c.path, all)), '["aws-access-key-id@2"]');
  // The secret's line is context, not added: nothing is found.
  assert.is(
    show(
      scanAddedLines(
        c.path,
        all.filter((l) => l.line !== 2),
      ),
    ),
    '[]',
  );
  assert.is(show(scanAddedLines(c.path, [])), '[]');
});

AddedOnly('a private key body is looked for in the next added lines only', () => {
  const c = POSITIVES.find((p) => p.id === 'private-key/ec')!;
  const all = c.text.split('\n').map((text, i) => ({ line: i + 1, text }));
  assert.is(show(scanAddedLines(c.path, all)), '["private-key@1"]');
  // The next added line is no body ('...'): not a key.
  assert.is(show(scanAddedLines(c.path, [all[0]!, { line: 2, text: '...' }])), '[]');
  // The header alone, its body unchanged context: it cannot be seen, a key is the safe guess.
  assert.is(show(scanAddedLines(c.path, [all[0]!])), '["private-key@1"]');
  assert.is(show(scanAddedLines(c.path, [all[0]!, { line: 9, text: 'x = 1' }])), '["private-key@1"]');
});

// ---------------------------------------------------------------- entropy

const Entropy = suite('entropy');

Entropy('Shannon entropy in bits a character', () => {
  const table: Array<[string, number]> = [
    ['aaaa', 0],
    ['abab', 1],
    ['abcd', 2],
    ['0123456789abcdef', 4],
  ];
  for (const [s, want] of table) assert.ok(Math.abs(entropy(s) - want) < 1e-9, `${s}: ${entropy(s)}`);
});

// ---------------------------------------------------------------- bad input

const BadInput = suite('bad input');

const MB10 = 10 * 1024 * 1024;
const base64 = randomBytes((MB10 * 3) / 4, 7).toString('base64');

/** Large inputs: random base64 in the shapes it comes in, and inputs made to make a regex backtrack. No timing here (bench/ measures it); they must end, without an error, with no finding. */
const LARGE: Array<[name: string, text: () => string]> = [
  ['10 MB random base64, one line', () => `${base64}\n`],
  ['10 MB random base64, 76 columns', () => base64.replace(/.{76}/g, '$&\n')],
  ['10 MB random base64url, one line', () => `${Buffer.from(base64, 'base64').toString('base64url')}\n`],
  ["'a' x 10 MB, then a line", () => `${'a'.repeat(MB10)}\nx`],
  ['glpat- then 10 MB of token characters', () => `glpat-${'a-'.repeat(MB10 / 2)}`],
  ['-eyJa repeated', () => '-eyJaaaaaaaaaaaa'.repeat(MB10 / 16)],
  ['token= repeated', () => 'token='.repeat(MB10 / 6)],
  ['"aaaaaaaa" + lines', () => '"aaaaaaaa" +\n'.repeat(MB10 / 13)],
  ['a private key header, then 10 MB of spaces', () => `-----BEGIN RSA PRIVATE KEY-----\n${' '.repeat(MB10)}`],
];

BadInput('large and adversarial inputs end with no finding', () => {
  for (const [name, text] of LARGE) assert.is(show(scanText('blob.txt', text())), '[]', name);
});

Corpus.run();
Findings.run();
Redaction.run();
Pragma.run();
Placeholders.run();
Split.run();
AddedOnly.run();
Entropy.run();
BadInput.run();
