import { uuidv7 } from '../db/time-ordered-uuid';
import { AppError } from '../errors/app-error';
import { isCommandTimeout, outageRefusal } from '../errors/outage';
import type { Logger } from '../logging/logger';
import { foldedWarning } from '../logging/logger';
import { PartitionProducer, type LinkState, type QueueSettings } from '../queue/queue-module';
import type { Admission, Admitted } from './admission';
import type { CommandJobData, CommandOutcome, CommandReply } from './command-job';
import { commandService, observeCommandDuration } from './command-metrics';
import type { CommandName, CommandPayloads, CommandResults } from './commands';
import { partitionOf } from './partitioning';

/**
 * Sends a command to the ordered queue of its wall and resolves with the answer of the process holding
 * the wall's partition. Rejects with an AppError carrying the refusal's code (e.g. `no-empty-slot`),
 * `service-unavailable` (503: not admitted, Redis unreachable, or withdrawn unstarted: nothing was
 * changed) or `command-timeout` (504: it may still be applied).
 */
export interface CommandClient {
  execute<N extends CommandName>(name: N, data: CommandPayloads[N]): Promise<CommandResults[N]>;
  /**
   * The 503 `execute(name)` would answer now for want of capacity whatever the command's wall (the
   * admission policy's bound on the whole process), or null: lets the HTTP layer refuse a command's
   * request before its other work. `execute` then asks the policy of the wall's partition. A client
   * without admission: null.
   */
  refusal?(name: CommandName): AppError | null;
  close(): Promise<void>;
}

/** How long a lost reply channel may stay away before the commands waiting on it are answered (504). */
const REPLY_LOSS_GRACE_MS = 1000;
/** Once it is back, how often and how long the answers of the commands waiting are looked for on their jobs. */
const LOST_REPLY_READS = 10;
const LOST_REPLY_READ_MS = 200;

const lostJob = (name: CommandName) => `The queue of the sorting workers lost the ${name} command (Redis restarted without its data)`;

const unreachable = () => outageRefusal('service-unavailable', 'The command queue is unreachable; nothing was changed. Retry in a moment.');

interface Waiter {
  name: CommandName;
  partition: number;
  jobId: string | null;
  /** Its admission, told the service time the worker reports with the answer. */
  admitted: Admitted | undefined;
  resolve(outcome: CommandOutcome): void;
  timer: NodeJS.Timeout;
}

class RedisCommandClient implements CommandClient {
  private readonly waiters = new Map<string, Waiter>();
  private readonly producer: PartitionProducer<CommandJobData, CommandReply, CommandOutcome>;
  private lossTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly enqueueFailures: (err: Error) => void;
  private readonly subscribeFailures: (err: Error) => void;

  constructor(
    private readonly settings: QueueSettings,
    private readonly log: Logger,
    private readonly admission: Admission | null,
  ) {
    this.enqueueFailures = foldedWarning(log, 'could not queue a command');
    this.subscribeFailures = foldedWarning(log, 'could not subscribe to the command reply channel');
    this.producer = new PartitionProducer<CommandJobData, CommandReply, CommandOutcome>(settings, log, {
      reply: (reply) => this.onReply(reply),
      replyLink: (state) => this.onReplyLink(state),
    });
  }

  private onReply(reply: CommandReply): void {
    this.settle(reply.commandId, reply.outcome, reply.serviceMs);
  }

  private settle(commandId: string, outcome: CommandOutcome, serviceMs?: number): void {
    const waiter = this.waiters.get(commandId);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.waiters.delete(commandId);
    if (typeof serviceMs === 'number') {
      waiter.admitted?.served(serviceMs);
      commandService.observe(serviceMs / 1000);
    }
    waiter.resolve(outcome);
  }

