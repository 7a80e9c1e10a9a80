import { Queue, type ConnectionOptions } from 'bullmq';
import { createRedisConnection, type RedisConnection as Redis } from '../redis/connection';
import { partitionQueueName } from './jobs';
import type { QueueSettings } from './queue-module';

/** What operators look at: job counts per state, as BullMQ keeps them. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

export interface QueueInspection {
  /** Every queue of the deployment, opened on first use (one Redis connection for all). */
  queues(): Queue[];
  /** Job counts per queue name and state; one round trip per queue. */
  jobCounts(): Promise<{ queue: string; counts: Record<QueueState, number> }[]>;
  close(): Promise<void>;
}

/**
 * The queues that exist: one queue per partition (jobs.ts). The dashboard (/admin/queues) and
 * the queue metrics read them here. The event pipeline and the sweeper use no queue: their work is in
 * PostgreSQL (docs/architecture.md "Event pipeline").
 */
export function queueNames(partitions: number): string[] {
  return Array.from({ length: partitions }, (_, p) => partitionQueueName(p));
}

export function openQueueInspection(settings: Pick<QueueSettings, 'redisUrl' | 'prefix' | 'partitions'>): QueueInspection {
  let connection: Redis | null = null;
  let opened: Queue[] | null = null;
  const queues = () => {
    if (!opened) {
      // Few retries: a scrape or a dashboard page must fail fast while Redis is away, not hang. Through
      // the one connection factory, so the dashboard and the queue metrics work on a cluster too.
      const redis = createRedisConnection(settings.redisUrl, { name: { what: 'queue inspection' }, redisOptions: { maxRetriesPerRequest: 1 } });
      // Its failures show in the scrape (collector errors) and the dashboard page, not as log noise.
      redis.on('error', () => undefined);
      connection = redis;
      opened = queueNames(settings.partitions).map((name) => new Queue(name, { connection: connection as ConnectionOptions, prefix: settings.prefix }));
    }
    return opened;
  };
  return {
    queues,
    async jobCounts() {
      return Promise.all(
        queues().map(async (q) => ({ queue: q.name, counts: (await q.getJobCounts(...QUEUE_STATES)) as Record<QueueState, number> })),
      );
    },
    async close() {
      if (!opened) return;
      await Promise.all(opened.map((q) => q.close().catch(() => undefined)));
      await connection?.quit().catch(() => undefined);
      opened = null;
      connection = null;
    },
  };
}
