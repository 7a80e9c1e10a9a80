import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from './wait-for';

/**
 * A Mosquitto broker of the test's own (never the shared one on 1883, which other tests and people
 * use), on a free port, without persistence: a restart loses every retained message, as a broker
 * that crashes without a disk would.
 */
export interface OwnMosquitto {
  url: string;
  port: number;
  /** Kills the broker (SIGKILL) and waits for it to be gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startOwnMosquitto(): Promise<OwnMosquitto> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sorting-mosquitto-'));
  const port = await freePort();
  const conf = path.join(dir, 'mosquitto.conf');
  writeFileSync(conf, `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest none\n`);
  let child: ChildProcess | null = null;
  let exited = true;
  const start = async () => {
    exited = false;
    child = spawn('mosquitto', ['-c', conf], { stdio: 'ignore' });
    child.once('exit', () => {
      exited = true;
    });
    await waitFor(
      async () => {
        if (exited) throw new Error('mosquitto exited at start');
        return accepts(port);
      },
      { timeoutMs: 10_000, intervalMs: 50, what: `mosquitto on port ${port}` },
    );
  };
  const kill = async () => {
    if (!child || exited) return;
    child.kill('SIGKILL');
    await waitFor(() => exited, { timeoutMs: 5_000, what: 'mosquitto to exit' });
  };
  await start();
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    kill,
    start,
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
