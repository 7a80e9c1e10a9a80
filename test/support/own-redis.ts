import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { freePort, type OwnServer } from '../../fixtures/local-servers';
import { waitFor } from './test-api';

/**
 * A redis-server of the test's own on a free port the OS picks: with AOF (fsync on every write; a
 * restart replays it), or with no persistence at all (`persistence: false`: a restart comes back empty,
 * as many deployments run Redis). Not a fixed range of ports: two suites running at once would pick the
 * same one, and one of them would then talk to (and fail to kill) the other's server. For the same
 * reason every start checks that the server answering is the process it spawned.
 */
export type OwnRedis = OwnServer &
  Required<Pick<OwnServer, 'freeze' | 'thaw'>> & {
    /** Forgets the data of a stopped server: the next start() comes back empty. */
    wipe(): void;
  };

export async function startOwnRedis(opts: { persistence?: boolean } = {}): Promise<OwnRedis> {
  const persistence = opts.persistence ?? true;
  const dir = mkdtempSync(path.join(tmpdir(), 'sorting-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  let exited = true;
  const url = `redis://127.0.0.1:${port}`;
  const start = async () => {
    exited = false;
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, ...(persistence ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']), '--save', '', '--loglevel', 'warning'],
      { stdio: 'ignore' },
    );
    child.once('exit', () => {
      exited = true;
    });
    const probe = new IORedis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      await waitFor(
        async () => {
          if (exited) throw new Error('redis-server exited at start');
          try {
            if (probe.status !== 'ready') await probe.connect();
            const info = await probe.info('server');
            const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
            if (pid !== child?.pid) throw new Error(`another redis-server (pid ${pid}) answers on port ${port}, not the one this test started`);
            return true;
          } catch {
            probe.disconnect();
            return false;
          }
        },
        { timeoutMs: 10_000, intervalMs: 50, what: `redis-server on port ${port}` },
      );
    } finally {
      probe.disconnect();
    }
  };
  let frozen = false;
  const freeze = () => {
    if (!child || exited) return;
    child.kill('SIGSTOP');
    frozen = true;
  };
  const thaw = () => {
    if (!child || exited || !frozen) return;
    child.kill('SIGCONT');
    frozen = false;
  };
  const kill = async () => {
    if (!child || exited) return;
    thaw();
    child.kill('SIGKILL');
    await waitFor(() => exited, { timeoutMs: 5_000, what: 'redis-server to exit' });
  };
  await start();
  return {
    url,
    port,
    kill,
    start,
    freeze,
    thaw,
    wipe() {
      if (!exited) throw new Error('wipe() needs the server stopped');
      for (const f of readdirSync(dir)) rmSync(path.join(dir, f), { recursive: true, force: true });
    },
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
