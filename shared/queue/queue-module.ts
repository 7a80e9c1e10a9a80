import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Job, Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection';
import type { Logger } from '../logging/logger';
import type { CommandJobData, CommandOutcome, CommandReply } from '../commands/command-job';
import { commandQueueName } from '../commands/partitioning';
import { COMMAND_JOB_OPTIONS, COMMAND_WORKER_TUNING } from './jobs';
import { queueConnection } from './job-queue';

/**
 * The command transport: the BullMQ side of the command module (shared/commands), so that shared/queue
 * stays the service's only bullmq importer. What a command is, who may send it, how a process holds a
 * partition and answers it are in shared/commands; here only how a command job is added, taken back,
 * looked up, and taken by the worker of one partition, and how its answer travels (Redis pub/sub).
 *
 * Commands are never retried by BullMQ: a retry would run after later commands of the same wall. A
 * crashed holder's job is handed out again after a few seconds (short lock and stalled interval,
 * COMMAND_WORKER_TUNING); the next holder finds it in applied_command and answers the same.
 */

export interface QueueSettings {
  redisUrl: string;
  prefix: string;
  partitions: number;
  commandTimeoutMs: number;
}

/**
 * Takes a job back only if it is still waiting: removed from the wait list in the same atomic step
 * that checks it, so a worker cannot have started it. BullMQ's job.remove() is not enough: it also
 * removes a job that a worker is running whose lock expired (a paused or stalled worker), and that
 * worker may still commit it: never say "nothing was changed" when it was.
 * Only the caller's own job: BullMQ's job ids are a counter in Redis, which a Redis restarted without
 * its data starts again from 1, so the id the caller was given may since name another caller's command.
 * The job's data must carry the caller's command id (ARGV[2], a UUID).
 */
const WITHDRAW_IF_WAITING = `
local data = redis.call('HGET', KEYS[4], 'data')
if not data or not string.find(data, ARGV[2], 1, true) then return 0 end
local removed = redis.call('LREM', KEYS[1], 1, ARGV[1])
if removed == 0 then removed = redis.call('LREM', KEYS[2], 1, ARGV[1]) end
if removed == 0 then removed = redis.call('ZREM', KEYS[3], ARGV[1]) end
if removed == 0 then return 0 end
redis.call('DEL', KEYS[4], KEYS[5])
return 1`;

/** Where the connection to Redis stands, as the command client needs to know it to answer fast. */
export type LinkState = 'connecting' | 'ready' | 'down';

function linkOf(conn: Redis, onChange: (state: LinkState) => void): () => LinkState {
  let state: LinkState = 'connecting';
  const set = (s: LinkState) => {
    if (state === s) return;
    state = s;
    onChange(s);
  };
  conn.on('ready', () => set('ready'));
  // 'close': the socket is gone (a server stopped, a network cut); ioredis reconnects by itself.
  conn.on('close', () => set('down'));
  conn.on('end', () => set('down'));
  return () => state;
}

/**
 * The producer side: adds command jobs to their partition queues and receives their answers on this
 * process's own reply channel (faster than QueueEvents). `onLink` hears when the reply channel's
 * connection is lost and when it is back.
 */
export class CommandProducer {
  readonly replyChannel: string;
  private readonly queues = new Map<number, Queue>();
  private readonly producer: Redis;
  private readonly subscriber: Redis;
  private subscribed: Promise<unknown>;
  private readonly producerLink: () => LinkState;
  private readonly replyLink: () => LinkState;

  constructor(
    private readonly settings: QueueSettings,
    private readonly log: Logger,
    handlers: { reply(reply: CommandReply): void; replyLink(state: LinkState): void },
  ) {
    this.replyChannel = `${settings.prefix}:replies:${randomUUID()}`;
    this.producer = queueConnection(settings.redisUrl, false, log, 'command producer');
    this.subscriber = queueConnection(settings.redisUrl, false, log, 'command replies');
    this.producerLink = linkOf(this.producer, () => undefined);
    this.replyLink = linkOf(this.subscriber, handlers.replyLink);
    this.subscriber.on('message', (_channel: string, message: string) => {
      let reply: CommandReply;
      try {
        reply = JSON.parse(message) as CommandReply;
      } catch {
        return;
      }
      handlers.reply(reply);
    });
    this.subscribed = this.subscribe();
  }

  /** The reply channel's SUBSCRIBE. If Redis was down it failed; the next command tries again. */
  private subscribe(): Promise<unknown> {
    const attempt = this.subscriber.subscribe(this.replyChannel);
    attempt.catch(() => undefined);
    return attempt;
  }

  /** Whether Redis is known to be unreachable now (a lost connection not back yet): commands answer 503 at once. */
  unreachable(): boolean {
    return this.producerLink() === 'down' || this.replyLink() === 'down';
  }

