import { isDependencyOutage } from '../errors/outage';
import type { Logger } from '../logging/logger';
import { createRedisConnection } from '../redis/connection';
import { watchRedisErrors } from '../redis/redis';
import type { FailureRecorder } from '../queue/job-queue';
import { assertJobHandlers } from '../queue/job-queue';
import { ReplyPublisher, startPartitionWorker, type PartitionJob, type PartitionWorker, type QueueSettings } from '../queue/queue-module';
import type { CommandHandlers, CommandOutcome, CommandReply } from './command-job';
import { COMMAND_SCHEMAS } from './commands';
import { commandQueueName } from './partitioning';
import { PartitionLeases } from './partition-leases';

/**
 * The worker side of the command module: a process that holds command partitions (partition-leases.ts)
 * runs the BullMQ worker of each partition it holds, and only those; each job is parsed with its
 * command's schema and handed to its one handler (the wall actors of workers/sorting), whose answer
 * goes back on the caller's reply channel and stays with the job (the caller reads it there if the
 * reply was lost).
 */

export interface PartitionHostOptions {
  log: Logger;
  /** SORTING_LEASE_TTL_MS. */
  leaseTtlMs: number;
  recordFailure?: FailureRecorder;
  /** A partition is no longer served here (handed back or lost): forget what was held for its walls. */
  dropped?(partition: number): void;
}

export interface PartitionHost {
  /** The partitions this process holds now. */
  partitions(): number[];
  close(): Promise<void>;
}

export function assertHandlers(handlers: Partial<CommandHandlers>): asserts handlers is CommandHandlers {
  assertJobHandlers('commands', handlers);
}

const unavailable: CommandOutcome = {
  ok: false,
  problem: {
    code: 'service-unavailable',
    detail: 'The database was unavailable while the command ran. Retry in a few seconds with the same Idempotency-Key: a command is never applied twice.',
  },
};

export async function startPartitionHost(settings: QueueSettings, handlers: Partial<CommandHandlers>, opts: PartitionHostOptions): Promise<PartitionHost> {
  assertHandlers(handlers);
  const { log } = opts;
  const publisher = new ReplyPublisher(settings.redisUrl, log);

  const processJob = async (partition: number, job: PartitionJob): Promise<CommandOutcome> => {
    const { commandId, name: cmd, replyTo } = job.data;
    let outcome: CommandOutcome;
    const schema = COMMAND_SCHEMAS[cmd];
    const parsed = schema?.safeParse(job.data.payload);
    if (!schema || !parsed?.success) {
      outcome = { ok: false, problem: { code: 'validation-failed', detail: `Malformed command '${String(cmd)}'.` } };
    } else {
      try {
        const handler = handlers[cmd] as (p: unknown, info: unknown) => Promise<CommandOutcome>;
        outcome = await handler(parsed.data, { commandId, partition, jobId: Number(job.id), redelivered: job.redelivered });
      } catch (err) {
        if (isDependencyOutage(err)) {
          // PostgreSQL (or Redis) down or restarting: the caller gets a 503 and retries, not a 500.
          log.warn({ err, command: cmd, commandId, jobId: job.id }, 'command failed: a dependency is unavailable');
          outcome = unavailable;
        } else {
          log.error({ err, command: cmd, commandId, jobId: job.id }, 'command failed unexpectedly');
          // Commands are never retried (ordering): this answer is final, so it is recorded like any final failure.
          await opts
            .recordFailure?.({ queue: commandQueueName(partition), jobName: cmd, jobId: job.id, data: job.data, error: (err as Error)?.message ?? String(err), attempts: 1 })
            .catch((e) => log.error({ err: e, jobId: job.id }, 'could not record a failed job in PostgreSQL'));
          outcome = { ok: false, problem: { code: 'internal-error', detail: 'The command failed unexpectedly; nothing was changed. It has been logged.' } };
        }
      }
    }
    if (replyTo) {
      const reply: CommandReply = { commandId, outcome };
      await publisher.publish(replyTo, reply).catch((err) => log.warn({ err, commandId }, 'could not publish a command answer; the caller reads it from the job'));
    }
    return outcome;
  };

  const workers = new Map<number, Promise<PartitionWorker>>();
  const stopWorker = async (partition: number, force: boolean) => {
    const starting = workers.get(partition);
    if (!starting) return;
    workers.delete(partition);
    const worker = await starting.catch(() => null);
    await worker?.close(force);
    opts.dropped?.(partition);
  };

  const leaseConnection = watchRedisErrors(createRedisConnection(settings.redisUrl), log, 'partition leases');
  const leaseSubscriber = watchRedisErrors(createRedisConnection(settings.redisUrl), log, 'partition lease changes');
  const leases = new PartitionLeases(
    leaseConnection,
    leaseSubscriber,
    { prefix: settings.prefix, partitions: settings.partitions, ttlMs: opts.leaseTtlMs, log },
    {
      async acquired(partition) {
        const starting = startPartitionWorker(settings, partition, (job) => processJob(partition, job), log);
        workers.set(partition, starting);
        try {
          await starting;
        } catch (err) {
          workers.delete(partition);
          throw err;
        }
      },
      lost(partition) {
        // Someone else may run it now: stop taking jobs at once; the job in hand finishes (its write is fenced).
        void stopWorker(partition, false).catch((err) => log.warn({ err, partition }, 'error while stopping the worker of a lost partition'));
      },
      releasing: (partition) => stopWorker(partition, false),
    },
  );
  // Global concurrency 1 is a second guard: set again with every extension of the leases.
  const reassert = setInterval(() => {
    for (const starting of workers.values()) {
      starting.then((w) => w.assertConcurrency()).catch(() => undefined);
    }
  }, Math.max(100, Math.floor(opts.leaseTtlMs / 5)));
  await leases.start();
  log.info({ partitions: settings.partitions, holding: leases.partitions(), holder: leases.token }, 'command workers started');
  return {
    partitions: () => leases.partitions(),
    async close() {
      clearInterval(reassert);
      await leases.stop();
      await Promise.all([...workers.keys()].map((p) => stopWorker(p, false)));
      publisher.close();
      leaseSubscriber.disconnect();
      leaseConnection.disconnect();
    },
  };
}
