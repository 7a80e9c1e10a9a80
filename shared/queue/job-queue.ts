import { hostname } from 'node:os';
import { Queue, UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import { createRedisConnection, type RedisConnection as Redis } from '../redis/connection';
import type { Logger } from '../logging/logger';
import { watchRedisErrors } from '../redis/redis';
import {
  JOB_QUEUE,
  QUEUES,
  jobNamesOf,
  jobOptions,
  fromPreviousVersion,
  jobSchema,
  retryDelayMs,
  schedulers,
  type GenericJobName,
  type JobName,
  type JobOptions,
  type JobPayloads,
  type JobPolicySettings,
  type JobQueueKind,
  type QueueKind,
} from './jobs';

export interface JobQueueSettings extends Partial<JobPolicySettings> {
  redisUrl: string;
  prefix: string;
}

/** A failure no retry can mend (e.g. the webhook subscription is gone): the job fails at once, for good. */
export class PermanentJobFailure extends Error {}

/**
 * A job done in part (a batch of which some events were written): the job's payload becomes
 * `remaining` (same schema) before it is retried, so a retry does only what is left and a final failure
 * records only that in failed_job.
 */
export class PartialJobFailure<T = unknown> extends Error {
  constructor(
    message: string,
    readonly remaining: T,
  ) {
    super(message);
  }
}

export type JobRequest<N extends GenericJobName = GenericJobName> = { [K in N]: { name: K; data: JobPayloads[K] } }[N];

export interface JobAttempt {
  jobId: string;
  /** 1 for the first attempt. */
  attempt: number;
  maxAttempts: number;
  /** The wait before the next attempt should this one fail, or null when it is the last. */
  retryDelayMs: number | null;
}

export type JobHandler<N extends GenericJobName> = (data: JobPayloads[N], attempt: JobAttempt) => Promise<void>;
export type JobHandlers = { [N in GenericJobName]?: JobHandler<N> };

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

// Webhook deliveries wait on receivers, not on the database: several at a time.
const DEFAULT_CONCURRENCY: Partial<Record<JobQueueKind, number>> = { webhooks: 16 };

export function queueName(kind: JobQueueKind): string {
  return QUEUES[kind].name();
}

/** Every queue connection of the job module: its errors go to the JSON log, never to stderr. */
export function queueConnection(url: string, forWorker: boolean, log: Logger | undefined, name: string): Redis {
  // One server or a cluster (REDIS_URL); workers block, so BullMQ needs maxRetriesPerRequest null there.
  return watchRedisErrors(createRedisConnection(url, { blocking: forWorker }), log, name);
}

/**
 * The one check every worker runs when it starts: exactly one handler for each job name of its
 * queue, none for another queue's jobs. A gap is a deployment error: the process stops with this message.
 */
export function assertJobHandlers(queue: QueueKind, handlers: Record<string, unknown>): void {
  const names = jobNamesOf(queue);
  const missing = names.filter((n) => typeof handlers[n] !== 'function');
  const foreign = Object.keys(handlers).filter((n) => !(names as string[]).includes(n));
  if (missing.length || foreign.length) {
    throw new Error(
      `Worker for queue '${queue}' cannot start: ` +
        [missing.length ? `no handler for job(s) ${missing.join(', ')}` : '', foreign.length ? `handler(s) for job(s) of other queues: ${foreign.join(', ')}` : '']
          .filter(Boolean)
          .join('; ') +
        '. Every job name needs exactly one handler.',
    );
  }
}

/** Producer side: a typed enqueue for every generic job; options come from jobOptions(). */
export interface JobQueue {
  enqueue<N extends GenericJobName>(job: { name: N; data: JobPayloads[N] }): Promise<void>;
  /** Several jobs, one round trip per queue. */
  enqueueBulk(jobs: JobRequest[]): Promise<void>;
  /** Creates or updates the job schedulers (timers); idempotent, any number of processes may call it. */
  upsertSchedulers(intervals: { sessionSweepMs: number }): Promise<void>;
  close(): Promise<void>;
}

export function createJobQueue(settings: JobQueueSettings, log?: Logger): JobQueue {
  const producer = queueConnection(settings.redisUrl, false, log, 'job producer');
  const queues = new Map<JobQueueKind, Queue>();
  const queue = (kind: JobQueueKind) => {
    let q = queues.get(kind);
    if (!q) {
      q = new Queue(queueName(kind), { connection: producer as ConnectionOptions, prefix: settings.prefix });
      // A failed enqueue rejects its caller; the connection's own errors are only logged.
      q.on('error', (err) => log?.warn({ err: err.message, queue: queueName(kind) }, 'job queue connection error'));
      queues.set(kind, q);
    }
    return q;
  };
  const bulk = async (jobs: JobRequest[]) => {
    const byQueue = new Map<JobQueueKind, { name: string; data: unknown; opts: JobOptions }[]>();
    for (const job of jobs) {
      const kind = JOB_QUEUE[job.name];
      const list = byQueue.get(kind) ?? [];
      list.push({ name: job.name, data: job.data, opts: jobOptions(job.name, job.data as never, settings) });
      byQueue.set(kind, list);
    }
    await Promise.all([...byQueue].map(([kind, list]) => queue(kind).addBulk(list)));
  };
  return {
    enqueue: (job) => bulk([job as JobRequest]),
    enqueueBulk: async (jobs) => {
      if (jobs.length) await bulk(jobs);
    },
    async upsertSchedulers(intervals) {
      for (const s of schedulers(intervals)) {
        const kind = JOB_QUEUE[s.name];
        const { jobId: _ignored, ...opts } = jobOptions(s.name, s.data, settings);
        await queue(kind).upsertJobScheduler(s.id, { every: s.every }, { name: s.name, data: s.data, opts });
      }
    },
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close()));
      await producer.quit().catch(() => undefined);
    },
  };
}

