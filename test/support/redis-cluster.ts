import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from './test-api';

const run = promisify(execFile);

export interface ClusterNode {
  port: number;
  child: ChildProcess;
  exited: boolean;
  output: string;
}

export interface LocalRedisCluster {
  nodes: ClusterNode[];
  /** `redis+cluster://127.0.0.1:p1,...` naming every node as a seed. */
  url: string;
  dir: string;
  /** `redis-cli -p <port> <args>`: the reply as text. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** The port of the master serving a key's slot right now, as seen by a living node. */
  masterOf(key: string): Promise<number>;
  /** Waits (bounded) until every living node reports cluster_state:ok and every slot has a living master. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A throwaway Redis Cluster on loopback: `masters` masters with one replica each, started with the
 * installed redis-server in a temp dir (AOF on, no RDB snapshots, a 1 s node timeout so a failover
 * takes seconds, not the production default of 15 s), joined with `redis-cli --cluster create`.
 */
export async function startRedisCluster(ports: number[], opts: { nodeTimeoutMs?: number } = {}): Promise<LocalRedisCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sorting-redis-cluster-'));
  const nodes: ClusterNode[] = [];
  const cli = async (port: number, ...args: string[]) => (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 })).stdout;

  const stop = async () => {
    for (const n of nodes) if (!n.exited) n.child.kill('SIGTERM');
    try {
      await waitFor(() => nodes.every((n) => n.exited), { timeoutMs: 10_000, intervalMs: 25, what: 'redis cluster nodes to exit' });
    } catch {
      for (const n of nodes) if (!n.exited) n.child.kill('SIGKILL');
      await waitFor(() => nodes.every((n) => n.exited), { timeoutMs: 5_000, intervalMs: 25, what: 'redis cluster nodes to exit after SIGKILL' });
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    for (const port of ports) {
      const busy = await cli(port, 'ping').then(
        () => true,
        () => false,
      );
      if (busy) throw new Error(`port ${port} already has a Redis server: a stale cluster of an earlier run? Stop it first.`);
    }
    for (const port of ports) {
      const nodeDir = path.join(dir, String(port));
      mkdirSync(nodeDir);
      const child = spawn(
        'redis-server',
        [
          '--port', String(port),
          '--bind', '127.0.0.1',
          '--dir', nodeDir,
          '--cluster-enabled', 'yes',
          '--cluster-config-file', `nodes-${port}.conf`,
          '--cluster-node-timeout', String(opts.nodeTimeoutMs ?? 1000),
          '--appendonly', 'yes',
          '--save', '',
          '--daemonize', 'no',
          '--loglevel', 'warning',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const node: ClusterNode = { port, child, exited: false, output: '' };
      const append = (b: Buffer) => {
        if (node.output.length < 50_000) node.output += b.toString();
      };
      child.stdout!.on('data', append);
      child.stderr!.on('data', append);
      child.once('exit', () => {
        node.exited = true;
      });
      nodes.push(node);
    }
    await waitFor(
      async () => {
        const replies = await Promise.all(ports.map((p) => cli(p, 'ping').catch(() => '')));
        return replies.every((r) => r.trim() === 'PONG');
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'redis cluster nodes to answer PING' },
    );
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], { timeout: 30_000 });

    const cluster: LocalRedisCluster = {
      nodes,
      dir,
      url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
      cli,
      async masterOf(key) {
        const living = nodes.find((n) => !n.exited)!;
        const slot = Number((await cli(living.port, 'cluster', 'keyslot', key)).trim());
        const shards = await cli(living.port, 'cluster', 'nodes');
        for (const line of shards.trim().split('\n')) {
          const [, addr, flags, , , , , state, ...ranges] = line.split(' ');
          if (!flags!.includes('master') || flags!.includes('fail') || state !== 'connected') continue;
          for (const r of ranges) {
            const [from, to] = r.split('-').map(Number);
            if (slot >= from! && slot <= (to ?? from!)) return Number(addr!.split('@')[0]!.split(':')[1]);
          }
        }
        throw new Error(`no living master serves slot ${slot} (${key})`);
      },
      async waitHealthy(timeoutMs = 30_000) {
        await waitFor(
          async () => {
            const living = nodes.filter((n) => !n.exited);
            for (const n of living) {
              const info = await cli(n.port, 'cluster', 'info');
              if (!/cluster_state:ok/.test(info) || !/cluster_slots_ok:16384/.test(info)) return false;
              // Every node must see the same living masters, none flagged as failing.
              const view = await cli(n.port, 'cluster', 'nodes');
              if (/\bfail\?/.test(view)) return false;
            }
            return true;
          },
          { timeoutMs, intervalMs: 100, what: 'the redis cluster to report cluster_state:ok on every node' },
        );
      },
      stop,
    };
    await cluster.waitHealthy();
    return cluster;
  } catch (err) {
    const out = nodes.map((n) => `--- redis ${n.port}\n${n.output.slice(-2000)}`).join('\n');
    await stop().catch(() => undefined);
    throw new Error(`${(err as Error).message}\n${out}`);
  }
}
