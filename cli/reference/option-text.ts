import type { OptionRecord } from './record-builder.js';

/** How an option is typed: `--dry-run`, `-m, --message <string>`, `--conflict <refuse|markers>`. */
export function optionFlags(o: OptionRecord): string {
  const dash = (n: string): string => (n.length === 1 ? `-${n}` : `--${n}`);
  const names = [...o.aliases.filter((a) => a.length === 1), o.name, ...o.aliases.filter((a) => a.length > 1)]
    .map(dash)
    .join(', ');
  if (o.type === 'boolean') return names;
  return `${names} <${o.choices ? o.choices.join('|') : (o.type ?? 'value')}>`;
}

/** A positional as the synopsis names it: `<paths..>`. */
export function positionalName(o: OptionRecord): string {
  return `<${o.name}${o.array ? '..' : ''}>`;
}

/** What an option or positional means, with its default, whether it is required, and what it conflicts with or needs. */
export function optionMeaning(o: OptionRecord, positional = false): string {
  const notes: string[] = [];
  // An option shows its choices in its flags (optionFlags); a positional here.
  if (o.choices && positional) notes.push(`one of ${o.choices.join(', ')}`);
  if (o.default !== undefined) notes.push(`default ${JSON.stringify(o.default)}`);
  if (o.required) notes.push('required');
  for (const c of o.conflicts ?? []) notes.push(`not with --${c}`);
  for (const i of o.implies ?? []) notes.push(`needs --${i}`);
  const text = o.describe ?? '';
  if (notes.length === 0) return text;
  return text === '' ? notes.join('; ') : `${text} (${notes.join('; ')})`;
}
