/**
 * Explains why a JSON document does not parse: where, what was expected, and
 * whether the text simply stops (a tool call cut off mid-stream) — the case
 * that matters most for agents. Runs only after `JSON.parse` has failed.
 */

export interface JsonDiagnosis {
  /** Character offset of the problem. */
  position: number;
  line: number;
  column: number;
  /** True when the text ends before the document does. */
  truncated: boolean;
  /** What was being read: `the string value of operations[0].content`. */
  inside: string;
  reason: string;
}

class Stop extends Error {
  constructor(
    readonly at: number,
    readonly reason: string,
    readonly truncated: boolean,
    readonly inside: string,
  ) {
    super(reason);
  }
}

function describePath(path: Array<string | number>): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s ? `.${p}` : p;
  return s;
}

/**
 * Diagnose `text`, which `JSON.parse` rejected. Text cut off mid-document
 * often ends with a newline the shell added (`echo`, a heredoc): it is read
 * without trailing whitespace first, so the cut shows as a cut.
 */
export function diagnoseJson(text: string): JsonDiagnosis {
  const trimmed = text.replace(/\s+$/, '');
  if (trimmed.length < text.length && trimmed.length > 0) {
    const d = diagnoseText(trimmed);
    if (d.truncated) return d;
  }
  return diagnoseText(text);
}

function diagnoseText(text: string): JsonDiagnosis {
  let i = 0;
  const path: Array<string | number> = [];
  const n = text.length;

  const ws = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const where = (): string => (path.length ? describePath(path) : 'the document');
  const end = (what: string): never => {
    throw new Stop(n, `the text ends inside ${what}`, true, what);
  };
  const bad = (what: string): never => {
    throw new Stop(i, what, false, where());
  };

  const str = (role: string): string => {
    const inside = `${role}${path.length ? ` of ${describePath(path)}` : ''}`;
    const start = ++i;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return text.slice(start, i - 1);
      }
      if (c === 0x5c) {
        i++;
        if (i >= n) end(inside);
        const e = text[i]!;
        if (e === 'u') {
          const hex = text.slice(i + 1, i + 5);
          if (!/^[0-9a-fA-F]*$/.test(hex)) bad('a bad \\u escape');
          if (hex.length < 4) end(inside);
          i += 5;
        } else if ('"\\/bfnrt'.includes(e)) i++;
        else bad(`a bad escape "\\${e}"`);
        continue;
      }
      if (c < 0x20) bad('a raw control character in a string (escape it, e.g. \\n)');
      i++;
    }
    return end(inside);
  };

  const value = (): void => {
    ws();
    if (i >= n) end(path.length ? `the value of ${describePath(path)}` : 'the document');
    const c = text[i]!;
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (i >= n) end(`the object${path.length ? ` ${describePath(path)}` : ''}`);
        if (text[i] !== '"') bad('expected a double-quoted property name');
        const key = str('a property name');
        ws();
        if (i >= n) end(`the object${path.length ? ` ${describePath(path)}` : ''}`);
        if (text[i] !== ':') bad(`expected ":" after the property name "${key}"`);
        i++;
        path.push(key);
        value();
        path.pop();
        ws();
        if (i >= n) end(`the object${path.length ? ` ${describePath(path)}` : ''}`);
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        bad('expected "," or "}" after a property value');
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let k = 0; ; k++) {
        path.push(k);
        value();
        path.pop();
        ws();
        if (i >= n) end(`the array${path.length ? ` ${describePath(path)}` : ''}`);
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        bad('expected "," or "]" after an array element');
      }
    }
    if (c === '"') {
      str('the string value');
      return;
    }
    const rest = text.slice(i, i + 400);
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(rest);
    const complete = m !== null && m[0] !== '-' && !/^[.eE]/.test(rest.slice(m[0].length));
    if (complete) {
      i += m[0].length;
      return;
    }
    // A number that the text stops in the middle of: "-", "1.", "1e", "2E+".
    if (i + rest.length === n && /^-?(0|[1-9]\d*)?(\.\d*)?([eE][+-]?\d*)?$/.test(rest) && rest !== '') end('a number');
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
      if (word.startsWith(text.slice(i)) && i < n) end(`the literal ${word}`);
    }
    bad(`unexpected character "${c}"`);
  };

  let stop: Stop;
  try {
    value();
    ws();
    stop = new Stop(
      i,
      i < n ? 'unexpected text after the end of the document' : 'the document is valid',
      false,
      'the document',
    );
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    stop = e;
  }
  let line = 1;
  let lastNl = -1;
  for (let k = 0; k < stop.at && k < n; k++) {
    if (text.charCodeAt(k) === 10) {
      line++;
      lastNl = k;
    }
  }
  return {
    position: stop.at,
    line,
    column: stop.at - lastNl,
    truncated: stop.truncated,
    inside: stop.inside,
    reason: stop.reason,
  };
}