export interface RunningJobWorker {
  close(): Promise<void>;
}

/**
 * Takes the jobs of one queue: parses each payload with its job's schema, runs its one handler, and
 * applies the failure policy (jobs.ts): a thrown error is retried per the job's options; a malformed
 * payload or PermanentJobFailure is not; the last failure is recorded with `recordFailure`.
 */
export async function startJobWorker(
  settings: JobQueueSettings,
  kind: JobQueueKind,
  handlers: JobHandlers,
  deps: { log: Logger; recordFailure: FailureRecorder; concurrency?: number },
): Promise<RunningJobWorker> {
  assertJobHandlers(kind, handlers as Record<string, unknown>);
  const name = queueName(kind);
  const workerConnection = queueConnection(settings.redisUrl, true, deps.log, `${name} worker`);
  const worker = new Worker(
    name,
    async (job: Job) => {
      const current = fromPreviousVersion(job.name, job.data);
      const jobName = current.name as JobName;
      const maxAttempts = job.opts.attempts ?? 1;
      const attempt = job.attemptsMade + 1;
      const fail = async (message: string, permanent: boolean) => {
        if (permanent || attempt >= maxAttempts) {
          await deps
            .recordFailure({ queue: name, jobName: job.name, jobId: String(job.id), data: job.data, error: message, attempts: attempt })
            .catch((err) => deps.log.error({ err, jobId: job.id }, 'could not record a failed job in PostgreSQL'));
          deps.log.warn({ queue: name, job: job.name, jobId: job.id, attempt, err: message }, 'job failed for good');
        }
      };
      const schema = jobSchema(jobName);
      const parsed = schema?.safeParse(current.data);
      if (!parsed?.success) {
        const message = `malformed '${job.name}' job ${job.id}`;
        await fail(message, true);
        throw new UnrecoverableError(message);
      }
      const handler = handlers[jobName as GenericJobName] as JobHandler<GenericJobName>;
      const options = { attempts: maxAttempts, backoff: job.opts.backoff as JobOptions['backoff'] } as JobOptions;
      try {
        await handler(parsed.data as never, { jobId: String(job.id), attempt, maxAttempts, retryDelayMs: retryDelayMs(options, attempt) });
      } catch (err) {
        const permanent = err instanceof PermanentJobFailure;
        if (err instanceof PartialJobFailure && schema!.safeParse(err.remaining).success) {
          // Updates job.data too, so a final failure records what is left.
          await job.updateData(err.remaining).catch((e) => deps.log.warn({ err: e, jobId: job.id }, 'could not narrow a partly done job; it is retried whole'));
        }
        await fail((err as Error)?.message ?? String(err), permanent);
        throw permanent ? new UnrecoverableError((err as Error).message) : err;
      }
    },
    {
      connection: workerConnection as ConnectionOptions,
      prefix: settings.prefix,
      // BullMQ stores the worker name on each job as processedBy: a job's host and process can be traced.
      name: `${hostname()}:${process.pid}`,
      concurrency: deps.concurrency ?? DEFAULT_CONCURRENCY[kind] ?? 1,
    },
  );
  worker.on('error', (err) => deps.log.error({ err, queue: name }, 'job worker error'));
  await worker.waitUntilReady();
  return {
    async close() {
      await worker.close();
      workerConnection.disconnect();
    },
  };
}
