import { COMMAND_NAMES, type CommandName } from '../commands/commands';

/**
 * The job module's definitions: the queues and the options of their jobs. The wall commands are the
 * only jobs: the event pipeline (relay, consumers, webhook deliveries) and the sweeper keep their work
 * and their progress in PostgreSQL, not in queues (docs/architecture.md "Event pipeline").
 */

/** Every queue. Braces: a Redis Cluster hash tag, one slot per queue. Command queues are partitioned per wall. */
export const QUEUES = {
  commands: { name: (partition: number) => `{wall-commands-${partition}}` },
};
export type QueueKind = keyof typeof QUEUES;

/**
 * Command workers: global concurrency 1 per partition (a wall's commands strictly in order), a 5 s
 * lock, 2.5 s stalled check and one re-delivery, so a crashed worker's command is handed out again soon.
 */
export const COMMAND_WORKER_TUNING = {
  concurrency: 1,
  lockDuration: 5_000,
  stalledInterval: 2_500,
  maxStalledCount: 1,
  drainDelay: 5,
} as const;

/** Every job name: the command names, on their wall's partition queue. */
export type JobName = CommandName;

export function jobNamesOf(queue: QueueKind): JobName[] {
  return queue === 'commands' ? [...COMMAND_NAMES] : [];
}

export interface JobOptions {
  jobId?: string;
  attempts: number;
  removeOnComplete: { age: number; count: number };
  removeOnFail: { age: number; count: number };
}

const DAY = 24 * 3600;

/**
 * A workflow command's options: never retried by the queue (a retry would run after later commands of
 * the same wall); a crashed worker's command is handed out again once (stalled check) and answers from
 * applied_command. BullMQ's counter is the job id (applied_command keeps it as the arrival order). The
 * final failure is a row in failed_job (PostgreSQL), besides BullMQ's failed set.
 */
export const COMMAND_JOB_OPTIONS: JobOptions = { attempts: 1, removeOnComplete: { age: 3600, count: 5000 }, removeOnFail: { age: 7 * DAY, count: 10_000 } };
