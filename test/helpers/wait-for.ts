/** Poll `probe` until it returns a value (not undefined/null/false), or fail after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | null | false,
  timeoutMs = 20_000,
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
