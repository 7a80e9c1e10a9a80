import type { RedisOptions } from 'ioredis';
import { FOLD_EVERY_MS, type Logger } from '../logging/logger';
import { createRedisConnection, type RedisConnection } from './connection';

/** A Redis connection: one server or a cluster (shared/redis/connection.ts). */
export type Redis = RedisConnection;


/** The process's Redis connection errors, by message: one line per message per interval for all connections. */
const connectionErrors = new Map<string, { last: number; folded: number; connections: Set<string> }>();

/**
 * Gives an ioredis client an `error` listener that logs through pino. Without one, ioredis prints
 * "[ioredis] Unhandled error event" lines on stderr, outside the JSON log, on every reconnect attempt
 * while Redis is down. One process has a connection per partition and role, and while Redis is away
 * every one of them fails the same way at every attempt: one line per error message every 5 s for the
 * whole process, naming the connections and how many failures were folded in (`repeated`).
 */
export function watchRedisErrors<T extends Redis>(client: T, log: Logger | undefined, name: string): T {
  client.on('error', (err: Error) => {
    const now = Date.now();
    let fold = connectionErrors.get(err.message);
    if (!fold) {
      if (connectionErrors.size > 100) connectionErrors.clear();
      fold = { last: 0, folded: 0, connections: new Set() };
      connectionErrors.set(err.message, fold);
    }
    fold.connections.add(name);
    if (now - fold.last < FOLD_EVERY_MS) {
      fold.folded++;
      return;
    }
    const code = (err as { code?: unknown }).code;
    const connections = [...fold.connections];
    log?.warn(
      { err: err.message, ...(typeof code === 'string' ? { code } : {}), connections, ...(fold.folded ? { repeated: fold.folded } : {}) },
      `redis connection${connections.length > 1 ? 's' : ''} ${connections.map((c) => `'${c}'`).join(', ')}: ${err.message}`,
    );
    fold.last = now;
    fold.folded = 0;
    fold.connections.clear();
  });
  return client;
}

/**
 * Options of a connection that serves requests while a client waits (the sign-in throttle, /readyz, the
 * hubs' event subscriptions). ioredis would otherwise keep a command waiting through reconnect attempts
 * up to 2 s apart, and fail it only after several of them: seconds of silence while Redis is down. Here a
 * command Redis has not answered within a second fails, whether it was sent or is waiting for the
 * reconnect (an outage: the request answers 503 with Retry-After), and reconnects are at most a second
 * apart, so the service is back as soon as Redis is. Never for BullMQ's blocking connections.
 */
export const REQUEST_PATH_REDIS: RedisOptions = {
  commandTimeout: 1000,
  maxRetriesPerRequest: 1,
  retryStrategy: (times: number) => Math.min(times * 100, 1000),
};

/**
 * Redis connections for everything but the queues (rate limits, reply channels, event fan-out).
 * BullMQ's own connections are made in shared/queue, through the same createRedisConnection.
 */
export function createRedis(url: string, opts: RedisOptions & { log?: Logger; name?: string } = {}): Redis {
  const { log, name = 'redis', ...redisOpts } = opts;
  return watchRedisErrors(createRedisConnection(url, { name: { log, what: name }, redisOptions: { lazyConnect: false, ...redisOpts } }), log, name);
}
