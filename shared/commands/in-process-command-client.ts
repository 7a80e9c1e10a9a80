import { uuidv7 } from '../db/time-ordered-uuid';
import { AppError } from '../errors/app-error';
import type { Logger } from '../logging/logger';
import type { FailureRecorder } from '../queue/job-queue';
import type { CommandClient } from './command-client';
import { assertHandlers, dispatchCommand } from './command-dispatch';
import type { CommandHandlers, CommandOutcome } from './command-job';
import type { CommandName, CommandPayloads, CommandResults } from './commands';
import { partitionOf } from './partitioning';

/**
 * The command transport without a queue: a command is decided in the calling process by the handlers
 * it is given (the wall actors of workers/sorting, as a sorting worker builds them), through the same
 * dispatch as a queued job (command-dispatch.ts), and the caller gets the same answer or refusal. The
 * decision and its SQL are the real ones: the actor's one fenced write with its outbox events and its
 * `applied_command` record. What it leaves out is the queue: admission, the reply channel, timeouts
 * and the order of commands across processes. So it serves tests of the workflow's rules (no Redis, no
 * second process: docs/architecture.md "Tests"); it must never run beside sorting workers that hold
 * the same walls, whose memory it would leave behind (their fence would catch it, at a cost).
 */
export interface InProcessCommandClient extends CommandClient {
  /**
   * One command as a job carries it, answered with the outcome a worker gives: `commandId` (a new one
   * unless given) and `redelivered` play a job handed out twice (exactly-once).
   */
  send<N extends CommandName>(name: N, payload: CommandPayloads[N], job?: { commandId?: string; redelivered?: boolean }): Promise<CommandOutcome<N>>;
}

export interface InProcessOptions {
  /** QUEUE_PARTITIONS: the partition a command's bookkeeping names, as the queue would have. */
  partitions: number;
  log: Logger;
  recordFailure?: FailureRecorder;
}

export function createInProcessCommandClient(handlers: Partial<CommandHandlers>, opts: InProcessOptions): InProcessCommandClient {
  assertHandlers(handlers);
  // Stands for the queue's job counter: the order of arrival the applied-command record keeps.
  let jobs = 0;
  const send = async <N extends CommandName>(name: N, payload: CommandPayloads[N], job: { commandId?: string; redelivered?: boolean } = {}): Promise<CommandOutcome<N>> => {
    const commandId = job.commandId ?? uuidv7();
    const info = { commandId, partition: partitionOf(payload.wallId, opts.partitions), jobId: ++jobs, redelivered: job.redelivered ?? false };
    return (await dispatchCommand(handlers, { commandId, name, payload }, info, opts)) as CommandOutcome<N>;
  };
  return {
    send,
    async execute<N extends CommandName>(name: N, payload: CommandPayloads[N]): Promise<CommandResults[N]> {
      const outcome = await send(name, payload);
      if (outcome.ok) return outcome.value;
      // The same error the queued client throws for a refusal: the API's error handler maps it alike.
      throw AppError.fromProblem(outcome.problem);
    },
    async close() {
      // Nothing held: the handlers' resources belong to whoever built them.
    },
  };
}
