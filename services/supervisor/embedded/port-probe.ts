import net from 'node:net';

/**
 * Whether something accepts TCP connections on host:port. Only a refused connection counts as
 * nothing there: a server that accepts slowly (or a timeout) is taken as present, so a default server
 * is never started on a port another one holds.
 */
export function portAnswers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (answers: boolean) => {
      socket.destroy();
      resolve(answers);
    };
    socket.setTimeout(timeoutMs, () => done(true));
    socket.once('connect', () => done(true));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code !== 'ECONNREFUSED'));
  });
}
