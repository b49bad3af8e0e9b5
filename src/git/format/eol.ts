/**
 * End-of-line conversion as git does it (convert.c): which action a path
 * gets from its `text`/`crlf`/`eol` attributes and `core.autocrlf`/`core.eol`,
 * and the two directions, working tree → blob (`git add`) and blob → working
 * tree (`git checkout`). Written here rather than run through git because it
 * is on the hot path of every batch in a repository that asks for it: a
 * spawn per file would cost more than the batch.
 */

/** git's `crlf_action` after attributes and config are weighed. */
export type EolAction =
  /** No conversion (`-text`, `binary`, or nothing asks for one). */
  | 'binary'
  /** `text` with LF in the working tree: CRLF becomes LF on add, nothing on checkout. */
  | 'text-input'
  /** `text` with CRLF in the working tree. */
  | 'text-crlf'
  /** `text=auto`: text files only, LF or CRLF by core.eol/autocrlf. */
  | 'auto'
  | 'auto-input'
  | 'auto-crlf';

/** A `text`, `crlf` or `eol` attribute as read: set, unset, a value, or unspecified. */
export type AttrValue = true | false | string | undefined;

/** The parts of git config that decide end-of-line conversion. */
export interface EolConfig {
  /** core.autocrlf: true, 'input' or false. */
  autocrlf: boolean | 'input';
  /** core.eol: 'lf', 'crlf' or 'native' (LF on every system shadow runs on but Windows). */
  eol: 'lf' | 'crlf' | 'native';
}

/** What `text` (or the older `crlf`) says on its own. */
function textAction(v: AttrValue): 'text' | 'binary' | 'text-input' | 'auto' | undefined {
  if (v === true) return 'text';
  if (v === false) return 'binary';
  if (v === 'input') return 'text-input';
  if (v === 'auto') return 'auto';
  return undefined;
}

/** Whether plain `text` means CRLF in the working tree (git's text_eol_is_crlf). */
function textEolIsCrlf(config: EolConfig): boolean {
  if (config.autocrlf === true) return true;
  if (config.autocrlf === 'input') return false;
  return config.eol === 'crlf';
}

/**
 * The conversion a path gets, from its `text`, `crlf` and `eol` attributes
 * and the config, in git's order: `text` over `crlf`; `eol` turns `text` (or
 * an unspecified one) into a fixed line ending; plain `text` and `auto`
 * follow core.autocrlf, then core.eol; with nothing specified, core.autocrlf
 * alone decides.
 */
export function eolAction(attrs: { text: AttrValue; crlf: AttrValue; eol: AttrValue }, config: EolConfig): EolAction {
  let a: 'text' | 'binary' | 'text-input' | 'text-crlf' | 'auto' | 'auto-input' | 'auto-crlf' | undefined =
    textAction(attrs.text) ?? textAction(attrs.crlf);
  if (a !== 'binary') {
    const eol = attrs.eol === 'lf' || attrs.eol === 'crlf' ? attrs.eol : undefined;
    if (a === 'auto' && eol) a = eol === 'lf' ? 'auto-input' : 'auto-crlf';
    else if (eol) a = eol === 'lf' ? 'text-input' : 'text-crlf';
  }
  if (a === 'text') return textEolIsCrlf(config) ? 'text-crlf' : 'text-input';
  if (a === undefined) {
    if (config.autocrlf === true) return 'auto-crlf';
    if (config.autocrlf === 'input') return 'auto-input';
    return 'binary';
  }
  return a;
}

/** Byte statistics of a buffer, as git's gather_stats counts them. */
export interface TextStats {
  nul: number;
  loneCr: number;
  loneLf: number;
  crlf: number;
  printable: number;
  nonPrintable: number;
}

