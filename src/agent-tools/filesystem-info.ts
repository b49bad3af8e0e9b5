import { join } from 'node:path';
import type { Stats } from 'node:fs';
import { ShadowError } from '../errors.js';
import type { Clock } from '../context.js';
import { asHome, homePath, type HomePath } from './filesystem-paths.js';
import { said } from './filesystem-walk.js';
import type { ToolConnection, ToolOutcome } from './tool-outcome.js';
import { rootOf } from './view-paths.js';

/**
 * get_file_info, with that server's fields in its order and its text
 * (`key: value` lines; times as JavaScript prints a Date). What the view
 * holds decides the answer:
 * - a file or directory the draft did not change is the working tree's:
 *   its stat, as that server reports it;
 * - a file the draft changed has the draft's size and git mode (644 or
 *   755); it was modified (and last read) when the draft's last batch that
 *   touched it was made, and created when the working tree's file was (or,
 *   with none on disk, at that same batch);
 * - a directory only the draft has: size 0, 755, the time of the draft's
 *   last batch below it.
 * Times are printed in the clock's time zone offset, without the zone's
 * name (the library reads no process-wide locale).
 */

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `ms` as Date#toString prints it, `Mon Jan 02 2023 00:00:00 GMT+0000`, at the clock's offset. */
export function dateText(ms: number, clock: Pick<Clock, 'tzOffsetMinutes'>): string {
  const offset = clock.tzOffsetMinutes(ms);
  const d = new Date(ms + offset * 60_000);
  const two = (n: number): string => String(n).padStart(2, '0');
  const sign = offset < 0 ? '-' : '+';
  const zone = `GMT${sign}${two(Math.floor(Math.abs(offset) / 60))}${two(Math.abs(offset) % 60)}`;
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  const year = String(d.getUTCFullYear()).padStart(4, '0');
  const day = `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${two(d.getUTCDate())} ${year}`;
  return `${day} ${time} ${zone}`;
}

interface Info {
  size: number;
  created: number;
  modified: number;
  accessed: number;
  isDirectory: boolean;
  isFile: boolean;
  permissions: string;
}

/** The working tree's entry at `rel`, not following a symlink (one may lead out of the repository). */
function onDisk(conn: ToolConnection, rel: string): Stats | undefined {
  const root = rootOf(conn);
  if (root === null) return undefined;
  try {
    return conn.sh.context.fs.lstatSync(join(root, ...rel.split('/').filter((s) => s !== ''))) as Stats;
  } catch {
    return undefined;
  }
}

/** When the draft's last batch touching `rel` (or, for a directory, below it) was made. */
async function draftTime(conn: ToolConnection, rel: string): Promise<number | undefined> {
  const touches = (p: string | undefined): boolean =>
    p !== undefined && (rel === '' || p === rel || p.startsWith(`${rel}/`));
  for (const entry of await conn.sh.log({ draft: conn.draft })) {
    const touched = entry.ops.some((op) => touches(op.path) || (op.operation === 'rename' && touches(op.arg)));
    if (touched) return Date.parse(entry.time);
  }
  return undefined;
}

const fromStat = (s: Stats): Info => ({
  size: s.size,
  created: s.birthtimeMs,
  modified: s.mtimeMs,
  accessed: s.atimeMs,
  isDirectory: s.isDirectory(),
  isFile: s.isFile(),
  permissions: s.mode.toString(8).slice(-3),
});

async function infoOf(conn: ToolConnection, p: HomePath): Promise<Info> {
  let file;
  try {
    file = await conn.sh.cat(p.rel, { draft: conn.draft });
  } catch (e) {
    const directory = (e instanceof ShadowError && e.code === 'IS_A_DIRECTORY') || p.rel === '';
    if (!directory) throw await asHome(conn, e, p, 'stat');
  }
  // Stat after reading: reading the working tree's file moves its atime, and
  // the answer should say what a stat made just after this call would.
  const disk = onDisk(conn, p.rel);
  if (file === undefined || file.source === 'lower') {
    if (disk && disk.isDirectory() === (file === undefined)) return fromStat(disk);
  }
  const when = (await draftTime(conn, p.rel)) ?? disk?.mtimeMs ?? conn.sh.context.clock.now();
  const times = { created: when, modified: when, accessed: when };
  if (file === undefined) return { size: 0, ...times, isDirectory: true, isFile: false, permissions: '755' };
  return {
    size: file.content.length,
    created: disk?.isFile() ? disk.birthtimeMs : when,
    modified: when,
    accessed: when,
    isDirectory: false,
    isFile: file.type === 'file',
    permissions: file.mode === '100755' ? '755' : file.mode === '120000' ? '777' : '644',
  };
}

/** get_file_info: that server's seven facts of a path of the draft's view. */
export async function fileInfo(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const info = await infoOf(conn, homePath(conn, String(a.path)));
  const clock = conn.sh.context.clock;
  const shown: Record<string, string | number | boolean> = {
    ...info,
    created: dateText(info.created, clock),
    modified: dateText(info.modified, clock),
    accessed: dateText(info.accessed, clock),
  };
  return said(
    Object.entries(shown)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
  );
}
