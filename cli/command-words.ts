/** Global options that take a value (so their value is not taken for a command word). */
const VALUE_OPTIONS = new Set(['-C', '--draft', '--actor', '--model', '--actor-type']);

/** The words of a command, options and their values left out: `['draft', 'new']` (at most `max`). */
export function commandWords(args: readonly string[], max = 2): string[] {
  const words: string[] = [];
  for (let i = 0; i < args.length && words.length < max; i++) {
    const a = args[i]!;
    if (VALUE_OPTIONS.has(a)) i++;
    else if (a.startsWith('-')) continue;
    else words.push(a);
  }
  return words;
}
