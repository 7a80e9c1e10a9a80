import { hostname } from 'node:os';
import { Queue, UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import { createRedisConnection, type RedisConnection as Redis } from '../redis/connection';
import { z } from 'zod';
import type { WallEvent } from '../events/channels';
import type { Logger } from '../logging/logger';
import type { QueueSettings } from './queue-module';

/** One webhook delivery: one event to one subscription. Braces: a Redis Cluster hash tag. */
export const WEBHOOK_QUEUE = '{webhook-deliveries}';

/**
 * Retry policy of webhook deliveries (docs/api.md §8: "at least an hour"): 12 attempts, exponential
 * backoff doubling from WEBHOOK_RETRY_BASE_MS. With the 5 s default the 11 waits are
 * 5 s, 10 s, ... 85 min: about 2 h 50 min in all. The last failure stays in webhook_delivery.
 */
export const WEBHOOK_MAX_ATTEMPTS = 12;

/** A failure that no retry can mend (the subscription is gone): BullMQ stops retrying at once. */
export class PermanentDeliveryFailure extends Error {}

export const webhookJobSchema = z.object({
  subscriptionId: z.number().int(),
  clientId: z.number().int(),
  // The event itself, not only its id: events never change, and a retry must send the same body.
  event: z.object({
    id: z.string(),
    type: z.string(),
    occurredAt: z.string(),
    clientId: z.number().int(),
    wallId: z.number().int().nullable(),
    data: z.unknown(),
  }),
});
export type WebhookJob = z.infer<typeof webhookJobSchema> & { event: WallEvent };

export interface DeliveryAttempt {
  /** 1 for the first attempt. */
  attempt: number;
  maxAttempts: number;
  /** The wait before the next attempt should this one fail, or null when it is the last. */
  retryDelayMs: number | null;
}

/**
 * The job id decides deduplication: a relay that crashed after enqueueing but before its
 * commit enqueues again, and BullMQ ignores a job id it still holds. BullMQ refuses ':' in ids.
 */
export function webhookJobId(eventId: string, subscriptionId: number): string {
  return `${eventId}_${subscriptionId}`;
}

function jobOptions(retryBaseMs: number) {
  return {
    attempts: WEBHOOK_MAX_ATTEMPTS,
    backoff: { type: 'exponential', delay: retryBaseMs },
    removeOnComplete: { age: 24 * 3600, count: 10000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 10000 },
  } as const;
}

export interface WebhookQueue {
  enqueue(jobs: WebhookJob[]): Promise<void>;
  close(): Promise<void>;
}

export function createWebhookQueue(settings: Pick<QueueSettings, 'redisUrl' | 'prefix'>, retryBaseMs: number): WebhookQueue {
  const producer: Redis = createRedisConnection(settings.redisUrl);
  const queue = new Queue(WEBHOOK_QUEUE, { connection: producer as ConnectionOptions, prefix: settings.prefix });
  const opts = jobOptions(retryBaseMs);
  return {
    async enqueue(jobs) {
      if (jobs.length === 0) return;
      await queue.addBulk(
        jobs.map((data) => ({ name: data.event.type, data, opts: { ...opts, jobId: webhookJobId(data.event.id, data.subscriptionId) } })),
      );
    },
    async close() {
      await queue.close();
      await producer.quit().catch(() => undefined);
    },
  };
}

export type WebhookHandler = (job: WebhookJob, attempt: DeliveryAttempt) => Promise<void>;

/** Takes delivery jobs, several at a time (they wait on receivers, not on the database). */
export async function startWebhookWorker(
  settings: Pick<QueueSettings, 'redisUrl' | 'prefix'>,
  retryBaseMs: number,
  handler: WebhookHandler,
  log: Logger,
  concurrency = 16,
): Promise<{ close(): Promise<void> }> {
  const workerConnection: Redis = createRedisConnection(settings.redisUrl, { blocking: true });
  const worker = new Worker(
    WEBHOOK_QUEUE,
    async (job: Job) => {
      const parsed = webhookJobSchema.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`malformed webhook job ${job.id}`);
      const maxAttempts = job.opts.attempts ?? 1;
      const attempt = job.attemptsMade + 1;
      const retryDelayMs = attempt < maxAttempts ? Math.round(2 ** (attempt - 1) * retryBaseMs) : null;
      try {
        await handler(parsed.data as WebhookJob, { attempt, maxAttempts, retryDelayMs });
      } catch (err) {
        if (err instanceof PermanentDeliveryFailure) throw new UnrecoverableError(err.message);
        throw err;
      }
    },
    { connection: workerConnection as ConnectionOptions, prefix: settings.prefix, name: `${hostname()}:${process.pid}`, concurrency },
  );
  worker.on('error', (err) => log.error({ err, queue: WEBHOOK_QUEUE }, 'webhook worker error'));
  worker.on('failed', (job, err) => {
    if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) log.warn({ jobId: job.id, err: err.message }, 'webhook delivery gave up');
  });
  await worker.waitUntilReady();
  return {
    async close() {
      await worker.close();
      workerConnection.disconnect();
    },
  };
}
