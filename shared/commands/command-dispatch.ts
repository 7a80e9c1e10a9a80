import { isDependencyOutage } from '../errors/outage';
import type { Logger } from '../logging/logger';
import type { FailureRecorder } from '../queue/job-queue';
import type { CommandHandlers, CommandJobData, CommandJobInfo, CommandOutcome } from './command-job';
import { COMMAND_NAMES, COMMAND_SCHEMAS } from './commands';
import { commandQueueName } from './partitioning';

/**
 * What a command transport hands a command to, whichever it is: the partition host (a BullMQ job of
 * the wall's partition, partition-host.ts) or the in-process client (in-process-command-client.ts).
 * The payload is parsed with its command's schema and given to its one handler; whatever goes wrong
 * becomes an answer, never an exception, so one command cannot take the process down.
 */

/**
 * The one check every command host runs when it starts: exactly one handler for each command, none for
 * a name that is no command. A gap is a deployment error: the process stops with this message.
 */
export function assertHandlers(handlers: Partial<CommandHandlers>): asserts handlers is CommandHandlers {
  const names: readonly string[] = COMMAND_NAMES;
  const missing = names.filter((n) => typeof (handlers as Record<string, unknown>)[n] !== 'function');
  const foreign = Object.keys(handlers).filter((n) => !names.includes(n));
  if (missing.length || foreign.length) {
    throw new Error(
      'Command handlers cannot start: ' +
        [missing.length ? `no handler for command(s) ${missing.join(', ')}` : '', foreign.length ? `handler(s) for no command: ${foreign.join(', ')}` : '']
          .filter(Boolean)
          .join('; ') +
        '. Every command needs exactly one handler.',
    );
  }
}

export interface DispatchOptions {
  log: Logger;
  /** Where a command that failed unexpectedly is recorded (failed_job): its answer is final. */
  recordFailure?: FailureRecorder;
  /** The process's outage gate (OutageGate): after an outage, commands answer 503 at once until one goes through. */
  gate?: OutageGate;
}

/**
 * After a command failed because PostgreSQL (or Redis) is unavailable, the commands that follow in the
 * process answer 503 at once, without trying, while one command at a time (at most one every
 * `retryEveryMs`) tries whether it is back: the first that goes through opens the way again. Against a
 * server that hangs each try waits for DATABASE_QUERY_TIMEOUT_MS; without the gate the commands queued
 * behind it in their partition would each wait as long, and their callers far longer than that.
 */
export class OutageGate {
  private down = false;
  private trying = false;
  private lastTry = 0;
  /** Commands answered at once since the outage began (logged when it ends). */
  refused = 0;

  constructor(
    private readonly log: Logger,
    private readonly retryEveryMs = 250,
  ) {}

  /**
   * Whether this command may run now: `pass` while nothing is down (nothing to record afterwards),
   * `try` for the one command that tries whether the dependency is back (it must call leave()),
   * `refuse` for the others, which answer `unavailable`.
   */
  enter(): 'pass' | 'try' | 'refuse' {
    if (!this.down) return 'pass';
    const now = Date.now();
    if (this.trying || now - this.lastTry < this.retryEveryMs) {
      this.refused++;
      return 'refuse';
    }
    this.trying = true;
    this.lastTry = now;
    return 'try';
  }

  /** What a command found: an outage (`true`) or an answer of the database. Called by the command that tried, and by any that met an outage. */
  leave(outage: boolean, tried: boolean): void {
    if (tried) this.trying = false;
    if (outage) {
      if (!this.down) this.log.warn('commands: a dependency is unavailable; the next commands are answered 503 at once while one at a time tries');
      this.down = true;
      this.lastTry = Date.now();
      return;
    }
    if (!tried) return;
    if (this.down) this.log.info({ refused: this.refused }, 'commands: the dependency answers again');
    this.down = false;
    this.refused = 0;
  }
}

const refusedAtOnce: CommandOutcome = {
  ok: false,
  problem: {
    code: 'service-unavailable',
    detail: 'The database did not answer the last commands; this one was not tried and nothing was changed. Retry in a few seconds.',
  },
};

const unavailable: CommandOutcome = {
  ok: false,
  problem: {
    code: 'service-unavailable',
    detail: 'The database was unavailable while the command ran. Retry in a few seconds with the same Idempotency-Key: a command is never applied twice.',
  },
};

export async function dispatchCommand(
  handlers: CommandHandlers,
  data: Pick<CommandJobData, 'commandId' | 'name' | 'payload'>,
  job: CommandJobInfo,
  opts: DispatchOptions,
): Promise<CommandOutcome> {
  const { commandId, name: cmd } = data;
  const { log } = opts;
  const schema = COMMAND_SCHEMAS[cmd];
  const parsed = schema?.safeParse(data.payload);
  if (!schema || !parsed?.success) {
    return { ok: false, problem: { code: 'validation-failed', detail: `Malformed command '${String(cmd)}'.` } };
  }
  const entry = opts.gate?.enter();
  if (entry === 'refuse') return refusedAtOnce;
  let outage = false;
  try {
    const handler = handlers[cmd] as (p: unknown, info: CommandJobInfo) => Promise<CommandOutcome>;
    return await handler(parsed.data, job);
  } catch (err) {
    if (isDependencyOutage(err)) {
      // PostgreSQL (or Redis) down, restarting or hanging: the caller gets a 503 and retries, not a 500.
      // Expected: one line when the outage begins (the gate's), the message only, no stack trace.
      outage = true;
      log.debug({ err: (err as Error)?.message, command: cmd, commandId, jobId: job.jobId }, 'command failed: a dependency is unavailable');
      return unavailable;
    }
    log.error({ err, command: cmd, commandId, jobId: job.jobId }, 'command failed unexpectedly');
    // Commands are never retried (ordering): this answer is final, so it is recorded like any final failure.
    await opts
      .recordFailure?.({ queue: commandQueueName(job.partition), jobName: cmd, jobId: String(job.jobId), data, error: (err as Error)?.message ?? String(err), attempts: 1 })
      .catch((e) => log.error({ err: e, jobId: job.jobId }, 'could not record a failed job in PostgreSQL'));
    return { ok: false, problem: { code: 'internal-error', detail: 'The command failed unexpectedly; nothing was changed. It has been logged.' } };
  } finally {
    // The common path (nothing down, no outage met) records nothing.
    if (opts.gate && (outage || entry === 'try')) opts.gate.leave(outage, entry === 'try');
  }
}
