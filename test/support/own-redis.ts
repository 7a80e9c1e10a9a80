import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { acceptsConnections, type OwnServer } from '../../fixtures/local-servers';
import { waitFor } from './test-api';

/**
 * A redis-server of the test's own on a port of 6391-6399: with AOF (fsync on every write; a restart
 * replays it), or with no persistence at all (`persistence: false`: a restart comes back empty, as many
 * deployments run Redis).
 */
export type OwnRedis = OwnServer;

const PORTS = [6391, 6392, 6393, 6394, 6395, 6396, 6397, 6398, 6399];

export async function startOwnRedis(opts: { persistence?: boolean } = {}): Promise<OwnRedis> {
  const persistence = opts.persistence ?? true;
  const dir = mkdtempSync(path.join(tmpdir(), 'sorting-redis-'));
  let port = 0;
  for (const p of PORTS) {
    if (!(await acceptsConnections(p))) {
      port = p;
      break;
    }
  }
  if (!port) throw new Error(`no free port among ${PORTS.join(', ')} for the test's own Redis`);
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
            return (await probe.ping()) === 'PONG';
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
  const kill = async () => {
    if (!child || exited) return;
    child.kill('SIGKILL');
    await waitFor(() => exited, { timeoutMs: 5_000, what: 'redis-server to exit' });
  };
  await start();
  return {
    url,
    port,
    kill,
    start,
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
