import { connect } from 'node:net';

/**
 * Send one hand-off request line to the socket `sock` as a caller does
 * (answering `go` once the server accepts) and return all the server wrote
 * until it closed.
 */
export function askSocket(sock: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(sock);
    let got = '';
    s.setEncoding('utf8');
    s.on('connect', () => s.write(`${line}\n`));
    s.on('data', (d: string) => {
      got += d;
      if (d.includes('{"accepted":true}\n')) s.write('{"go":true}\n');
    });
    s.on('error', reject);
    s.on('close', () => resolve(got));
  });
}
