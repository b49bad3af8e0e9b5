/** Global options that take a value (so their value is not taken for a command word). */
const VALUE_OPTIONS = new Set(['-C', '--draft', '--actor', '--model', '--actor-type']);

/** The words before the first option of a command: `['draft', 'new']`. */
export function commandWords(args: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < args.length && words.length < 2; i++) {
    const a = args[i]!;
    if (VALUE_OPTIONS.has(a)) i++;
    else if (a.startsWith('-')) continue;
    else words.push(a);
  }
  return words;
}
