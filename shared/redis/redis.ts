import IORedis, { type Redis, type RedisOptions } from 'ioredis';

export type { Redis };

/**
 * Redis connections for everything but the queues (rate limits, reply channels, event fan-out).
 * BullMQ's own connections are made in shared/queue.
 */
export function createRedis(url: string, opts: RedisOptions = {}): Redis {
  return new IORedis(url, { maxRetriesPerRequest: 3, enableReadyCheck: true, lazyConnect: false, ...opts });
}