  /** Resolves once the reply channel is subscribed; rejects when Redis cannot be reached. */
  async ensureSubscribed(): Promise<void> {
    try {
      await this.subscribed;
    } catch {
      this.subscribed = this.subscribe();
      await this.subscribed;
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

  /** Adds the job to its partition's queue; answers its job id. */
  async add(partition: number, data: CommandJobData): Promise<string> {
    const job = await this.queue(partition).add(data.name, data, COMMAND_JOB_OPTIONS);
    return job.id!;
  }

  /** Takes the caller's job back if no worker has started it (see WITHDRAW_IF_WAITING). */
  async withdrawIfWaiting(partition: number, jobId: string, commandId: string): Promise<boolean> {
    const queue = this.queue(partition);
    const keys = [queue.toKey('wait'), queue.toKey('paused'), queue.toKey('prioritized'), queue.toKey(jobId), queue.toKey(`${jobId}:logs`)];
    return (await this.producer.eval(WITHDRAW_IF_WAITING, keys.length, ...keys, jobId, commandId)) === 1;
  }

  /**
   * Where the caller's command job stands: `finished` with the outcome it returned (the worker returns
   * its answer, kept an hour with the job), so an answer whose reply was lost can still be read;
   * `pending` while it waits or runs; `gone` when Redis no longer has it: a Redis restarted without its
   * data (the id may even name another command by now, hence the command id check).
   */
  async jobState(partition: number, jobId: string, commandId: string): Promise<{ state: 'finished'; outcome: CommandOutcome } | { state: 'pending' | 'gone' }> {
    const job = await Job.fromId<CommandJobData>(this.queue(partition), jobId);
    if (!job || job.data?.commandId !== commandId) return { state: 'gone' };
    if (!job.finishedOn || job.returnvalue === null || job.returnvalue === undefined) return { state: 'pending' };
    return { state: 'finished', outcome: job.returnvalue as CommandOutcome };
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.subscriber.disconnect();
    await this.producer.quit().catch(() => undefined);
  }
}

/** Publishes a command's answer on the reply channel of the process waiting for it. */
export class ReplyPublisher {
  private readonly conn: Redis;

  constructor(redisUrl: string, log: Logger) {
    this.conn = queueConnection(redisUrl, false, log, 'command answers');
  }

  async publish(channel: string, reply: CommandReply): Promise<void> {
    await this.conn.publish(channel, JSON.stringify(reply));
  }

  close(): void {
    this.conn.disconnect();
  }
}

/** A command job as the worker of a partition hands it over. */
export interface PartitionJob {
  id: string;
  data: CommandJobData;
  /** Started before: a stalled job handed out again. */
  redelivered: boolean;
}

export interface PartitionWorker {
  /** Sets the partition's global concurrency to 1 again (an emptied Redis forgets it). */
  assertConcurrency(): Promise<void>;
  /** Stops taking jobs; waits for the job in hand unless `force`. */
  close(force?: boolean): Promise<void>;
}

/**
 * The BullMQ worker of one partition queue, run only by the process holding the partition
 * (shared/commands/partition-host.ts). Concurrency 1 here and global concurrency 1 on the queue: a
 * second guard during a hand-over, when the old holder still finishes its job.
 */
export async function startPartitionWorker(
  settings: Pick<QueueSettings, 'redisUrl' | 'prefix'>,
  partition: number,
  processJob: (job: PartitionJob) => Promise<CommandOutcome>,
  log: Logger,
): Promise<PartitionWorker> {
  const name = commandQueueName(partition);
  const admin = queueConnection(settings.redisUrl, false, log, `command admin ${partition}`);
  const queue = new Queue(name, { connection: admin as ConnectionOptions, prefix: settings.prefix });
  queue.on('error', (err) => log.warn({ err, queue: name }, 'command queue error'));
  const connection = queueConnection(settings.redisUrl, true, log, `command worker ${partition}`);
  const close = async (force = false) => {
    await worker.close(force);
    connection.disconnect();
    await queue.close().catch(() => undefined);
    admin.disconnect();
  };
  const worker = new Worker(
    name,
    (job: Job<CommandJobData>) => processJob({ id: String(job.id), data: job.data, redelivered: job.attemptsStarted > 1 || job.stalledCounter > 0 }),
    // name: BullMQ stores it on each job as processedBy, so a job's host and process can be traced.
    { connection: connection as ConnectionOptions, prefix: settings.prefix, name: `${hostname()}:${process.pid}`, ...COMMAND_WORKER_TUNING },
  );
  worker.on('error', (err) => log.error({ err, queue: name }, 'queue worker error'));
  worker.on('stalled', (jobId) => log.warn({ queue: name, jobId }, 'command job stalled; handing it out again'));
  try {
    await queue.setGlobalConcurrency(1);
    await worker.waitUntilReady();
  } catch (err) {
    await close(true).catch(() => undefined);
    throw err;
  }
  return {
    assertConcurrency: async () => {
      await queue.setGlobalConcurrency(1);
    },
    close,
  };
}
