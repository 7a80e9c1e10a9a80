import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

/**
 * Which processes hold the TCP sockets of a local port (Linux /proc): the listening socket, and the
 * server side of each established connection. Tells whether a process stands between clients and the
 * process that serves them.
 */
export function portSockets(port: number, pids: number[]): { listening: Map<number, number>; established: Map<number, number> } {
  const states = new Map<string, string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const localPort = parseInt(f[1]!.split(':')[1]!, 16);
      if (localPort === port) states.set(f[9]!, f[3]!);
    }
  }
  const listening = new Map<number, number>();
  const established = new Map<number, number>();
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target = '';
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      const state = inode ? states.get(inode) : undefined;
      if (state === '0A') listening.set(pid, (listening.get(pid) ?? 0) + 1);
      else if (state === '01') established.set(pid, (established.get(pid) ?? 0) + 1);
    }
  }
  return { listening, established };
}

/**
 * `n` connections opened at once, each sending one `GET path` and keeping the connection open; resolves
 * when every one has its answer's status line (or failed), with the sockets still open for inspection.
 */
export async function connectionFlood(port: number, n: number, path = '/healthz'): Promise<{ statuses: number[]; sockets: Socket[]; close(): void }> {
  const sockets: Socket[] = [];
  const statuses = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<number>((resolve) => {
          const socket = connect({ host: '127.0.0.1', port });
          sockets.push(socket);
          let head = '';
          socket.setEncoding('utf8');
          socket.once('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
          socket.on('data', (chunk: string) => {
            head += chunk;
            const m = /^HTTP\/1\.1 (\d{3})/.exec(head);
            if (m) resolve(Number(m[1]));
          });
          socket.once('error', () => resolve(0));
          socket.once('close', () => resolve(0));
        }),
    ),
  );
  return { statuses, sockets, close: () => sockets.forEach((s) => s.destroy()) };
}
