/**
 * The partition queues and the options of their jobs. shared/queue is the BullMQ transport and knows
 * nothing of what its jobs are: the wall commands (shared/commands) build on it, never the reverse
 * (test/unit/import-direction.test.ts). The event pipeline (relay, consumers, webhook deliveries) and
 * the sweeper keep their work and their progress in PostgreSQL, not in queues (docs/architecture.md
 * "Event pipeline").
 */

/** The name of partition queue `partition`. Braces: a Redis Cluster hash tag, one slot per queue (and its lease). */
export function partitionQueueName(partition: number): string {
  return `{wall-commands-${partition}}`;
}

/**
 * Partition workers: a 5 s lock, 2.5 s stalled check and one re-delivery, so a crashed worker's jobs are
 * handed out again soon. The worker fetches its jobs itself, in queue order (queue-module.ts).
 */
export const PARTITION_WORKER_TUNING = {
  lockDuration: 5_000,
  stalledInterval: 2_500,
  maxStalledCount: 1,
  drainDelay: 5,
} as const;

/**
 * Jobs a partition's worker holds at once, taken in queue order: the commands of a wall among them are
 * decided one after the other and written in one transaction (docs/architecture.md "Group commit").
 */
export const PARTITION_JOBS_IN_HAND = 16;

export interface JobOptions {
  jobId?: string;
  attempts: number;
  removeOnComplete: { age: number; count: number };
  removeOnFail: { age: number; count: number };
}

const DAY = 24 * 3600;

/**
 * A partition job's options: never retried by the queue (a retry would run after later jobs of the
 * same partition); a crashed worker's job is handed out again once (stalled check). BullMQ's counter is
 * the job id. The final failure is a row in failed_job (PostgreSQL), besides BullMQ's failed set.
 */
export const PARTITION_JOB_OPTIONS: JobOptions = { attempts: 1, removeOnComplete: { age: 3600, count: 5000 }, removeOnFail: { age: 7 * DAY, count: 10_000 } };
