import type { CommandName, CommandPayloads, CommandResults } from './commands';

/**
 * Sends a workflow command to the ordered queue of its wall and resolves with the worker's answer.
 * Rejects with an AppError carrying the refusal's code (e.g. `no-empty-slot`), or `command-timeout`.
 */
export interface CommandBus {
  execute<N extends CommandName>(name: N, data: CommandPayloads[N]): Promise<CommandResults[N]>;
  close(): Promise<void>;
}
