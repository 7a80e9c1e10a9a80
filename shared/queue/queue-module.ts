import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Job, Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { Writable } from 'node:stream';
import { closeForGood, recordDuplicates, type RedisConnection as Redis } from '../redis/connection';
import { keepSubscribed } from '../redis/subscriber';
import type { Logger } from '../logging/logger';
import { PARTITION_JOB_OPTIONS, PARTITION_JOBS_IN_HAND, PARTITION_WORKER_TUNING, partitionQueueName } from './jobs';
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
 * Removes the queue's wake-up marker when no job waits: BullMQ leaves one behind every job it hands out
 * (so that a worker's next blocking wait returns at once and looks again), which after a fetch that found
 * the queue empty only costs the worker a wait that returns at once and a second fetch that finds nothing.
 * Checked and removed in one atomic step: a job added before it keeps its marker, a job added after it
 * adds one of its own, so the blocking wait that follows still wakes for every job. A delayed job keeps
 * it too (the marker's score is when the worker is to look again).
 */
const CLEAR_STALE_MARKER = `
if redis.call('LLEN', KEYS[1]) == 0 and redis.call('ZCARD', KEYS[2]) == 0 and redis.call('ZCARD', KEYS[4]) == 0 then
  return redis.call('ZREM', KEYS[3], '0')
end
return -1`;

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
    // After a reconnect the reply channel is subscribed again (a command waiting meanwhile is read from its job).
    keepSubscribed(this.subscriber, () => [this.replyChannel]);
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
   * Stops taking jobs; waits for the jobs in hand unless `force`, at most `jobWaitMs`. Whatever happens
   * meanwhile (Redis away, hung, restarted empty), every connection of the worker is closed when it
   * resolves: none outlives the worker.
   */
  close(force?: boolean): Promise<void>;
}

/**
 * What a job's handler gives back: its outcome, kept with the job, and the answer to publish on the
 * caller's reply channel (or none).
 */
export interface Answered<Outcome, Reply> {
  outcome: Outcome;
  reply: { channel: string; body: Reply } | null;
  /** A message published before the reply, in the same write (whoever follows the partition's changes). */
  notice?: { channel: string; message: string } | null;
}

/** Started before: a stalled job handed out again. */
const redelivered = (job: Job) => job.attemptsStarted > 1 || job.stalledCounter > 0;

const nextTurn = () => new Promise<void>((r) => setImmediate(r));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** A fetch: the job it moved to active for `token`, or none when the queue had none waiting. */
type Fetch<Data> = (token: string) => Promise<Job<Data> | undefined>;

/**
 * BullMQ's worker with one hook on its fetch (`moveToActive`, the protected method its `getNextJob`
 * calls, after the blocking wait when it blocks): `alongside`, set for the next fetch only, sends that
 * fetch itself and may send more right behind it, in the same turn of the event loop (so in the same
 * socket write when the connection is corked). The partition worker never runs BullMQ's own loop, nor
 * a completion that fetches the next job, so every fetch passes here.
 */
class PartitionQueueWorker<Data> extends Worker<Data> {
  alongside: ((fetch: () => Promise<Job<Data> | undefined>, more: Fetch<Data>) => Promise<Job<Data> | undefined>) | null = null;

  protected override moveToActive(token: string, name?: string): Promise<Job<Data>> {
    const alongside = this.alongside;
    this.alongside = null;
    if (!alongside) return super.moveToActive(token, name);
    // BullMQ types the fetch as always bringing a job; it brings none from an empty queue.
    return alongside(
      () => super.moveToActive(token, name),
      (next) => super.moveToActive(next, name),
    ) as Promise<Job<Data>>;
  }
}

/**
 * The worker of one partition queue, run only by the process holding the partition
 * (shared/commands/partition-host.ts). It fetches the jobs itself (BullMQ's manual processing), one
 * fetch after the other, so it holds them in the queue's order, up to PARTITION_JOBS_IN_HAND at once.
 * A job never started before goes to `processJob` as soon as it is fetched, before the next fetch: a
 * wall's actor receives its commands in queue order and decides those that wait while it writes as one
 * group. Jobs a stalled check handed out again come back at the head of the queue in no order: from
 * such a job on, what is fetched goes over as one burst sorted by job id, synchronously one after the
 * other. BullMQ's own processing loop is not used: with several jobs in hand it hands them over in the
 * order their fetches resolve, which may swap neighbours.
 *
 * Before its first fetch it waits until the partition has no job in hand anywhere (the active list is
 * empty): the jobs of a previous holder are either finished by it or, once their locks ran out, put
 * back at the head of the queue by the stalled check, and only then does this worker take any job, so
 * a later job never overtakes them. The wait is bounded (a holder that neither finishes nor lets its
 * locks run out): after `jobWaitMs` + the time for its locks to run out and two stalled checks, it
 * takes jobs anyway, and the wall's fence keeps what is written right.
 */
export async function startPartitionWorker<Data extends PartitionJobData, Outcome, Reply>(
  settings: Pick<QueueSettings, 'redisUrl' | 'prefix'>,
  partition: number,
  processJob: (job: PartitionJob<Data>) => Promise<Answered<Outcome, Reply>>,
  log: Logger,
  /** How long a close waits for the jobs in hand (the command timeout: their callers have been answered by then). */
  jobWaitMs = 10_000,
): Promise<PartitionWorker> {
  const name = partitionQueueName(partition);
  const { lockDuration, stalledInterval } = PARTITION_WORKER_TUNING;
  const connection = queueConnection(settings.redisUrl, true, log, `command worker ${partition}`);
  // BullMQ's blocking connection is made from this one: closed with it, for good (closeForGood).
  const duplicates = recordDuplicates(connection);
  // name: BullMQ stores it on each job as processedBy, so a job's host and process can be traced (and a dead process's jobs found).
  const worker = new PartitionQueueWorker<Data>(name, null, { connection: connection as ConnectionOptions, prefix: settings.prefix, name: `${hostname()}:${process.pid}`, autorun: false, ...PARTITION_WORKER_TUNING });
  // Its errors while Redis is away repeat with every attempt: folded, without a stack trace.
  const workerError = foldedWarning(log, `queue worker ${name}`);
  worker.on('error', (err) => workerError(err));
  const finishFailed = foldedWarning(log, `queue worker ${name}: a job's answer could not be stored with it (its lock lost?)`);
  const replyFailed = foldedWarning(log, `queue worker ${name}: could not publish a job's answer; the caller reads it from the job`);

  /** The jobs in hand, by their lock token (a job handed out again while still in hand is there twice). */
  const inHand = new Map<string, Job<Data>>();
  /**
   * The tokens of the jobs whose completion (or failure) is on its way to Redis: their locks go with it,
   * so they are not renewed. A renewal sent behind a completion on the same connection finds no lock and
   * would report a job lost that has finished.
   */
  const finishing = new Set<string>();
  let freed: (() => void) | null = null;
  const slotFreed = () => new Promise<void>((r) => (freed = r));
  let tokens = 0;
  let closing: Promise<void> | undefined;
  let stopping = false;

  const renewLocks = async () => {
    const entries = [...inHand.entries()].filter(([token]) => !finishing.has(token));
    if (entries.length === 0) return;
    try {
      const failed = (await worker.extendJobLocks(entries.map(([, j]) => j.id!), entries.map(([t]) => t), lockDuration)) as string[];
      if (failed.length > 0) log.warn({ queue: name, jobIds: failed }, 'command jobs in hand lost their locks (a stalled check may hand them out again)');
    } catch (err) {
      workerError(err as Error);
    }
  };
  const renewTimer = setInterval(() => void renewLocks(), Math.floor(lockDuration / 2));

  /**
   * What the worker sends on its connection from now to the end of this turn of the event loop (a
   * group's answers and completions, a fetch) leaves in one socket write, in the order it was sent: on
   * this machine a write (and the wake-up it causes) costs far more than its bytes. A cluster's
   * connection writes as it goes.
   */
  let corked = false;
  const oneWriteThisTurn = () => {
    // A single server's connection has its socket; a cluster's has one per node and none here.
    const stream = (connection as { stream?: Writable }).stream;
    if (corked || !stream || connection.status !== 'ready') return;
    corked = true;
    stream.cork();
    setImmediate(() => {
      corked = false;
      stream.uncork();
    });
  };

  const finish = async (job: Job<Data>, token: string, result: { ok: true; value: Answered<Outcome, Reply> } | { ok: false; err: Error }) => {
    finishing.add(token);
    try {
      if (result.ok) {
        // The notice and the answer are published, then the job completed (which keeps the answer with
        // it), on the same connection in the same turn: one write for all, and for all of a group answered
        // together. A reply that is lost is read from the job; the completion's answer follows the publish's.
        const { outcome, reply, notice } = result.value;
        oneWriteThisTurn();
        if (notice) connection.publish(notice.channel, notice.message).catch((err: Error) => replyFailed(err));
        if (reply) connection.publish(reply.channel, JSON.stringify(reply.body)).catch((err: Error) => replyFailed(err));
        await job.moveToCompleted(outcome, token, false);
      } else await job.moveToFailed(result.err, token, false);
    } catch (err) {
      finishFailed(err as Error);
    } finally {
      finishing.delete(token);
      inHand.delete(token);
      freed?.();
      freed = null;
    }
  };

  const handOver = (job: Job<Data>, token: string) => {
    inHand.set(token, job);
    let running: Promise<Answered<Outcome, Reply>>;
    try {
      // A job BullMQ failed in advance (stalled more often than allowed) is not run: it fails.
      running = job.deferredFailure
        ? Promise.reject(new Error(job.deferredFailure))
        : processJob({ id: String(job.id), data: job.data, redelivered: redelivered(job) });
    } catch (err) {
      running = Promise.reject(err as Error);
    }
    void running.then(
      (value) => finish(job, token, { ok: true, value }),
      (err: Error) => finish(job, token, { ok: false, err }),
    );
  };

  /** The partition's jobs in hand anywhere (this worker holds none yet): waits until there are none, bounded. */
  const previousHolderDone = async () => {
    const until = Date.now() + jobWaitMs + CLOSE_WAIT_MS + lockDuration + 2 * stalledInterval + 1_000;
    const activeKey = `${settings.prefix}:${name}:active`;
    let warned = false;
    while (!stopping && Date.now() < until) {
      try {
        if ((await connection.llen(activeKey)) === 0) return;
      } catch (err) {
        workerError(err as Error);
      }
      if (!warned) {
        warned = true;
        log.info({ queue: name }, 'command partition taken: waiting for the jobs of its previous holder (finished, or handed out again by the stalled check) before taking any');
      }
      await sleep(100);
    }
    if (!stopping) log.warn({ queue: name }, 'command partition: jobs of a previous holder still in hand; taking the next jobs anyway');
  };

  const markerKey = `${settings.prefix}:${name}:marker`;
  const waitKey = `${settings.prefix}:${name}:wait`;
  const prioritizedKey = `${settings.prefix}:${name}:prioritized`;
  const delayedKey = `${settings.prefix}:${name}:delayed`;
  const clearMarker = () => connection.eval(CLEAR_STALE_MARKER, 4, waitKey, prioritizedKey, markerKey, delayedKey);
  /**
   * The marker's script, sent at the next tick: behind a fetch sent now (the fetch's script is written
   * within this turn's microtasks). Its failure reaches whoever awaits it.
   */
  const clearMarkerNextTick = () => {
    const cleared = new Promise<unknown>((resolve, reject) => process.nextTick(() => clearMarker().then(resolve, reject)));
    cleared.catch(() => undefined);
    return cleared;
  };
  /**
   * The fetch sent right behind the one a blocking wait ends with, and the marker's script behind both
   * (`alongside`): the round's second fetch, ready when the loop comes to it.
   */
  let behind: { token: string; job: Promise<Job<Data> | undefined>; cleared: Promise<unknown> } | undefined;
  /**
   * The blocking fetch's own write carries the next fetch and the marker's script: at idle (once per
   * command) that fetch finds the queue empty and the script clears the marker the first fetch left,
   * and both went out with the first instead of one more round trip once the first job was handed over.
   * In Redis they run in this order, one after the other: a job added after the first was taken is the
   * second's, and one added later keeps a marker of its own (the script removes it only while no job
   * waits). Only with room in hand for both.
   */
  const sendBehind = (fetch: () => Promise<Job<Data> | undefined>, more: Fetch<Data>) => {
    oneWriteThisTurn();
    const first = fetch();
    const token = `${worker.id}:${tokens++}`;
    const job = more(token);
    job.catch(() => undefined);
    behind = { token, job, cleared: clearMarkerNextTick() };
    return first;
  };
  /** The fetch sent behind the last blocking one, if the loop did not come to it: taken now (none: null). */
  const takeBehind = async (): Promise<{ job: Job<Data>; token: string } | null> => {
    const sent = behind;
    behind = undefined;
    const job = await sent?.job.catch((err: Error) => {
      workerError(err);
      return undefined;
    });
    return job && sent ? { job, token: sent.token } : null;
  };

  const fetchLoop = async () => {
    await previousHolderDone();
    while (!stopping) {
      if (inHand.size >= PARTITION_JOBS_IN_HAND) {
        await slotFreed();
        continue;
      }
      const burst: { job: Job<Data>; token: string }[] = [];
      try {
        // The first waits for a job; the next ones are taken while any waits, until the hand is full.
        for (let block = true, fetches = 0; inHand.size + burst.length < PARTITION_JOBS_IN_HAND; block = false, fetches++) {
          const sent = fetches === 1 ? behind : undefined;
          behind = undefined;
          const token = sent?.token ?? `${worker.id}:${tokens++}`;
          let cleared = sent?.cleared;
          // Without a fetch sent behind the blocking one (no room for it, or the wait ended without a
          // fetch): the marker's script goes with this fetch, right behind it in the same write, instead
          // of one round trip after it. If it runs first it keeps the marker of the job the fetch then
          // takes, which costs a blocking wait that returns at once, never a job left waiting.
          if (fetches === 1 && !sent && !stopping) {
            oneWriteThisTurn();
            cleared = clearMarkerNextTick();
          }
          if (block && inHand.size + 2 <= PARTITION_JOBS_IN_HAND) worker.alongside = sendBehind;
          let job: Job<Data> | undefined;
          try {
            job = sent ? await sent.job : await worker.getNextJob(token, { block });
          } finally {
            worker.alongside = null;
          }
          if (!job) {
            // The queue was empty: the marker left by the last job taken is stale, and would make the
            // blocking wait below return at once for a fetch that finds nothing (at idle, once per command).
            if (!block && !stopping) await (cleared ?? clearMarker());
            break;
          }
          if (!stopping && burst.length === 0 && !redelivered(job)) {
            // Fetched one after the other, the jobs never started before come in queue order: each goes
            // over at once (at idle the only job does not wait for a fetch that finds none), and the
            // wall's actor groups those that arrive while it writes.
            handOver(job, token);
            // The next fetch waits for the next turn of the event loop, where the wall's actor begins
            // (wall-actor.ts): its Redis round trip then runs while the command is decided and written,
            // not before.
            await nextTurn();
            continue;
          }
          burst.push({ job, token });
          if (stopping) break;
        }
      } catch (err) {
        workerError(err as Error);
        if (burst.length === 0 && !stopping) await sleep(250);
      }
      // A fetch sent behind a blocking one the loop did not come to (the worker is stopping, or the
      // blocking fetch failed): its job, if it took one, is in hand with the others.
      const left = await takeBehind();
      if (left) burst.push(left);
      // A job handed out again after a stall (at the head of the queue, in no order) starts a burst: it
      // and the jobs fetched after it go over together, by job id.
      burst.sort((a, b) => Number(a.job.id) - Number(b.job.id));
      if (stopping) {
        // Taken while the worker was closing (the wake-up below, a job that came meanwhile): back to
        // the head of the queue, the last first, so the next holder takes them in this order.
        for (const { job, token } of burst.reverse()) await job.moveToWait(token).catch((err: Error) => workerError(err));
        return;
      }
      for (const { job, token } of burst) handOver(job, token);
    }
  };

  const allDone = async () => {
    while (inHand.size > 0) await slotFreed();
  };

  let loop: Promise<void> = Promise.resolve();
  const close = (force = false) =>
    (closing ??= (async () => {
      stopping = true;
      freed?.();
      // A fetch waiting for a job is woken (BullMQ's marker) and ends.
      await boundedWait(connection.zadd(markerKey, 0, '0'), CLOSE_WAIT_MS);
      await boundedWait(loop, CLOSE_WAIT_MS);
      // The jobs in hand may wait on Redis (their answers, their completion) or on PostgreSQL: bounded,
      // and their writes are fenced by the wall's version if they land after another holder took over.
      if (!force) await boundedWait(allDone(), jobWaitMs);
      clearInterval(renewTimer);
      await boundedWait(worker.close(true), CLOSE_WAIT_MS);
      // BullMQ's own blocking connection (a duplicate of `connection`) is cut too, whatever its close did:
      // a close that failed or hung while Redis was away left it reconnecting forever (a no-op otherwise).
      await boundedWait(worker.disconnect(), CLOSE_WAIT_MS);
      // And kept cut: BullMQ's reset of a blocking wait that outlived its deadline may still be under way,
      // and would connect it again once Redis is back.
      for (const copy of duplicates) closeForGood(copy);
      closeForGood(connection);
    })());
  worker.on('stalled', (jobId) => log.warn({ queue: name, jobId }, 'command job stalled; handing it out again'));
  try {
    await worker.waitUntilReady();
    // Once at once (a dead holder's jobs marked stalled go back to the queue), then every stalledInterval.
    await worker.startStalledCheckTimer();
  } catch (err) {
    await close(true).catch(() => undefined);
    throw err;
  }
  loop = fetchLoop().catch((err: unknown) => log.error({ err, queue: name }, 'command partition: the fetch loop stopped'));
  return { close };
}
