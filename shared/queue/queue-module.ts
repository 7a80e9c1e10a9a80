import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Queue, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection';
import { AppError } from '../errors/app-error';
import { isDependencyOutage } from '../errors/outage';
import type { Logger } from '../logging/logger';
import type { CommandBus } from './command-bus';
import type { CommandHandlers, CommandJobData, CommandOutcome, CommandReply } from './command-job';
import { COMMAND_SCHEMAS, type CommandName, type CommandPayloads, type CommandResults } from './commands';
import { COMMAND_WORKER_TUNING, jobOptions } from './jobs';
import { assertJobHandlers, queueConnection, type FailureRecorder } from './job-queue';
import { commandQueueName, partitionOf } from './partitioning';

export interface QueueSettings {
  redisUrl: string;
  prefix: string;
  partitions: number;
  commandTimeoutMs: number;
  /** Commands one API process waits for at most; beyond, 503 at once instead of a growing backlog. */
  maxInFlight?: number;
  /** First wait before a failed webhook delivery is retried (jobs.ts failure policy). */
  webhookRetryBaseMs?: number;
}

/**
 * The command side of the job module (jobs.ts holds the definitions, job-queue.ts the other queues).
 * Commands are never retried by BullMQ: a retry would run after later commands of the same wall. A
 * client that got no answer retries with the same Idempotency-Key instead. A crashed worker's job is
 * handed out again after a few seconds (short lock and stalled interval, COMMAND_WORKER_TUNING); the
 * worker then finds it in applied_command and answers the same.
 */

/**
 * Takes a job back only if it is still waiting: removed from the wait list in the same atomic step
 * that checks it, so a worker cannot have started it. BullMQ's job.remove() is not enough: it also
 * removes a job that a worker is running whose lock expired (a paused or stalled worker), and that
 * worker may still commit it (issue: "never say nothing was changed when it was").
 */
const WITHDRAW_IF_WAITING = `
local removed = redis.call('LREM', KEYS[1], 1, ARGV[1])
if removed == 0 then removed = redis.call('LREM', KEYS[2], 1, ARGV[1]) end
if removed == 0 then removed = redis.call('ZREM', KEYS[3], ARGV[1]) end
if removed == 0 then return 0 end
redis.call('DEL', KEYS[4], KEYS[5])
return 1`;

async function withdrawIfWaiting(redis: Redis, queue: Queue, jobId: string): Promise<boolean> {
  const keys = [queue.toKey('wait'), queue.toKey('paused'), queue.toKey('prioritized'), queue.toKey(jobId), queue.toKey(`${jobId}:logs`)];
  return (await redis.eval(WITHDRAW_IF_WAITING, keys.length, ...keys, jobId)) === 1;
}

export function assertHandlers(handlers: Partial<CommandHandlers>): asserts handlers is CommandHandlers {
  assertJobHandlers('commands', handlers);
}

class RedisCommandBus implements CommandBus {
  private readonly queues = new Map<number, Queue>();
  private readonly pending = new Map<string, { resolve: (o: CommandOutcome) => void; timer: NodeJS.Timeout }>();
  private readonly replyChannel: string;
  private readonly producer: Redis;
  private readonly subscriber: Redis;
  private ready: Promise<unknown>;

  constructor(
    private readonly settings: QueueSettings,
    private readonly log: Logger,
  ) {
    this.replyChannel = `${settings.prefix}:replies:${randomUUID()}`;
    this.producer = queueConnection(settings.redisUrl, false, log, 'command producer');
    this.subscriber = queueConnection(settings.redisUrl, false, log, 'command replies');
    this.subscriber.on('message', (_channel: string, message: string) => this.onReply(message));
    this.ready = this.subscribe();
  }

  /** The reply channel's SUBSCRIBE. If Redis was down it failed; the next command tries again. */
  private subscribe(): Promise<unknown> {
    const attempt = this.subscriber.subscribe(this.replyChannel);
    attempt.catch(() => undefined);
    return attempt;
  }

