import type { ProblemDetails } from '../errors/app-error';
import type { CommandName, CommandPayloads, CommandResults } from './commands';

/** What travels in a command job: the command, a unique id for exactly-once, and where to answer. */
export interface CommandJobData<N extends CommandName = CommandName> {
  commandId: string;
  name: N;
  payload: CommandPayloads[N];
  /** Redis channel of the API process waiting for the answer. */
  replyTo: string | null;
  enqueuedAt: number;
}

export type CommandOutcome<N extends CommandName = CommandName> =
  | { ok: true; value: CommandResults[N] }
  | { ok: false; problem: Pick<ProblemDetails, 'code' | 'detail'> & Partial<ProblemDetails> };

export interface CommandReply {
  commandId: string;
  outcome: CommandOutcome;
  /**
   * The partition's time spent on this command, ms: from its hand-over to the wall's actor, or from the
   * partition's previous answer if that came later, to its answer (the jobs in hand wait behind one
   * another, and a group's commands are answered together). The API's admission estimates a
   * partition's wait from it (admission.ts).
   */
  serviceMs?: number;
}

/** Facts about the job a handler may need (the applied-command record, exactly-once). */
export interface CommandJobInfo {
  commandId: string;
  partition: number;
  jobId: number;
  /**
   * The job was started before (a stalled job handed out again, a holder that lost its partition):
   * its first run may have been applied, so its earlier answer is looked up first.
   */
  redelivered?: boolean;
}

/** One handler per command name; the worker refuses to start if one is missing. */
export type CommandHandlers = {
  [N in CommandName]: (payload: CommandPayloads[N], job: CommandJobInfo) => Promise<CommandOutcome<N>>;
};