  /**
   * The reply channel lost its connection: answers published meanwhile never arrive. If it is not
   * back within REPLY_LOSS_GRACE_MS, every command waiting is answered 504 at once (it may have been
   * applied, so never "nothing was changed"); when it is back, the answers of jobs that finished
   * meanwhile are read from their jobs.
   */
  private onReplyLink(state: LinkState): void {
    if (this.closed) return;
    if (state === 'down' || state === 'hung') {
      // A Redis that hangs was found out by a PING that waited a second already: no further grace.
      this.lossTimer ??= setTimeout(() => {
        this.lossTimer = null;
        for (const [commandId, waiter] of this.waiters) {
          this.settle(commandId, {
            ok: false,
            problem: {
              code: 'command-timeout',
              detail: `The queue of the sorting workers became unreachable${state === 'hung' ? ' (Redis stopped answering)' : ''} while the ${waiter.name} command waited`,
            },
          });
        }
      }, state === 'hung' ? 0 : REPLY_LOSS_GRACE_MS).unref();
      return;
    }
    if (state === 'ready') {
      if (this.lossTimer) clearTimeout(this.lossTimer);
      this.lossTimer = null;
      for (const [commandId, waiter] of this.waiters) void this.readLostReply(commandId, waiter);
    }
  }

  /**
   * A command's answer read from its job (the reply may have been published while the channel was
   * away), for a short while. A job Redis no longer has (restarted without its data) will never answer:
   * 504 at once, since it may have been applied before the restart.
   */
  private async readLostReply(commandId: string, waiter: Waiter): Promise<void> {
    for (let i = 0; i < LOST_REPLY_READS && this.waiters.get(commandId) === waiter; i++) {
      if (waiter.jobId !== null) {
        const job = await this.producer.jobState(waiter.partition, waiter.jobId, commandId).catch(() => null);
        if (job?.state === 'finished') return this.settle(commandId, job.outcome);
        if (job?.state === 'gone') return this.settle(commandId, { ok: false, problem: { code: 'command-timeout', detail: lostJob(waiter.name) } });
      }
      await new Promise((r) => setTimeout(r, LOST_REPLY_READ_MS).unref());
    }
  }

  /** A command that could not be queued: an outage, expected; one warning per interval, not one per command. */
  private notSent(name: CommandName, err: unknown, code: string): void {
    this.enqueueFailures(Object.assign(err instanceof Error ? err : new Error(String(err)), { command: name, answered: code }));
  }

  refusal(name: CommandName): AppError | null {
    return this.admission?.refusal(name) ?? null;
  }

  async execute<N extends CommandName>(name: N, data: CommandPayloads[N]): Promise<CommandResults[N]> {
    const partition = partitionOf(data.wallId, this.settings.partitions);
    // The person who sent it (a session's sorter, a shipper): their only command waiting is admitted whatever the estimate.
    const person = 'userId' in data ? data.userId : undefined;
    const admitted = this.admission?.admit(name, partition, person);
    const start = performance.now();
    try {
      const value = await this.run(name, data, partition, admitted);
      observeCommandDuration(name, 'ok', (performance.now() - start) / 1000);
      return value;
    } catch (err) {
      observeCommandDuration(name, err instanceof AppError ? err.code : 'internal-error', (performance.now() - start) / 1000);
      throw err;
    } finally {
      admitted?.done();
    }
  }