/** Count line endings and printable bytes the way git does before it converts. */
export function textStats(buf: Uint8Array): TextStats {
  const s: TextStats = { nul: 0, loneCr: 0, loneLf: 0, crlf: 0, printable: 0, nonPrintable: 0 };
  const n = buf.length;
  for (let i = 0; i < n; i++) {
    const c = buf[i]!;
    if (c === 13) {
      if (i + 1 < n && buf[i + 1] === 10) {
        s.crlf++;
        i++;
      } else s.loneCr++;
      continue;
    }
    if (c === 10) {
      s.loneLf++;
      continue;
    }
    if (c === 127) s.nonPrintable++;
    else if (c < 32) {
      // Backspace, tab, escape and form feed count as text.
      if (c === 8 || c === 9 || c === 27 || c === 12) s.printable++;
      else {
        if (c === 0) s.nul++;
        s.nonPrintable++;
      }
    } else s.printable++;
  }
  // A DOS end-of-file character at the very end does not make a file binary.
  if (n >= 1 && buf[n - 1] === 0x1a) s.nonPrintable--;
  return s;
}

/** git's convert_is_binary: the guess `text=auto` and autocrlf rely on. */
export function statsLookBinary(s: TextStats): boolean {
  return s.loneCr > 0 || s.nul > 0 || s.printable >> 7 < s.nonPrintable;
}

function isAuto(a: EolAction): boolean {
  return a === 'auto' || a === 'auto-input' || a === 'auto-crlf';
}

/**
 * Working tree → blob (`git add`): CRLF becomes LF where the action asks for
 * it. `indexHasCrlf` answers whether git's index already holds a CRLF text
 * blob at the path: then an `auto` path is stored as it is (git's "safer
 * autocrlf"), so a file committed with CRLF does not turn modified. Asked
 * only when it matters. Returns the input itself when nothing changes.
 */
export function eolToGit(buf: Buffer, action: EolAction, indexHasCrlf: () => boolean = () => false): Buffer {
  if (action === 'binary' || buf.length === 0) return buf;
  if (buf.indexOf(13) === -1) return buf;
  const s = textStats(buf);
  if (s.crlf === 0) return buf;
  const auto = isAuto(action);
  if (auto && (statsLookBinary(s) || indexHasCrlf())) return buf;
  const out = Buffer.allocUnsafe(buf.length - s.crlf);
  let o = 0;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!;
    // A guessed text file has no lone CR (it would look binary): every CR goes.
    if (c === 13 && (auto || (i + 1 < buf.length && buf[i + 1] === 10))) continue;
    out[o++] = c;
  }
  return out.subarray(0, o);
}

/** Whether checkout writes CRLF for this action (git's output_eol). */
function outputIsCrlf(action: EolAction, config: EolConfig): boolean {
  if (action === 'text-crlf' || action === 'auto-crlf') return true;
  if (action === 'auto') return textEolIsCrlf(config);
  return false;
}

/**
 * Blob → working tree (`git checkout`): LF becomes CRLF where the action asks
 * for it. A guessed (`auto`) file that already holds a CR or looks binary is
 * written as it is. Returns the input itself when nothing changes.
 */
export function eolToWorktree(buf: Buffer, action: EolAction, config: EolConfig): Buffer {
  if (!outputIsCrlf(action, config) || buf.indexOf(10) === -1) return buf;
  const s = textStats(buf);
  if (s.loneLf === 0) return buf;
  if (isAuto(action) && (s.loneCr > 0 || s.crlf > 0 || statsLookBinary(s))) return buf;
  const out = Buffer.allocUnsafe(buf.length + s.loneLf);
  let o = 0;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!;
    if (c === 10 && (i === 0 || buf[i - 1] !== 13)) out[o++] = 13;
    out[o++] = c;
  }
  return out.subarray(0, o);
}

/** True when a blob holds CRLF and reads as text: git's has_crlf_in_index test on the index's blob. */
export function blobHasCrlfText(buf: Uint8Array): boolean {
  if (Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).indexOf(13) === -1) return false;
  const s = textStats(buf);
  return !statsLookBinary(s) && s.crlf > 0;
}
