/**
 * Values made safe for JSON before they reach the ledger: what JSON cannot
 * hold is repaired or dropped, never allowed to throw mid-append or to write
 * something a reader cannot parse back to the same value.
 *
 * - strings: lone UTF-16 surrogates become U+FFFD
 * - numbers: NaN and ±Infinity become null
 * - bigint: its decimal string
 * - Date: its ISO string
 * - bytes (Buffer, Uint8Array): `{ bytes: <length> }` (never content)
 * - undefined, functions, symbols: dropped from objects, null in arrays
 * - Map: an object; Set: an array
 * - a cycle: the string "[cycle]"
 */
export function toJsonSafe(value: unknown, seen: Set<object> = new Set()): unknown {
  switch (typeof value) {
    case 'string':
      return repairSurrogates(value);
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      return value;
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'object':
      break; // null, and the objects below
  }
  if (value === null) return null;
  const obj = value as object;
  if (seen.has(obj)) return '[cycle]';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return { bytes: value.length };
  seen.add(obj);
  try {
    if (Array.isArray(value)) return value.map((v) => toJsonSafe(v, seen) ?? null);
    if (value instanceof Set) return [...value].map((v) => toJsonSafe(v, seen) ?? null);
    const out: Record<string, unknown> = {};
    const entries =
      value instanceof Map
        ? [...value.entries()].map(([k, v]) => [String(k), v] as const)
        : Object.entries(obj as Record<string, unknown>);
    for (const [k, v] of entries) {
      const safe = toJsonSafe(v, seen);
      if (safe !== undefined) out[repairSurrogates(k)] = safe;
    }
    return out;
  } finally {
    seen.delete(obj);
  }
}

function repairSurrogates(s: string): string {
  return s.isWellFormed() ? s : s.toWellFormed();
}
