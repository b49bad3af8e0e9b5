import { spawn } from 'node:child_process';

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Run node on `entry` without blocking the test's event loop (a server the test holds may live in it). */
export function runNode(
  entry: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; input?: string },
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [entry, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.end(options.input ?? '');
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
