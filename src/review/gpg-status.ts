/**
 * gpg's status lines (`--status-fd`) read as git reads them to verify a
 * commit (gpg-interface.c: `parse_gpg_output`, `check_signature`): the one
 * result line (GOODSIG, BADSIG, ERRSIG, EXPSIG, EXPKEYSIG, REVKEYSIG; a
 * second one means several signatures, which git refuses as an error), the
 * signer's key and user id, VALIDSIG's fingerprint, and the TRUST_ level. A
 * signature is good when gpg exits 0, says GOODSIG, and the key's trust is
 * at least `gpg.minTrustLevel` (default `undefined`, the lowest: any
 * trust, as `git verify-commit` accepts). Pure.
 */
import type { SignatureVerdict } from './signing-programs.js';

/** gpg's trust levels, lowest first, as git orders them. */
export const TRUST_LEVELS = ['undefined', 'never', 'marginal', 'fully', 'ultimate'] as const;
export type TrustLevel = (typeof TRUST_LEVELS)[number];

/** What the status lines say: git's result letter (`N` for none), the key, the signer's uid, fingerprint, trust. */
export interface GpgStatus {
  result: 'G' | 'B' | 'E' | 'X' | 'Y' | 'R' | 'N';
  key?: string;
  signer?: string;
  fingerprint?: string;
  trust?: TrustLevel;
}

const RESULTS: ReadonlyArray<{ prefix: string; result: GpgStatus['result']; uid: boolean }> = [
  { prefix: 'GOODSIG ', result: 'G', uid: true },
  { prefix: 'BADSIG ', result: 'B', uid: true },
  { prefix: 'ERRSIG ', result: 'E', uid: false },
  { prefix: 'EXPSIG ', result: 'X', uid: true },
  { prefix: 'EXPKEYSIG ', result: 'Y', uid: true },
  { prefix: 'REVKEYSIG ', result: 'R', uid: true },
];

/** A trust level's name in any case (`gpg.minTrustLevel`, a `TRUST_` line), or undefined when it names none. */
export function trustLevel(name: string): TrustLevel | undefined {
  const lower = name.toLowerCase();
  return TRUST_LEVELS.find((t) => t === lower);
}

/** Read gpg's status output as git does. */
export function parseGpgStatus(out: string): GpgStatus {
  const status: GpgStatus = { result: 'N' };
  let results = 0;
  for (const raw of out.split('\n')) {
    if (!raw.startsWith('[GNUPG:] ')) continue;
    const line = raw.slice('[GNUPG:] '.length);
    const hit = RESULTS.find((r) => line.startsWith(r.prefix));
    if (hit) {
      if (results++ > 0) return { result: 'E' };
      const rest = line.slice(hit.prefix.length);
      const space = rest.indexOf(' ');
      status.result = hit.result;
      status.key = space < 0 ? rest : rest.slice(0, space);
      if (hit.uid && space >= 0) status.signer = rest.slice(space + 1);
    } else if (line.startsWith('VALIDSIG ')) {
      status.fingerprint = line.slice('VALIDSIG '.length).split(' ')[0];
    } else if (line.startsWith('TRUST_')) {
      const trust = trustLevel(line.slice('TRUST_'.length).split(' ')[0]!);
      if (trust === undefined) return { result: 'E' };
      status.trust = trust;
    }
  }
  return status;
}

/** What an unusable result says, by git's letter. */
const WHY: Record<Exclude<GpgStatus['result'], 'G'>, (who: string) => string> = {
  B: (who) => `the signature of ${who} does not verify over this decision (it was made over another)`,
  E: (who) => `gpg cannot check the signature of key ${who} (not in this keyring, or not a usable signature)`,
  X: (who) => `the signature of ${who} has expired`,
  Y: (who) => `signed by ${who}, whose key has expired`,
  R: (who) => `signed by ${who}, whose key is revoked`,
  N: () => 'gpg found no signature it could check',
};

/**
 * Whether a gpg verification counts, as `git verify-commit` decides: exit
 * status 0, a GOODSIG line, and a trust of at least `min`.
 */
export function gpgVerdict(exit: number | null, out: string, min: TrustLevel): SignatureVerdict {
  const s = parseGpgStatus(out);
  const who = s.signer ?? s.key ?? 'an unknown key';
  if (s.result !== 'G') return { ok: false, why: WHY[s.result](who) };
  if (exit !== 0) return { ok: false, why: `gpg did not accept the signature of ${who} (exit status ${String(exit)})` };
  // No TRUST_ line reads as `undefined`, the lowest, as git reads it.
  const trust = s.trust ?? 'undefined';
  if (TRUST_LEVELS.indexOf(trust) < TRUST_LEVELS.indexOf(min)) {
    return { ok: false, why: `signed by ${who}, whose key's trust (${trust}) is below gpg.minTrustLevel (${min})` };
  }
  return { ok: true, principal: who };
}
