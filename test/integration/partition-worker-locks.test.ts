import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { Queue, type ConnectionOptions } from 'bullmq';
import { PARTITION_JOB_OPTIONS, PARTITION_WORKER_TUNING, partitionQueueName } from '../../shared/queue/jobs';
import { startPartitionWorker, type PartitionWorker } from '../../shared/queue/queue-module';
import { recordingLogger } from '../support/log-sink';
import { startOwnRedis, type OwnRedis } from '../support/own-redis';
import { waitFor } from '../support/wait-for';

/*
 * A partition worker renews the locks of the jobs in hand every half lock duration
 * (shared/queue/queue-module.ts). A job whose completion is already on its way to Redis is not renewed:
 * the renewal would run behind the completion on the same connection, find the lock gone with the
 * finished job and warn that a job in hand lost its lock (under load, every few seconds on every busy
 * partition, for jobs that had finished). Here Redis holds the completion back (CLIENT PAUSE WRITE, on a
 * Redis of the test's own) for longer than the renewal interval, so a renewal always falls behind it.
 * A job that does lose its lock (its key deleted while it runs) is still reported, and is the only one.
 */

jest.setTimeout(60_000);

describe('a partition worker renewing its locks', () => {
  let redis: OwnRedis;
  let worker: PartitionWorker | undefined;
  const clients: IORedis[] = [];
  const prefix = `locks-${randomUUID().slice(0, 8)}`;
  const partition = 5;
  const name = partitionQueueName(partition);

  beforeAll(async () => {
    redis = await startOwnRedis({ persistence: false });
  });
  afterAll(async () => {
    await worker?.close(true);
    for (const c of clients) c.disconnect();
    await redis?.close();
  });

  it('does not report a finished job as lost, and does report a job whose lock is gone', async () => {
    const { log, records: warnings } = recordingLogger<{ msg: string; jobIds?: string[] }>('warn', 'test');
    const admin = new IORedis(redis.url);
    const producer = new IORedis(redis.url, { maxRetriesPerRequest: null });
    clients.push(admin, producer);
    const renewEveryMs = PARTITION_WORKER_TUNING.lockDuration / 2;
    const finished: string[] = [];
    const held: { release: (() => void) | null } = { release: null };
    worker = await startPartitionWorker<{ name: string; commandId: string; replyTo: string }, { ok: true }, never>(
      { redisUrl: redis.url, prefix },
      partition,
      async (job) => {
        if (job.data.name === 'held') {
          // Held until its lock key is deleted behind its back.
          await new Promise<void>((r) => (held.release = r));
        } else {
          // Writes wait from now for longer than a renewal interval: the completion sent when this
          // returns waits in Redis, and the renewal that comes meanwhile queues behind it.
          await admin.call('CLIENT', 'PAUSE', String(renewEveryMs + 1_000), 'WRITE');
        }
        finished.push(job.id);
        return { outcome: { ok: true }, reply: null };
      },
      log,
    );
    const queue = new Queue(name, { connection: producer as unknown as ConnectionOptions, prefix });
    const lost = () => warnings.filter((w) => w.msg.startsWith('command jobs in hand lost their locks'));

    const paused = await queue.add('paused', { name: 'paused', commandId: randomUUID(), replyTo: `${prefix}:r` }, PARTITION_JOB_OPTIONS);
    await waitFor(async () => (await queue.getJobState(paused.id!)) === 'completed', { timeoutMs: 20_000, intervalMs: 20, what: 'the paused job completed' });
    const heldJob = await queue.add('held', { name: 'held', commandId: randomUUID(), replyTo: `${prefix}:r` }, PARTITION_JOB_OPTIONS);
    await waitFor(() => held.release !== null, { timeoutMs: 10_000, intervalMs: 10, what: 'the held job in hand' });
    await admin.del(`${prefix}:${name}:${heldJob.id}:lock`);
    await waitFor(() => lost().length > 0, { timeoutMs: renewEveryMs + 5_000, intervalMs: 20, what: 'the warning of a lost lock' });
    // The one warning names the held job alone: the renewal that ran behind the paused job's completion
    // (right after it, long before the held job's renewal) found nothing to report.
    expect(lost().map((w) => w.jobIds)).toEqual([[heldJob.id]]);
    held.release!();
    await waitFor(() => finished.includes(heldJob.id!), { timeoutMs: 10_000, intervalMs: 10, what: 'the held job finished' });
    await queue.close();
  });
});
