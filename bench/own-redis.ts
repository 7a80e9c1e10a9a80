import { spawn, type ChildProcess } from 'node:child_process';
import IORedis from 'ioredis';
import { freePort } from '../fixtures/local-servers';
import { pollUntil } from './service-processes';

/**
 * A redis-server of the bench's own (BENCH_REDIS=own, the default of `npm run bench`): on a free port,
 * no persistence (as the shared server here runs), so its CPU time and its `INFO commandstats` are the
 * bench's alone, not those of whatever else uses the machine's Redis.
 */
export interface OwnRedis {
  url: string;
  pid: number;
  stop(): void;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--appendonly', 'no', '--save', '', '--loglevel', 'warning'], { stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const url = `redis://127.0.0.1:${port}`;
  const stop = () => {
    if (!exited) child.kill('SIGKILL');
  };
  process.on('exit', stop);
  const probe = new IORedis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // Refused connections while the server starts are expected: the poll retries them.
  probe.on('error', () => undefined);
  try {
    await pollUntil(
      `redis-server on port ${port}`,
      async () => {
        if (probe.status !== 'ready') await probe.connect();
        const pid = Number(/process_id:(\d+)/.exec(await probe.info('server'))?.[1]);
        // Another server on the port would not be ours (a race for the free port): refuse it.
        if (pid !== child.pid) throw new Error(`another redis-server (pid ${pid}) answers on port ${port}`);
        return true;
      },
      { timeoutMs: 10_000, intervalMs: 50, abort: () => (exited ? 'redis-server exited at start' : undefined) },
    );
  } finally {
    probe.disconnect();
  }
  return { url, pid: child.pid!, stop };
}
