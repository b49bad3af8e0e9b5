/** The machine a benchmark ran on, as its output's first lines name it: date, node, git, CPU, memory, load. */
import { cpus, loadavg, totalmem } from 'node:os';

/** `<ISO date>  node <v>  <git version>  <cpu> x<cores>  <GB> GB`. */
export function machineLine(gitVersion: string): string {
  return `${new Date().toISOString()}  node ${process.version}  ${gitVersion}  ${cpus()[0]?.model ?? 'cpu'} x${cpus().length}  ${Math.round(totalmem() / 2 ** 30)} GB`;
}

/** The 1, 5 and 15 minute load averages, two decimals each. */
export function loadAverage(): string {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
}
