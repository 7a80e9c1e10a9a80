import { createHash } from 'node:crypto';
import { z } from 'zod';
import { COMMAND_NAMES, COMMAND_SCHEMAS, type CommandName } from '../commands/commands';
import type { CommandJobData } from '../commands/command-job';

/**
 * The job module's definitions: every queue, every job name, its payload schema and its options.
 * Runtime code (queues, workers) is in job-queue.ts and queue-module.ts; both read these tables.
 */

/**
 * The consumers of committed events. Each gets the events of every relay batch as ONE job
 * `<consumer>.batch` (payload `{ events }`, in commit order) on its own queue `{<consumer>}`, with an id
 * derived from the batch's event ids, retried per `attempts` with backoff doubling from 1 s. `types`,
 * when given, is the consumer's filter: it receives only events of those types, and no job when a batch
 * has none. Adding a consumer: one entry here and its worker's handler (docs/architecture.md "Event pipeline").
 */
export const EVENT_CONSUMERS = {
  // Audit records: a database outage of up to about 17 minutes is ridden out (11 attempts).
  audit: { attempts: 11 },
  // Statistics roll-ups for /insights: the same policy.
  stats: { attempts: 11 },
  // License plates rendered ahead when a slot completes: the same policy, only the events it uses.
  labels: { attempts: 11, types: ['sort-box.completed'] },
  // The light gateway: the events that change a light. Few attempts: a wall missed is set again at the
  // gateway's next full resync (LIGHTS_RESYNC_MS), and a stale light is worse than a late one.
  lights: {
    attempts: 5,
    types: [
      'sort-box-item.created', 'sort-box-item.confirmed', 'sort-box-item.cancelled', 'sort-box-item.swapped',
      'sort-box.completed', 'sort-box.released', 'wall.updated', 'command.refused', 'lights.mode',
    ],
  },
} as const satisfies Record<string, EventConsumerSpec>;

export interface EventConsumerSpec {
  attempts: number;
  /** Only events of these types reach the consumer; every event (internal ones included) when absent. */
  types?: readonly string[];
}
export type EventConsumer = keyof typeof EVENT_CONSUMERS;
export type EventJobName = `${EventConsumer}.batch`;
export const eventJobName = (consumer: EventConsumer): EventJobName => `${consumer}.batch`;
export const EVENT_CONSUMER_NAMES = Object.keys(EVENT_CONSUMERS) as EventConsumer[];

/** Every queue. Braces: a Redis Cluster hash tag, one slot per queue. Command queues are partitioned per wall. */
export const QUEUES = {
  commands: { name: (partition: number) => `{wall-commands-${partition}}` },
  webhooks: { name: () => '{webhook-deliveries}' },
  maintenance: { name: () => '{maintenance}' },
  ...(Object.fromEntries(EVENT_CONSUMER_NAMES.map((c) => [c, { name: () => `{${c}}` }])) as { [C in EventConsumer]: { name: () => string } }),
};
export type QueueKind = keyof typeof QUEUES;
/** The queues of the generic job worker (the command queues have their own, ordered worker). */
export type JobQueueKind = Exclude<QueueKind, 'commands'>;

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

/** A committed event as it travels to consumers (docs/api.md §8 shape). */
export const eventSchema = z.object({
  id: z.string(),
  type: z.string(),
  occurredAt: z.string(),
  clientId: z.number().int(),
  wallId: z.number().int().nullable(),
  data: z.unknown(),
});

const commandEnvelope = (name: CommandName) =>
  z.object({
    commandId: z.string(),
    name: z.literal(name),
    payload: COMMAND_SCHEMAS[name],
    replyTo: z.string().nullable(),
    enqueuedAt: z.number(),
  });

/** The events of one relay batch for one consumer, in commit order. */
const eventBatchJob = z.object({ events: z.array(eventSchema).min(1) });

