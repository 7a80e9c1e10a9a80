import type { EntityManager } from '@mikro-orm/postgresql';
import type { WallEvent } from '../../shared/events/channels';
import { isPublicEventType } from '../../shared/events/event-types';
import type { JobRequest } from '../../shared/queue/job-queue';
import { EVENT_CONSUMERS, eventJobName, type EventConsumer } from '../../shared/queue/jobs';

/**
 * A consumer of committed events: the relay asks it, once per batch, for the jobs the batch means to
 * it, enqueues them (each with a job id derived from the event, jobs.ts) and only then marks the batch
 * relayed. Consumers deduplicate on the event id: at-least-once transport, exactly-once effect.
 */
export interface OutboxConsumer {
  name: string;
  jobsFor(tx: EntityManager, events: WallEvent[]): JobRequest[] | Promise<JobRequest[]>;
}

/** Every event, internal ones included, as one job each on the consumer's queue. */
const everyEvent = (consumer: EventConsumer): OutboxConsumer => ({
  name: consumer,
  jobsFor: (_tx, events) => events.map((event) => ({ name: eventJobName(consumer), data: { event } }) as JobRequest),
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

/**
 * Every consumer of the outbox: each event consumer of the job module (EVENT_CONSUMERS: audit, stats,
 * labels), and webhooks, which fan out per subscription.
 */
export const OUTBOX_CONSUMERS: readonly OutboxConsumer[] = [
  ...(Object.keys(EVENT_CONSUMERS) as EventConsumer[]).map(everyEvent),
  { name: 'webhooks', jobsFor: webhookJobs },
];
