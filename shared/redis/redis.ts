import type { RedisOptions } from 'ioredis';
import { createRedisConnection, type RedisConnection } from './connection';

/** A Redis connection: one server or a cluster (shared/redis/connection.ts). */
export type Redis = RedisConnection;

/**
 * Redis connections for everything but the queues (rate limits, reply channels, event fan-out).
 * BullMQ's own connections are made in shared/queue, through the same createRedisConnection.
 */
export function createRedis(url: string, opts: RedisOptions = {}): Redis {
  return createRedisConnection(url, { redisOptions: { lazyConnect: false, ...opts } });
}
