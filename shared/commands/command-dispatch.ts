import { isDependencyOutage } from '../errors/outage';
import type { Logger } from '../logging/logger';
import type { FailureRecorder } from '../queue/job-queue';
import { assertJobHandlers } from '../queue/job-queue';
import type { CommandHandlers, CommandJobData, CommandJobInfo, CommandOutcome } from './command-job';
import { COMMAND_SCHEMAS } from './commands';
import { commandQueueName } from './partitioning';

/**
 * What a command transport hands a command to, whichever it is: the partition host (a BullMQ job of
 * the wall's partition, partition-host.ts) or the in-process client (in-process-command-client.ts).
 * The payload is parsed with its command's schema and given to its one handler; whatever goes wrong
 * becomes an answer, never an exception, so one command cannot take the process down.
 */

export function assertHandlers(handlers: Partial<CommandHandlers>): asserts handlers is CommandHandlers {
  assertJobHandlers('commands', handlers);
}

export interface DispatchOptions {
  log: Logger;
  /** Where a command that failed unexpectedly is recorded (failed_job): its answer is final. */
  recordFailure?: FailureRecorder;
}

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
  try {
    const handler = handlers[cmd] as (p: unknown, info: CommandJobInfo) => Promise<CommandOutcome>;
    return await handler(parsed.data, job);
  } catch (err) {
    if (isDependencyOutage(err)) {
      // PostgreSQL (or Redis) down or restarting: the caller gets a 503 and retries, not a 500.
      log.warn({ err, command: cmd, commandId, jobId: job.jobId }, 'command failed: a dependency is unavailable');
      return unavailable;
    }
    log.error({ err, command: cmd, commandId, jobId: job.jobId }, 'command failed unexpectedly');
    // Commands are never retried (ordering): this answer is final, so it is recorded like any final failure.
    await opts
      .recordFailure?.({ queue: commandQueueName(job.partition), jobName: cmd, jobId: String(job.jobId), data, error: (err as Error)?.message ?? String(err), attempts: 1 })
      .catch((e) => log.error({ err: e, jobId: job.jobId }, 'could not record a failed job in PostgreSQL'));
    return { ok: false, problem: { code: 'internal-error', detail: 'The command failed unexpectedly; nothing was changed. It has been logged.' } };
  }
}