/** Payload schemas of the jobs outside the command queues, one per job name. */
export const JOB_SCHEMAS = {
  /** One event to one webhook subscription. The event itself, not only its id: a retry sends the same body. */
  'webhook.deliver': z.object({ subscriptionId: z.number().int(), clientId: z.number().int(), event: eventSchema }),
  /** Scheduled: expire idle sessions, prune dedup records. */
  'sessions.sweep': z.object({}),
  ...(Object.fromEntries(EVENT_CONSUMER_NAMES.map((c) => [eventJobName(c), eventBatchJob])) as { [N in EventJobName]: typeof eventBatchJob }),
};

/** Which queue each job name travels on. */
export const JOB_QUEUE = {
  'webhook.deliver': 'webhooks',
  'sessions.sweep': 'maintenance',
  ...(Object.fromEntries(EVENT_CONSUMER_NAMES.map((c) => [eventJobName(c), c])) as { [C in EventConsumer as `${C}.batch`]: C }),
} satisfies { [N in GenericJobName]: JobQueueKind } as { [N in GenericJobName]: JobQueueKind };

/** The consumer an event job belongs to, or null for other jobs. */
export function eventConsumerOf(name: string): EventConsumer | null {
  const consumer = name.endsWith('.batch') ? name.slice(0, -'.batch'.length) : '';
  return Object.prototype.hasOwnProperty.call(EVENT_CONSUMERS, consumer) ? (consumer as EventConsumer) : null;
}

/**
 * A job of the previous version's per-event shape (`<consumer>.record`, `{ event }`), still queued
 * during an upgrade, is read as a batch of one (docs/operations.md "Upgrades"); any other job as it is.
 */
export function fromPreviousVersion(name: string, data: unknown): { name: string; data: unknown } {
  const consumer = name.endsWith('.record') ? name.slice(0, -'.record'.length) : '';
  if (!Object.prototype.hasOwnProperty.call(EVENT_CONSUMERS, consumer) || !data || typeof data !== 'object' || !('event' in data)) return { name, data };
  return { name: eventJobName(consumer as EventConsumer), data: { events: [(data as { event: unknown }).event] } };
}

export type GenericJobName = keyof typeof JOB_SCHEMAS;
const GENERIC_JOB_NAMES = Object.keys(JOB_SCHEMAS) as GenericJobName[];

/** Every job name: the command names (on their wall's partition queue) and the generic ones. */
export type JobName = CommandName | GenericJobName;

export type JobPayloads = { [N in GenericJobName]: z.infer<(typeof JOB_SCHEMAS)[N]> } & { [N in CommandName]: CommandJobData<N> };

/** The schema of one job's payload: a union keyed by the job name. */
export function jobSchema(name: JobName): z.ZodType | undefined {
  if ((COMMAND_NAMES as string[]).includes(name)) return commandEnvelope(name as CommandName);
  return (JOB_SCHEMAS as Record<string, z.ZodType>)[name];
}

export function jobNamesOf(queue: QueueKind): JobName[] {
  return queue === 'commands' ? [...COMMAND_NAMES] : GENERIC_JOB_NAMES.filter((n) => JOB_QUEUE[n] === queue);
}

/** Settings the failure policy depends on. */
export interface JobPolicySettings {
  /** First wait before a failed webhook delivery is retried; each next wait doubles. */
  webhookRetryBaseMs: number;
  /** First wait before a failed event batch is retried (1 s unless set; tests shorten it); each next wait doubles. */
  eventRetryBaseMs: number;
}

/**
 * Webhook deliveries (docs/api.md §8: "at least an hour"): 12 attempts, exponential backoff doubling
 * from WEBHOOK_RETRY_BASE_MS; with the 5 s default the 11 waits add up to about 2 h 50 min.
 */
export const WEBHOOK_MAX_ATTEMPTS = 12;
const DEFAULT_WEBHOOK_RETRY_BASE_MS = 5_000;
const EVENT_RETRY_BASE_MS = 1_000;

export interface JobOptions {
  jobId?: string;
  attempts: number;
  backoff?: { type: 'exponential'; delay: number };
  removeOnComplete: { age: number; count: number };
  removeOnFail: { age: number; count: number };
}

