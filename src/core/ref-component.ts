/**
 * The rule a name must keep to be one component of a git ref, as `git
 * check-ref-format` states it. Draft and checkpoint names are such
 * components; so is the draft an agent's tool calls go to.
 */

/**
 * Why `name` is not a valid single ref component, or undefined. Mirrors
 * `git check-ref-format` for one component, and refuses `/` so a name never
 * collides with a directory of other names.
 */
export function refComponentProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty';
  if (Buffer.byteLength(name) > 200) return 'it is longer than 200 bytes';
  if (name.includes('/')) return 'it contains "/"';
  if (name.startsWith('.')) return 'it starts with "."';
  if (name.startsWith('-')) return 'it starts with "-", which reads as a command-line flag';
  if (name.endsWith('.')) return 'it ends with "."';
  if (name.endsWith('.lock')) return 'it ends with ".lock"';
  if (name.includes('..')) return 'it contains ".."';
  if (name.includes('@{')) return 'it contains "@{"';
  if (name === '@') return 'it is "@"';
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return 'it contains a control character';
  }
  const bad = /[ ~^:?*[\\]/.exec(name);
  if (bad) return `it contains "${bad[0]}"`;
  return undefined;
}
