import { randomUUID } from 'node:crypto';
import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import { createRedisConnection, type RedisConnection as Redis } from '../shared/redis/connection';
import { commandQueueName } from '../shared/commands/partitioning';
import { PARTITION_JOB_OPTIONS, PARTITION_WORKER_TUNING } from '../shared/queue/jobs';
import type { QueueSettings } from '../shared/queue/queue-module';

export interface QueueRoundTrip {
  /** Milliseconds from before queue.add() to the reply arriving on the pub/sub channel, one per job. */
  samples: number[];
}

/**
 * The floor of the command path's queue leg (bench/): n jobs, one at a time, through a throwaway queue
 * with the command queues' settings (the same worker tuning), answered the way
 * the command bus is answered: the worker publishes to the caller's reply channel. The handler does
 * nothing, so the figure is BullMQ + Redis + pub/sub alone. The one bullmq importer outside
 * shared/queue (docs/architecture.md, "The job module"): it measures BullMQ itself, with the queue
 * module's settings, and it is bench-only, so it is not built into the image.
 */
export async function measureQueueRoundTrip(settings: Pick<QueueSettings, 'redisUrl' | 'prefix'>, n: number): Promise<QueueRoundTrip> {
  const name = `probe-${randomUUID()}`;
  const replyChannel = `${settings.prefix}:probe-replies:${randomUUID()}`;
  const producer: Redis = createRedisConnection(settings.redisUrl);
  const subscriber: Redis = createRedisConnection(settings.redisUrl);
  const publisher: Redis = createRedisConnection(settings.redisUrl);
  const workerConnection: Redis = createRedisConnection(settings.redisUrl, { blocking: true });
  const queue = new Queue(name, { connection: producer as ConnectionOptions, prefix: settings.prefix });

  const waiting = new Map<string, () => void>();
  subscriber.on('message', (_channel: string, message: string) => {
    const id = (JSON.parse(message) as { commandId: string }).commandId;
    waiting.get(id)?.();
    waiting.delete(id);
  });
  await subscriber.subscribe(replyChannel);

  const worker = new Worker(
    name,
    async (job) => {
      const { commandId, replyTo } = job.data as { commandId: string; replyTo: string };
      const outcome = { ok: true, value: null };
      await publisher.publish(replyTo, JSON.stringify({ commandId, outcome }));
      return outcome;
    },
    { connection: workerConnection as ConnectionOptions, prefix: settings.prefix, ...PARTITION_WORKER_TUNING },
  );
  await worker.waitUntilReady();

  const samples: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const commandId = randomUUID();
      const replied = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(commandId);
          reject(new Error(`queue probe: no reply within 10 s for job ${i}`));
        }, 10_000);
        waiting.set(commandId, () => {
          clearTimeout(timer);
          resolve();
        });
      });
      const t0 = performance.now();
      const data = { commandId, replyTo: replyChannel, enqueuedAt: Date.now() };
      await queue.add('probe', data, PARTITION_JOB_OPTIONS);
      await replied;
      samples.push(performance.now() - t0);
    }
  } finally {
    await worker.close();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    subscriber.disconnect();
    publisher.disconnect();
    workerConnection.disconnect();
    await producer.quit().catch(() => undefined);
  }
  return { samples };
}

/**
 * The fewest workers listening on any command partition queue (0 while a worker process is still
 * starting), so a caller can wait for the sorting worker before sending commands.
 */
export async function commandWorkersListening(settings: Pick<QueueSettings, 'redisUrl' | 'prefix' | 'partitions'>): Promise<number> {
  const connection: Redis = createRedisConnection(settings.redisUrl);
  try {
    let fewest = Infinity;
    for (let partition = 0; partition < settings.partitions; partition++) {
      const q = new Queue(commandQueueName(partition), { connection: connection as ConnectionOptions, prefix: settings.prefix });
      try {
        fewest = Math.min(fewest, await q.getWorkersCount());
      } finally {
        await q.close();
      }
    }
    return fewest;
  } finally {
    await connection.quit().catch(() => undefined);
  }
}
