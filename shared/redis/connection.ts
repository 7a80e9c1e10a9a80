import IORedis, { Cluster, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Logger } from '../logging/logger';

/** A connection to one Redis server or to a Redis Cluster; every Redis user of the service takes this. */
export type RedisConnection = IORedis | Cluster;

/**
 * Where Redis is, parsed from REDIS_URL. `redis://` and `rediss://` name one server (ioredis parses
 * them); `redis+cluster://` and `rediss+cluster://` name a Redis Cluster by one or more seed nodes,
 * comma-separated: `redis+cluster://[user:password@]host:port,host:port[,...]`. One setting keeps
 * every place that passes the URL around (queue settings, workers, bench) unchanged.
 */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; nodes: { host: string; port: number }[]; username?: string; password?: string; tls: boolean };

const CLUSTER_SCHEME = /^(rediss?)\+cluster:\/\/(.*)$/i;

export function parseRedisUrl(url: string): RedisTarget {
  const m = CLUSTER_SCHEME.exec(url.trim());
  if (!m) return { kind: 'single', url };
  let rest = m[2]!.replace(/\/+$/, '');
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const auth = rest.slice(0, at);
    rest = rest.slice(at + 1);
    const colon = auth.indexOf(':');
    username = decodeURIComponent(colon >= 0 ? auth.slice(0, colon) : auth) || undefined;
    password = colon >= 0 ? decodeURIComponent(auth.slice(colon + 1)) : undefined;
  }
  const nodes = rest
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((hp) => {
      const hm = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(hp);
      if (!hm) throw new Error(`REDIS_URL: cluster node '${hp}' is not host:port`);
      return { host: hm[1]!, port: Number(hm[2]) };
    });
  if (nodes.length === 0) throw new Error('REDIS_URL: a redis+cluster:// URL needs at least one host:port');
  return { kind: 'cluster', nodes, username, password, tls: m[1]!.toLowerCase() === 'rediss' };
}

export function isClusterUrl(url: string): boolean {
  return CLUSTER_SCHEME.test(url.trim());
}

export interface ConnectionOptions {
  /**
   * A connection that BullMQ workers block on: BullMQ requires `maxRetriesPerRequest: null` there
   * (a command waits through a reconnect instead of failing). Producers and everything else fail a
   * command after a few reconnect attempts, so an outage becomes a 503, not a hung request.
   */
  blocking?: boolean;
  /** Overrides of the per-server options (e.g. a smaller `maxRetriesPerRequest` in tests). */
  redisOptions?: RedisOptions;
  /**
   * What the connection is for, and the logger of its process (whose role it names), shown by Redis's
   * CLIENT LIST as `role:pid:what` (redisClientName): an operator counting a deployment's connections,
   * or looking for one that outlives its use, sees which process holds each and why.
   */
  name?: { log?: Logger; what: string };
}

/**
 * The name a connection gives itself (CLIENT SETNAME): the role of its process (its logger's), its pid
 * and what it is for, e.g. `worker:sorting:4711:partition-leases`. Redis allows no spaces in it.
 */
export function redisClientName(name: { log?: Logger; what: string }): string {
  const role = name.log?.bindings().role;
  return [typeof role === 'string' ? role : '', process.pid, name.what].filter((p) => p !== '').join(':').replace(/\s+/g, '-');
}

/**
 * How the cluster client rides out a resharding or a failover. MOVED and ASK are followed at once;
 * TRYAGAIN (a multi-key command during a slot migration), CLUSTERDOWN (no master for a slot yet) and
 * a lost node ("Connection is closed", refused) are retried after the delays below, refreshing the slot
 * map each time. maxRedirections bounds the number of such retries per command: 60 × 250 ms ≈ 15 s
 * covers a replica's promotion with a cluster-node-timeout up to about 10 s; beyond that the command
 * fails and the caller answers 503.
 */
export const CLUSTER_RETRY = {
  maxRedirections: 60,
  retryDelayOnFailover: 250,
  retryDelayOnClusterDown: 250,
  retryDelayOnTryAgain: 100,
  slotsRefreshTimeout: 2000,
} as const;

/**
 * The one place that opens a Redis connection: a single server (`IORedis`) or a cluster
 * (`IORedis.Cluster`), from REDIS_URL, with the options BullMQ and the rest of the service need.
 */
export function createRedisConnection(url: string, opts: ConnectionOptions = {}): RedisConnection {
  const perServer: RedisOptions = {
    maxRetriesPerRequest: opts.blocking ? null : 3,
    enableReadyCheck: true,
    ...(opts.name ? { connectionName: redisClientName(opts.name) } : {}),
    ...opts.redisOptions,
  };
  const target = parseRedisUrl(url);
  if (target.kind === 'single') return new IORedis(url, perServer);
  const clusterOptions: ClusterOptions = {
    ...CLUSTER_RETRY,
    // Commands issued while the slot map is being (re)built wait for it instead of failing.
    enableOfflineQueue: true,
    enableReadyCheck: true,
    // Reads and writes go to masters: BullMQ's scripts write, and a replica may lag behind.
    scaleReads: 'master',
    // Reconnects to the cluster as a whole (all seeds unreachable): back off up to 2 s, never give up.
    clusterRetryStrategy: (times) => Math.min(100 * times, 2000),
    redisOptions: {
      ...perServer,
      username: target.username,
      password: target.password,
      ...(target.tls ? { tls: {} } : {}),
    },
  };
  return new Cluster(target.nodes, clusterOptions);
}

/**
 * Records the connections made from `client` by its duplicate(), as BullMQ makes a worker's blocking
 * connection, so that whoever closes `client` can close them too (closeForGood).
 */
export function recordDuplicates(client: RedisConnection): RedisConnection[] {
  const made: RedisConnection[] = [];
  const duplicate = client.duplicate.bind(client) as (...args: unknown[]) => RedisConnection;
  (client as { duplicate: (...args: unknown[]) => RedisConnection }).duplicate = (...args: unknown[]) => {
    const copy = duplicate(...args);
    made.push(copy);
    return copy;
  };
  return made;
}

/**
 * Closes a connection for good: cut now, and cut again whenever anything connects it afterwards.
 * BullMQ resets a blocking connection whose wait outlived its deadline (a Redis away) by reconnecting
 * it in a loop that a close does not stop: once the connection has ended the loop calls connect() on
 * it, and the worker's old blocking connection came back with Redis and stayed open, idle, one more
 * after each outage in which a partition changed hands.
 */
export function closeForGood(client: RedisConnection): void {
  client.on('connect', () => client.disconnect());
  // One that has ended is cut already (and comes back only through the listener above). ioredis's
  // disconnect() of it would arm a 2 s timer to destroy a stream whose close, which clears that timer,
  // came long before: the timer then ran out alone, holding the process open for 2 s after its close.
  if (client.status !== 'end') client.disconnect();
}