const DAY = 24 * 3600;

/**
 * The failure policy and every other job option, decided here and nowhere else.
 * - Commands: never retried by the queue (a retry would run after later commands of the same wall);
 *   a crashed worker's command is handed out again once (stalled check) and answers from applied_command.
 * - Webhook deliveries: WEBHOOK_MAX_ATTEMPTS with exponential backoff.
 * - Event consumers' batch jobs (audit, ...): their EVENT_CONSUMERS attempts, exponential backoff from
 *   1 s; a handler that wrote part of a batch narrows the job to the events left (PartialJobFailure).
 * - Scheduled sweeps: one attempt; the next interval is the retry.
 * A payload that fails its schema, or a handler's PermanentJobFailure, is not retried at all.
 * Every final failure is a row in failed_job (PostgreSQL), besides BullMQ's failed set.
 * Job ids derived from the payload make an enqueue repeated after a crash a no-op while the first job is kept.
 */
export function jobOptions<N extends JobName>(name: N, data: JobPayloads[N], settings: Partial<JobPolicySettings> = {}): JobOptions {
  const consumer = eventConsumerOf(name);
  if (consumer) {
    return {
      jobId: eventBatchJobId(consumer, (data as { events: readonly { id: string }[] }).events),
      attempts: EVENT_CONSUMERS[consumer].attempts,
      backoff: { type: 'exponential', delay: settings.eventRetryBaseMs ?? EVENT_RETRY_BASE_MS },
      // A batch carries up to OUTBOX_BATCH_SIZE events: kept an hour, long enough for a re-relay to find it.
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: { age: 7 * DAY, count: 1000 },
    };
  }
  switch (name) {
    case 'webhook.deliver': {
      const d = data as JobPayloads['webhook.deliver'];
      return {
        jobId: `webhook_${d.event.id}_${d.subscriptionId}`,
        attempts: WEBHOOK_MAX_ATTEMPTS,
        backoff: { type: 'exponential', delay: settings.webhookRetryBaseMs ?? DEFAULT_WEBHOOK_RETRY_BASE_MS },
        removeOnComplete: { age: DAY, count: 10_000 },
        removeOnFail: { age: 7 * DAY, count: 10_000 },
      };
    }
    case 'sessions.sweep':
      return { attempts: 1, removeOnComplete: { age: 3600, count: 100 }, removeOnFail: { age: 7 * DAY, count: 1000 } };
    default:
      // A workflow command: BullMQ's counter is the job id (applied_command keeps it as the arrival order).
      return { attempts: 1, removeOnComplete: { age: 3600, count: 5000 }, removeOnFail: { age: 7 * DAY, count: 10_000 } };
  }
}

/**
 * A batch job's id: the consumer, the first event's id and a digest of every event id. The same batch
 * enqueued again (a relay that crashed before its commit) gets the same id, so the second enqueue is
 * a no-op; a batch claimed again with other events (one committed meanwhile with a lower outbox id)
 * gets another id and runs too, and the consumer skips the events it already has (by event id).
 */
export function eventBatchJobId(consumer: EventConsumer, events: readonly { id: string }[]): string {
  const digest = createHash('sha1');
  for (const e of events) digest.update(e.id);
  return `${consumer}_${events[0]?.id ?? 'none'}_${events.length}_${digest.digest('base64url').slice(0, 16)}`;
}

/** Delay before attempt `attempt + 1` under the policy, or null after the last attempt. */
export function retryDelayMs(options: JobOptions, attempt: number): number | null {
  if (attempt >= options.attempts || !options.backoff) return null;
  return Math.round(2 ** (attempt - 1) * options.backoff.delay);
}

/** The timers, as BullMQ job schedulers: one job per interval however many processes upsert them. */
export function schedulers(intervals: { sessionSweepMs: number }) {
  return [{ id: 'sessions.sweep', name: 'sessions.sweep' as const, every: intervals.sessionSweepMs, data: {} }];
}