  private async run<N extends CommandName>(name: N, payload: CommandPayloads[N], partition: number, admitted: Admitted | undefined): Promise<CommandResults[N]> {
    // Fail fast: with Redis known to be away, waiting for a reconnect helps nobody.
    if (this.producer.unreachable()) throw unreachable();
    try {
      await this.producer.ensureSubscribed();
    } catch (err) {
      this.subscribeFailures(err as Error);
      throw unreachable();
    }
    const commandId = uuidv7();
    const jobData: CommandJobData<N> = { commandId, name, payload, replyTo: this.producer.replyChannel, enqueuedAt: Date.now() };
    let waiter!: Waiter;
    const outcome = new Promise<CommandOutcome>((resolve) => {
      const timer = setTimeout(
        () => this.settle(commandId, { ok: false, problem: { code: 'command-timeout', detail: '' } }),
        this.settings.commandTimeoutMs,
      );
      waiter = { name, partition, jobId: null, admitted, resolve, timer };
      this.waiters.set(commandId, waiter);
    });
    try {
      waiter.jobId = await this.producer.add(partition, jobData);
    } catch (err) {
      clearTimeout(waiter.timer);
      this.waiters.delete(commandId);
      if (isCommandTimeout(err)) {
        // Sent, but Redis did not answer within a second (it hangs): the job may still be added and run
        // once Redis answers again, so the outcome is unknown. Its Idempotency-Key settles it.
        this.notSent(name, err, 'command-timeout');
        throw outageRefusal('command-timeout', `Redis did not answer while the ${name} command was queued; it may still be applied. Retry with the same Idempotency-Key to get its outcome.`);
      }
      this.notSent(name, err, 'service-unavailable');
      throw unreachable();
    }
    const result = await outcome;
    if (result.ok) return result.value as CommandResults[N];
    if (result.problem.code === 'command-timeout') {
      // If no worker took it yet, take it back: then the caller knows for sure nothing happened.
      // Anything else (started, finished, Redis unreachable): the outcome is unknown, so 504.
      // Only its own job: the id may name another command after Redis restarted empty (queue-module.ts).
      const withdrawn =
        !this.producer.unreachable() &&
        (await this.producer.withdrawIfWaiting(partition, waiter.jobId, commandId).catch((err: unknown) => {
          this.log.warn({ err, command: name, commandId }, 'could not withdraw a timed-out command');
          return false;
        }));
      if (withdrawn) {
        throw new AppError(
          'service-unavailable',
          `No sorting worker answered within ${this.settings.commandTimeoutMs} ms; the command was withdrawn and nothing was changed. Retry in a moment.`,
          { headers: { 'Retry-After': '1' } },
        );
      }
      if (result.problem.detail) {
        // The reply channel or the job was lost (an outage): say so, and when to try again.
        throw outageRefusal('command-timeout', `${result.problem.detail}; it may still be applied. Retry with the same Idempotency-Key to get its outcome.`);
      }
      throw new AppError(
        'command-timeout',
        `The command did not finish within ${this.settings.commandTimeoutMs} ms and may still be applied. Retry with the same Idempotency-Key to get its outcome.`,
        { headers: { 'Retry-After': '1' } },
      );
    }
    throw AppError.fromProblem(result.problem);
  }

  async close(): Promise<void> {
    // Its own connections closing are no outage to report.
    this.closed = true;
    if (this.lossTimer) clearTimeout(this.lossTimer);
    for (const w of this.waiters.values()) clearTimeout(w.timer);
    await this.producer.close();
  }
}

/**
 * The command client. `admission`: the API's one admission policy (admission.ts); a process that
 * sends its own bounded batches (the sweeper) goes without.
 */
export function createCommandClient(settings: QueueSettings, log: Logger, admission: Admission | null = null): CommandClient {
  return new RedisCommandClient(settings, log, admission);
}

/** What workerCommandClient needs of the process's runtime (shared/runtime/runtime.ts). */
interface CommandClientHost {
  queueSettings: QueueSettings;
  log: Logger;
  onClose(name: string, fn: () => Promise<void> | void): void;
}

const perProcess = new WeakMap<CommandClientHost, CommandClient>();

/**
 * The command client of a worker process (the light gateway's button presses, the sweeper's session
 * expiries): one per runtime, however many of those kinds the process runs (`npm start`'s pipeline
 * process runs both), so one producer and one reply subscriber, not one of each per kind. Closed with
 * the runtime, after the kinds that started after it was made.
 */
export function workerCommandClient(runtime: CommandClientHost): CommandClient {
  const known = perProcess.get(runtime);
  if (known) return known;
  const client = createCommandClient(runtime.queueSettings, runtime.log);
  perProcess.set(runtime, client);
  runtime.onClose('command client', () => client.close());
  return client;
}
