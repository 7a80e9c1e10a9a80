import type { EntityManager } from '@mikro-orm/postgresql';
import type { WallEvent } from '../../shared/events/channels';
import { isPublicEventType } from '../../shared/events/event-types';
import type { JobRequest } from '../../shared/queue/job-queue';

/**
 * A consumer of committed events: the relay asks it, once per batch, for the jobs the batch means to
 * it, enqueues them (each with a job id derived from the event, jobs.ts) and only then marks the batch
 * relayed. Consumers deduplicate on the event id: at-least-once transport, exactly-once effect.
 */
export interface OutboxConsumer {
  name: string;
  jobsFor(tx: EntityManager, events: WallEvent[]): JobRequest[] | Promise<JobRequest[]>;
}

/** Every event, internal ones included, as one job each. */
const everyEvent = (name: string, job: 'audit.record'): OutboxConsumer => ({
  name,
  jobsFor: (_tx, events) => events.map((event) => ({ name: job, data: { event } })),
});

/** One job per public event and matching active subscription of the event's client, in event order. */
async function webhookJobs(tx: EntityManager, all: WallEvent[]): Promise<JobRequest[]> {
  const events = all.filter((e) => isPublicEventType(e.type));
  if (events.length === 0) return [];
  const clientIds = [...new Set(events.map((e) => e.clientId))];
  const subs = await tx.execute<{ id: number; client_id: number; events: string[] }[]>(
    `select id, client_id, events from webhook_subscription where is_active and client_id in (?) order by id`,
    [clientIds],
  );
  if (subs.length === 0) return [];
  const jobs: JobRequest[] = [];
  for (const event of events) {
    for (const s of subs) {
      if (s.client_id === event.clientId && (s.events.includes('*') || s.events.includes(event.type))) {
        jobs.push({ name: 'webhook.deliver', data: { subscriptionId: s.id, clientId: event.clientId, event } });
      }
    }
  }
  return jobs;
}

/** Every consumer of the outbox. Adding one (statistics, labels) is one entry here and its worker's handler. */
export const OUTBOX_CONSUMERS: readonly OutboxConsumer[] = [
  everyEvent('audit', 'audit.record'),
  { name: 'webhooks', jobsFor: webhookJobs },
];
