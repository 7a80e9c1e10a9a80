import { createRedisConnection, type RedisConnection as Redis } from '../redis/connection';
import type { Logger } from '../logging/logger';
import { REQUEST_PATH_REDIS, watchRedisErrors } from '../redis/redis';

/** A job that will not be tried again: recorded in PostgreSQL (failed_job), not only in Redis. */
export interface FinalFailure {
  queue: string;
  jobName: string;
  jobId: string;
  data: unknown;
  error: string;
  attempts: number;
}
export type FailureRecorder = (failure: FinalFailure) => Promise<void>;

/**
 * Every queue connection of the job module: its errors go to the JSON log, never to stderr.
 * `forWorker`: a BullMQ worker blocks on it, so BullMQ needs maxRetriesPerRequest null there. Any
 * other connection fails a command Redis has not answered within a second (REQUEST_PATH_REDIS), a
 * Redis that hangs (a frozen server, a network black hole) as much as one that refuses.
 */
export function queueConnection(url: string, forWorker: boolean, log: Logger | undefined, name: string): Redis {
  const named = { name: { log, what: name } };
  return watchRedisErrors(createRedisConnection(url, forWorker ? { ...named, blocking: true } : { ...named, redisOptions: REQUEST_PATH_REDIS }), log, name);
}