  private async ensureSubscribed(): Promise<void> {
    try {
      await this.ready;
    } catch {
      this.ready = this.subscribe();
      try {
        await this.ready;
      } catch (err) {
        this.log.warn({ err }, 'could not subscribe to the command reply channel');
        throw new AppError('service-unavailable', 'The command queue is unreachable; nothing was changed. Retry in a moment.', {
          headers: { 'Retry-After': '5' },
        });
      }
    }
  }

  private queue(partition: number): Queue {
    let q = this.queues.get(partition);
    if (!q) {
      q = new Queue(commandQueueName(partition), { connection: this.producer as ConnectionOptions, prefix: this.settings.prefix });
      q.on('error', (err) => this.log.warn({ err, queue: commandQueueName(partition) }, 'command queue error'));
      this.queues.set(partition, q);
    }
    return q;
  }

  private onReply(message: string): void {
    let reply: CommandReply;
    try {
      reply = JSON.parse(message) as CommandReply;
    } catch {
      return;
    }
    const waiter = this.pending.get(reply.commandId);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.pending.delete(reply.commandId);
    waiter.resolve(reply.outcome);
  }

  async execute<N extends CommandName>(name: N, data: CommandPayloads[N]): Promise<CommandResults[N]> {
    await this.ensureSubscribed();
    if (this.pending.size >= (this.settings.maxInFlight ?? Infinity)) {
      throw new AppError('service-unavailable', `The sorting service is at capacity (${this.pending.size} commands waiting); nothing was changed. Retry in a moment.`, {
        headers: { 'Retry-After': '1' },
      });
    }
    // The compiler checks the payload here; the worker parses it with its schema when it takes the job.
    const payload = data;
    const partition = partitionOf(payload.wallId, this.settings.partitions);
    const commandId = randomUUID();
    const jobData: CommandJobData<N> = { commandId, name, payload, replyTo: this.replyChannel, enqueuedAt: Date.now() };
    const queue = this.queue(partition);
    const outcome = new Promise<CommandOutcome>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(commandId);
        resolve({ ok: false, problem: { code: 'command-timeout', detail: '' } });
      }, this.settings.commandTimeoutMs);
      this.pending.set(commandId, { resolve, timer });
    });
    let job: Job;
    try {
      job = await queue.add(name, jobData, jobOptions(name, jobData as never));
    } catch (err) {
      const waiter = this.pending.get(commandId);
      if (waiter) clearTimeout(waiter.timer);
      this.pending.delete(commandId);
      this.log.error({ err, command: name }, 'could not enqueue command');
      throw new AppError('service-unavailable', 'The command queue is unreachable; nothing was changed. Retry in a moment.', {
        headers: { 'Retry-After': '5' },
      });
    }
    const result = await outcome;
    if (result.ok) return result.value as CommandResults[N];
    if (result.problem.code === 'command-timeout') {
      // If no worker took it yet, take it back: then the caller knows for sure nothing happened.
      // Anything else (started, finished, Redis unreachable): the outcome is unknown, so 504.
      const withdrawn = await withdrawIfWaiting(this.producer, queue, job.id!).catch((err: unknown) => {
        this.log.warn({ err, command: name, commandId }, 'could not withdraw a timed-out command');
        return false;
      });
      throw withdrawn
        ? new AppError('service-unavailable', `No sorting worker answered within ${this.settings.commandTimeoutMs} ms; the command was withdrawn and nothing was changed. Retry in a moment.`, {
            headers: { 'Retry-After': '1' },
          })
        : new AppError('command-timeout', `The command did not finish within ${this.settings.commandTimeoutMs} ms and may still be applied. Retry with the same Idempotency-Key to get its outcome.`);
    }
    throw AppError.fromProblem(result.problem);
  }

  async close(): Promise<void> {
    for (const w of this.pending.values()) clearTimeout(w.timer);
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.subscriber.disconnect();
    await this.producer.quit().catch(() => undefined);
  }
}

