import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { Queue, type ConnectionOptions } from 'bullmq';
import { PARTITION_JOB_OPTIONS, partitionQueueName } from '../../shared/queue/jobs';
import { startPartitionWorker, type PartitionWorker } from '../../shared/queue/queue-module';
import { createLogger } from '../../shared/logging/logger';
import { startOwnRedis, type OwnRedis } from '../support/own-redis';
import { waitFor } from '../support/wait-for';

/*
 * A partition's worker at idle (shared/queue/queue-module.ts): one job at a time, each answered before
 * the next is added, as one sorter's commands come. Each job costs Redis four reads of a client's
 * commands: the caller's add, the worker's blocking wait, its fetch (with the next fetch and the stale
 * marker's removal in the same write) and its answer with the job's completion. With the next fetch
 * sent once the first job was handed over, it was five. After each answer no marker is left for the
 * next wait to return on at once. On a Redis of the test's own: its counters count this test alone.
 */

jest.setTimeout(60_000);

describe('a partition worker at idle', () => {
  let redis: OwnRedis;
  let worker: PartitionWorker | undefined;
  const clients: IORedis[] = [];
  const prefix = `idle-${randomUUID().slice(0, 8)}`;
  const partition = 3;

  beforeAll(async () => {
    redis = await startOwnRedis({ persistence: false });
  });
  afterAll(async () => {
    await worker?.close();
    for (const c of clients) c.disconnect();
    await redis?.close();
  });

  it('takes each job in four reads of Redis and leaves no marker behind it', async () => {
    const elsewhere = new IORedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    clients.push(elsewhere);
    const handled: string[] = [];
    worker = await startPartitionWorker<{ name: string; commandId: string; replyTo: string }, { ok: true }, { commandId: string }>(
      { redisUrl: redis.url, prefix },
      partition,
      async (job) => {
        handled.push(job.data.commandId);
        // A command's own work elsewhere (its write to PostgreSQL takes a millisecond or more), here two
        // round trips to the shared Redis one after the other: the answer comes in a later turn of the
        // event loop than any fetch the worker sends once the job is handed over, as a real command's does.
        await elsewhere.ping();
        await elsewhere.ping();
        return { outcome: { ok: true }, reply: { channel: job.data.replyTo, body: { commandId: job.data.commandId } } };
      },
      createLogger('warn', 'test'),
    );
    const producer = new IORedis(redis.url, { maxRetriesPerRequest: null });
    const subscriber = new IORedis(redis.url);
    const probe = new IORedis(redis.url);
    clients.push(producer, subscriber, probe);
    const queue = new Queue(partitionQueueName(partition), { connection: producer as unknown as ConnectionOptions, prefix });
    const replyTo = `${prefix}:replies`;
    const answered = new Set<string>();
    subscriber.on('message', (_channel, message: string) => answered.add((JSON.parse(message) as { commandId: string }).commandId));
    await subscriber.subscribe(replyTo);
    const markerKey = `${prefix}:${partitionQueueName(partition)}:marker`;
    const readsProcessed = async () => Number(/total_reads_processed:(\d+)/.exec(await probe.info('stats'))![1]);
    const oneJob = async () => {
      const commandId = randomUUID();
      await queue.add('x', { name: 'x', commandId, replyTo }, PARTITION_JOB_OPTIONS);
      await waitFor(() => answered.has(commandId), { timeoutMs: 10_000, intervalMs: 1, what: `the answer to job ${commandId}` });
      // Answered after the fetch behind it found the queue empty and the marker was removed.
      expect(await probe.exists(markerKey)).toBe(0);
      return commandId;
    };

    // The first jobs load the scripts and warm the connections.
    for (let i = 0; i < 5; i++) await oneJob();
    const jobs = 40;
    const before = await readsProcessed();
    const ids: string[] = [];
    for (let i = 0; i < jobs; i++) ids.push(await oneJob());
    // The probe's own reads: its info now and an EXISTS per job.
    const reads = (await readsProcessed()) - before - 1 - jobs;
    expect(handled.slice(-jobs)).toEqual(ids);
    // Four a job; the worker's lock renewal and stalled check (each every few seconds) add a few in all.
    expect(reads / jobs).toBeGreaterThanOrEqual(4);
    expect(reads / jobs).toBeLessThan(4.5);
    await queue.close();
  });
});
