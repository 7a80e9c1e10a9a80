import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Job, Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection';
import type { Logger } from '../logging/logger';
import { PARTITION_JOB_OPTIONS, PARTITION_WORKER_TUNING, partitionQueueName } from './jobs';
import { queueConnection } from './job-queue';
import { foldedWarning } from '../logging/logger';
import { isCommandTimeout } from '../errors/outage';

/**
 * The partition transport, generic over what its jobs carry: how a job is added to its partition's
 * queue, taken back, looked up, and taken by the worker of one partition, and how its answer travels
 * (Redis pub/sub). shared/queue is the service's only bullmq importer and imports nothing of
 * shared/commands: the command module builds on it (command-client.ts, partition-host.ts) and says
 * what a command is, who may send it and how a process holds a partition.
 *
 * Jobs are never retried by BullMQ: a retry would run after later jobs of the same partition. A
 * crashed holder's job is handed out again after a few seconds (short lock and stalled interval,
 * PARTITION_WORKER_TUNING).
 */

/**
 * What the transport needs of a job's data: `name`, BullMQ's job name, and `commandId`, the caller's
 * own id (a UUID), by which a job is taken back or looked up only by the caller that added it.
 */
export interface PartitionJobData {
  name: string;
  commandId: string;
}

export interface QueueSettings {
  redisUrl: string;
  prefix: string;
  partitions: number;
  commandTimeoutMs: number;
}

/**
 * Takes a job back only if it is still waiting and no worker ever started it: removed from the wait
 * list in the same atomic step that checks it. BullMQ's job.remove() is not enough: it also removes a
 * job that a worker is running whose lock expired (a paused or stalled worker), and that worker may
 * still commit it: never say "nothing was changed" when it was. For the same reason a job back in the
 * wait list after a start (the stalled check moved it there: `processedOn`, attempts started `ats`,
 * stalled count `stc`) stays: the worker that started it may still be running it.
 * Only the caller's own job: BullMQ's job ids are a counter in Redis, which a Redis restarted without
 * its data starts again from 1, so the id the caller was given may since name another caller's command.
 * The job's data must carry the caller's command id (ARGV[2], a UUID).
 */
const WITHDRAW_IF_WAITING = `
local data = redis.call('HGET', KEYS[4], 'data')
if not data or not string.find(data, ARGV[2], 1, true) then return 0 end
local started = redis.call('HMGET', KEYS[4], 'processedOn', 'ats', 'stc')
if started[1] or tonumber(started[2] or '0') > 0 or tonumber(started[3] or '0') > 0 then return 0 end
local removed = redis.call('LREM', KEYS[1], 1, ARGV[1])
if removed == 0 then removed = redis.call('LREM', KEYS[2], 1, ARGV[1]) end
if removed == 0 then removed = redis.call('ZREM', KEYS[3], ARGV[1]) end
if removed == 0 then return 0 end
redis.call('DEL', KEYS[4], KEYS[5])
return 1`;

/**
 * Where the connection to Redis stands, as the command client needs to know it to answer fast:
 * `down` when the socket is gone (a server stopped, a network cut; ioredis reconnects by itself),
 * `hung` when the socket stays but Redis stopped answering (a frozen server, a network black hole:
 * no `close` ever comes, and a command sent there waits until Redis answers again).
 */
export type LinkState = 'connecting' | 'ready' | 'down' | 'hung';

function linkOf(conn: Redis, onChange: (state: LinkState) => void): { state(): LinkState; set(s: LinkState): void } {
  let state: LinkState = 'connecting';
  const set = (s: LinkState) => {
    if (state === s) return;
    state = s;
    onChange(s);
  };
  conn.on('ready', () => set('ready'));
  conn.on('close', () => set('down'));
  conn.on('end', () => set('down'));
  return { state: () => state, set };
}

/** How often the producer asks Redis whether it still answers (PING), and how long an answer may take. */
export const HANG_PROBE_EVERY_MS = 250;
/** A PING that timed out is confirmed by another not answered within this before Redis counts as hung. */
const HANG_CONFIRM_MS = 300;

/**
 * The producer side: adds jobs to their partition queues and receives their answers (`Reply`, as the
 * worker's side published them) on this process's own reply channel (faster than QueueEvents).
 * `replyLink` hears when the reply channel's connection is lost and when it is back. `Outcome` is what
 * a job's handler returns, kept with the job (jobState).
 */