export interface RunningWorkers {
  close(): Promise<void>;
}

export function createCommandBus(settings: QueueSettings, log: Logger): CommandBus {
  return new RedisCommandBus(settings, log);
}

/**
 * Starts one BullMQ worker per partition queue. Several processes may do this: each queue's global
 * concurrency of 1 still lets only one command of a partition run at a time, in arrival order.
 */
export async function startCommandWorkers(
  settings: QueueSettings,
  handlers: Partial<CommandHandlers>,
  log: Logger,
  recordFailure?: FailureRecorder,
): Promise<RunningWorkers> {
  assertHandlers(handlers);
  const publisher = queueConnection(settings.redisUrl, false, log, 'command answers');
  const admin = queueConnection(settings.redisUrl, false, log, 'command admin');
  const workers: Worker[] = [];
  const workerConnections: Redis[] = [];
  for (let partition = 0; partition < settings.partitions; partition++) {
    const name = commandQueueName(partition);
    const q = new Queue(name, { connection: admin as ConnectionOptions, prefix: settings.prefix });
    await q.setGlobalConcurrency(1);
    await q.close();
    const workerConnection = queueConnection(settings.redisUrl, true, log, `command worker ${partition}`);
    workerConnections.push(workerConnection);
    const worker = new Worker(
      name,
      async (job: Job<CommandJobData>) => {
        const { commandId, name: cmd, replyTo } = job.data;
        let outcome: CommandOutcome;
        const schema = COMMAND_SCHEMAS[cmd];
        const parsed = schema?.safeParse(job.data.payload);
        if (!schema || !parsed?.success) {
          outcome = { ok: false, problem: { code: 'validation-failed', detail: `Malformed command '${String(cmd)}'.` } };
        } else {
          try {
            const handler = handlers[cmd] as (p: unknown, info: unknown) => Promise<CommandOutcome>;
            outcome = await handler(parsed.data, { commandId, partition, jobId: Number(job.id) });
          } catch (err) {
            if (isDependencyOutage(err)) {
              // PostgreSQL (or Redis) down or restarting: the caller gets a 503 and retries, not a 500.
              log.warn({ err, command: cmd, commandId, jobId: job.id }, 'command failed: a dependency is unavailable');
              outcome = {
                ok: false,
                problem: {
                  code: 'service-unavailable',
                  detail: 'The database was unavailable while the command ran. Retry in a few seconds with the same Idempotency-Key: a command is never applied twice.',
                },
              };
            } else {
              log.error({ err, command: cmd, commandId, jobId: job.id }, 'command failed unexpectedly');
              // Commands are never retried (ordering): this answer is final, so it is recorded like any final failure.
              await recordFailure?.({ queue: name, jobName: cmd, jobId: String(job.id), data: job.data, error: (err as Error)?.message ?? String(err), attempts: 1 })
                .catch((e) => log.error({ err: e, jobId: job.id }, 'could not record a failed job in PostgreSQL'));
              outcome = { ok: false, problem: { code: 'internal-error', detail: 'The command failed unexpectedly; nothing was changed. It has been logged.' } };
            }
          }
        }
        if (replyTo) {
          const reply: CommandReply = { commandId, outcome };
          await publisher.publish(replyTo, JSON.stringify(reply));
        }
        return outcome;
      },
      // name: BullMQ stores it on each job as processedBy, so a job's host and process can be traced.
      { connection: workerConnection as ConnectionOptions, prefix: settings.prefix, name: `${hostname()}:${process.pid}`, ...COMMAND_WORKER_TUNING },
    );
    worker.on('error', (err) => log.error({ err, queue: name }, 'queue worker error'));
    worker.on('stalled', (jobId) => log.warn({ queue: name, jobId }, 'command job stalled; handing it out again'));
    workers.push(worker);
  }
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  log.info({ partitions: settings.partitions }, 'command workers started');
  return {
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      for (const c of workerConnections) c.disconnect();
      publisher.disconnect();
      admin.disconnect();
    },
  };
}
