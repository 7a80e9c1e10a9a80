import type { Logger } from '../logging/logger';
import { REQUEST_PATH_REDIS, createRedis } from '../redis/redis';
import type { FailureRecorder } from '../queue/job-queue';
import { startPartitionWorker, type Answered, type PartitionJob, type PartitionWorker, type QueueSettings } from '../queue/queue-module';
import type { CommandHandlers, CommandJobData, CommandOutcome, CommandReply } from './command-job';
import { OutageGate, assertHandlers, dispatchCommand } from './command-dispatch';
import { PartitionLeases } from './partition-leases';
import { wallViewChangedMessage, wallViewChangesChannel } from '../events/channels';

/**
 * The worker side of the command module: a process that holds command partitions (partition-leases.ts)
 * runs the BullMQ worker of each partition it holds, and only those; each job is dispatched
 * (command-dispatch.ts: parsed with its command's schema, handed to its one handler, the wall actors of
 * workers/sorting), and the answer goes back on the caller's reply channel and stays with the job (the
 * caller reads it there if the reply was lost).
 */

export interface PartitionHostOptions {
  log: Logger;
  /** SORTING_LEASE_TTL_MS. */
  leaseTtlMs: number;
  recordFailure?: FailureRecorder;
  /**
   * A partition is no longer served here (handed back or lost): forget what was held for its walls. A
   * command of the partition may still run (jobs in hand past its worker's close, or the next holder's
   * first job, here again): what runs is kept until it is done.
   */
  dropped?(partition: number): void;
}

export interface PartitionHost {
  /** The partitions this process holds now. */
  partitions(): number[];
  close(): Promise<void>;
}

export async function startPartitionHost(settings: QueueSettings, handlers: Partial<CommandHandlers>, opts: PartitionHostOptions): Promise<PartitionHost> {
  assertHandlers(handlers);
  const { log } = opts;
  const dispatchOpts = { ...opts, gate: new OutageGate(log) };
  /** When each partition last answered a command (performance.now()). */
  const answeredAt = new Map<number, number>();
  const changesChannel = wallViewChangesChannel(settings.prefix);
  const processJob = async (partition: number, job: PartitionJob<CommandJobData>): Promise<Answered<CommandOutcome, CommandReply>> => {
    const { commandId, replyTo } = job.data;
    const handedAt = performance.now();
    const outcome = await dispatchCommand(handlers, job.data, { commandId, partition, jobId: Number(job.id), redelivered: job.redelivered }, dispatchOpts);
    // The partition's time for this command: since it was handed over or since the partition's previous
    // answer, whichever is later. The jobs in hand wait behind one another (a group is answered once it
    // committed), so the time since its hand-over alone would count its neighbours' time as well.
    const now = performance.now();
    const since = Math.max(handedAt, answeredAt.get(partition) ?? 0);
    answeredAt.set(partition, now);
    // Published by the partition's worker with the job's completion, in one write (queue-module.ts).
    const reply = replyTo ? { channel: replyTo, body: { commandId, outcome, serviceMs: Math.round((now - since) * 100) / 100 } } : null;
    // Before the reply: an API process hears that the wall may have changed before its caller is answered.
    const notice = { channel: changesChannel, message: wallViewChangedMessage(job.data.payload.wallId) };
    return { outcome, reply, notice };
  };

  const workers = new Map<number, Promise<PartitionWorker>>();
  const stopWorker = async (partition: number, force: boolean) => {
    const starting = workers.get(partition);
    if (!starting) return;
    workers.delete(partition);
    const worker = await starting.catch(() => null);
    await worker?.close(force);
    answeredAt.delete(partition);
    opts.dropped?.(partition);
  };

  // A round of the leases never waits on a Redis that hangs: each command fails after a second, and
  // the leases held run out on their own clock (partition-leases.ts).
  const leaseConnection = createRedis(settings.redisUrl, { log, name: 'partition leases', ...REQUEST_PATH_REDIS });
  const leaseSubscriber = createRedis(settings.redisUrl, { log, name: 'partition lease changes' });
  const leases = new PartitionLeases(
    leaseConnection,
    leaseSubscriber,
    { prefix: settings.prefix, partitions: settings.partitions, ttlMs: opts.leaseTtlMs, log },
    {
      async acquired(partition) {
        const starting = startPartitionWorker<CommandJobData, CommandOutcome, CommandReply>(settings, partition, (job) => processJob(partition, job), log, settings.commandTimeoutMs);
        workers.set(partition, starting);
        try {
          await starting;
        } catch (err) {
          workers.delete(partition);
          throw err;
        }
      },
      lost(partition) {
        // Someone else may run it now: stop taking jobs at once; the jobs in hand finish (their writes are fenced).
        void stopWorker(partition, false).catch((err) => log.warn({ err, partition }, 'error while stopping the worker of a lost partition'));
      },
      releasing: (partition) => stopWorker(partition, false),
    },
  );
  await leases.start();
  log.info({ partitions: settings.partitions, holding: leases.partitions(), holder: leases.token }, 'command workers started');
  return {
    partitions: () => leases.partitions(),
    async close() {
      try {
        await leases.stop();
        await Promise.all([...workers.keys()].map((p) => stopWorker(p, false)));
      } finally {
        // Whatever the hand-over met (Redis away or hanging), no connection of the host outlives it.
        leaseSubscriber.disconnect();
        leaseConnection.disconnect();
      }
    },
  };
}