export class PartitionProducer<Data extends PartitionJobData, Reply, Outcome> {
  readonly replyChannel: string;
  private readonly queues = new Map<number, Queue>();
  private readonly producer: Redis;
  private readonly subscriber: Redis;
  private subscribed: Promise<unknown>;
  private readonly producerLink: { state(): LinkState; set(s: LinkState): void };
  private readonly replyLink: { state(): LinkState; set(s: LinkState): void };
  private readonly probeTimer: NodeJS.Timeout;
  private probing = false;

  constructor(
    private readonly settings: QueueSettings,
    private readonly log: Logger,
    handlers: { reply(reply: Reply): void; replyLink(state: LinkState): void },
  ) {
    this.replyChannel = `${settings.prefix}:replies:${randomUUID()}`;
    this.producer = queueConnection(settings.redisUrl, false, log, 'command producer');
    this.subscriber = queueConnection(settings.redisUrl, false, log, 'command replies');
    this.producerLink = linkOf(this.producer, () => undefined);
    this.replyLink = linkOf(this.subscriber, handlers.replyLink);
    this.probeTimer = setInterval(() => void this.probe(), HANG_PROBE_EVERY_MS).unref();
    this.subscriber.on('message', (_channel: string, message: string) => {
      let reply: Reply;
      try {
        reply = JSON.parse(message) as Reply;
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

  /**
   * A PING on the producer's connection every HANG_PROBE_EVERY_MS: one Redis does not answer within
   * its command timeout (a second), and a second one not within HANG_CONFIRM_MS, mark both links
   * `hung` (the reply channel is on the same server, and answers published there do not arrive
   * either), so the commands waiting are answered at once and new ones refused, instead of each
   * waiting for the command timeout. The next PING answered marks them `ready` again. Only while the
   * socket is up: a lost socket is `down` by its own events.
   */
  private async probe(): Promise<void> {
    if (this.probing || this.producer.status !== 'ready') return;
    this.probing = true;
    try {
      await this.producer.ping();
      if (this.producerLink.state() === 'hung') this.producerLink.set('ready');
      if (this.replyLink.state() === 'hung') this.replyLink.set('ready');
    } catch (err) {
      // A process that did not run for a second (a long pause, a starved core) times its PING out too:
      // one more PING, answered within HANG_CONFIRM_MS, says Redis answers and the pause was ours.
      if (this.producer.status === 'ready' && isCommandTimeout(err) && !(await this.answersWithin(HANG_CONFIRM_MS))) {
        if (this.producerLink.state() === 'ready') this.producerLink.set('hung');
        if (this.replyLink.state() === 'ready') this.replyLink.set('hung');
      }
    } finally {
      this.probing = false;
    }
  }

  private async answersWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms).unref()));
    try {
      return await Promise.race([this.producer.ping().then(() => true, () => false), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether Redis is known to be unreachable now (a lost connection not back yet, or a Redis that does not answer): commands answer 503 at once. */
  unreachable(): boolean {
    const down = (s: LinkState) => s === 'down' || s === 'hung';
    return down(this.producerLink.state()) || down(this.replyLink.state());
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
      q = new Queue(partitionQueueName(partition), { connection: this.producer as ConnectionOptions, prefix: this.settings.prefix });
      q.on('error', foldedWarning(this.log, `command queue ${partitionQueueName(partition)}`));
      this.queues.set(partition, q);
    }
    return q;
  }

  /** Adds the job to its partition's queue; answers its job id. */
  async add(partition: number, data: Data): Promise<string> {
    const job = await this.queue(partition).add(data.name, data, PARTITION_JOB_OPTIONS);
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
  async jobState(partition: number, jobId: string, commandId: string): Promise<{ state: 'finished'; outcome: Outcome } | { state: 'pending' | 'gone' }> {
    const job = await Job.fromId<Data>(this.queue(partition), jobId);
    if (!job || job.data?.commandId !== commandId) return { state: 'gone' };
    if (!job.finishedOn || job.returnvalue === null || job.returnvalue === undefined) return { state: 'pending' };
    return { state: 'finished', outcome: job.returnvalue as Outcome };
  }

  async close(): Promise<void> {
    clearInterval(this.probeTimer);
    // Bounded: a Redis that is away or hangs must not hold the shutdown, nor keep a connection open.
    await boundedWait(Promise.all([...this.queues.values()].map((q) => q.close().catch(() => undefined))), CLOSE_WAIT_MS);
    this.subscriber.disconnect();
    await boundedWait(this.producer.quit().catch(() => undefined), CLOSE_WAIT_MS);
    this.producer.disconnect();
  }
}

/** Publishes a job's answer on the reply channel of the process waiting for it. */
export class ReplyPublisher<Reply> {
  private readonly conn: Redis;

  constructor(redisUrl: string, log: Logger) {
    this.conn = queueConnection(redisUrl, false, log, 'command answers');
  }

  async publish(channel: string, reply: Reply): Promise<void> {
    await this.conn.publish(channel, JSON.stringify(reply));
  }

  close(): void {
    this.conn.disconnect();
  }
}

/** How long a close waits for Redis (a QUIT, a queue's close) before it cuts the connection anyway. */
const CLOSE_WAIT_MS = 2_000;

/** Resolves when `p` settles (fulfilled or rejected) or after `ms`, whichever comes first. */
async function boundedWait(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((r) => (timer = setTimeout(r, ms).unref()));
  try {
    await Promise.race([p.then(() => undefined, () => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A job as the worker of a partition hands it over. */
export interface PartitionJob<Data extends PartitionJobData> {
  id: string;
  data: Data;
  /** Started before: a stalled job handed out again. */
  redelivered: boolean;
}

export interface PartitionWorker {
  /**
   * Stops taking jobs; waits for the job in hand unless `force`, at most `jobWaitMs`. Whatever happens
   * meanwhile (Redis away, hung, restarted empty), every connection of the worker is closed when it
   * resolves: none outlives the worker.
   */
  close(force?: boolean): Promise<void>;
}

/**
 * The BullMQ worker of one partition queue, run only by the process holding the partition
 * (shared/commands/partition-host.ts). Concurrency 1: the partition's jobs are handed over one at a
 * time, in queue order, and a crashed holder leaves at most one of them to hand out again.
 */
export async function startPartitionWorker<Data extends PartitionJobData, Outcome>(
  settings: Pick<QueueSettings, 'redisUrl' | 'prefix'>,
  partition: number,
  processJob: (job: PartitionJob<Data>) => Promise<Outcome>,
  log: Logger,
  /** How long a close waits for the job in hand (the command timeout: its caller has been answered by then). */
  jobWaitMs = 10_000,
): Promise<PartitionWorker> {
  const name = partitionQueueName(partition);
  const connection = queueConnection(settings.redisUrl, true, log, `command worker ${partition}`);
  let closing: Promise<void> | undefined;
  const close = (force = false) =>
    (closing ??= (async () => {
      // The job in hand may wait on Redis (its answer, its completion) or on PostgreSQL: bounded, and its
      // write is fenced by the wall's version if it lands after another holder took over.
      await boundedWait(worker.close(force), force ? CLOSE_WAIT_MS : jobWaitMs);
      // BullMQ's own blocking connection (a duplicate of `connection`) is cut too, whatever its close did:
      // a close that failed or hung while Redis was away left it reconnecting forever (a no-op otherwise).
      await boundedWait(worker.disconnect(), CLOSE_WAIT_MS);
      connection.disconnect();
    })());
  const worker = new Worker(
    name,
    (job: Job<Data>) => processJob({ id: String(job.id), data: job.data, redelivered: job.attemptsStarted > 1 || job.stalledCounter > 0 }),
    // name: BullMQ stores it on each job as processedBy, so a job's host and process can be traced.
    { connection: connection as ConnectionOptions, prefix: settings.prefix, name: `${hostname()}:${process.pid}`, ...PARTITION_WORKER_TUNING },
  );
  // Its errors while Redis is away repeat with every attempt: folded, without a stack trace.
  const workerError = foldedWarning(log, `queue worker ${name}`);
  worker.on('error', (err) => workerError(err));
  worker.on('stalled', (jobId) => log.warn({ queue: name, jobId }, 'command job stalled; handing it out again'));
  try {
    await worker.waitUntilReady();
  } catch (err) {
    await close(true).catch(() => undefined);
    throw err;
  }
  return { close };
}
