import type { SqlRunner } from '../../shared/db/named-sql';
import type { WallEvent } from '../../shared/events/channels';
import { isPublicEventType } from '../../shared/events/event-types';
import type { JobRequest } from '../../shared/queue/job-queue';
import { EVENT_CONSUMERS, EVENT_CONSUMER_NAMES, eventJobName, type EventConsumer, type EventConsumerSpec } from '../../shared/queue/jobs';
import { activeWebhookSubscriptions } from './outbox.queries';

/**
 * A consumer of committed events: the relay asks it, once per batch, for the jobs the batch means to
 * it, enqueues them (each with a job id derived from its events, jobs.ts) and only then marks the
 * batch relayed. Consumers deduplicate on the event id: at-least-once transport, exactly-once effect.
 */
export interface OutboxConsumer {
  name: string;
  /** `tx`: the relay's transaction. */
  jobsFor(tx: SqlRunner, events: WallEvent[]): JobRequest[] | Promise<JobRequest[]>;
}

/**
 * The whole batch (internal events included), or the part its filter keeps, as ONE job on the
 * consumer's queue; none when nothing is left.
 */
function batchConsumer(consumer: EventConsumer): OutboxConsumer {
  const spec: EventConsumerSpec = EVENT_CONSUMERS[consumer];
  const name = eventJobName(consumer);
  const types = spec.types ? new Set(spec.types) : null;
  return {
    name: consumer,
    jobsFor: (_tx, all) => {
      const events = types ? all.filter((e) => types.has(e.type)) : all;
      return events.length ? [{ name, data: { events } } as JobRequest] : [];
    },
  };
}

/** One job per public event and matching active subscription of the event's client, in event order. */
async function webhookJobs(tx: SqlRunner, all: WallEvent[]): Promise<JobRequest[]> {
  const events = all.filter((e) => isPublicEventType(e.type));
  if (events.length === 0) return [];
  const subs = await activeWebhookSubscriptions(tx, { clientIds: [...new Set(events.map((e) => e.clientId))] });
  if (subs.length === 0) return [];
  // Each client's subscriptions (id order), each with its types: an event looks only at its own client's.
  const byClient = new Map<number, { id: number; all: boolean; types: Set<string> }[]>();
  for (const s of subs) {
    const list = byClient.get(s.client_id) ?? [];
    list.push({ id: s.id, all: s.events.includes('*'), types: new Set(s.events) });
    byClient.set(s.client_id, list);
  }
  const jobs: JobRequest[] = [];
  for (const event of events) {
    for (const s of byClient.get(event.clientId) ?? []) {
      if (s.all || s.types.has(event.type)) jobs.push({ name: 'webhook.deliver', data: { subscriptionId: s.id, clientId: event.clientId, event } });
    }
  }
  return jobs;
}

/**
 * Every consumer of the outbox: each event consumer of the job module (EVENT_CONSUMERS: audit, stats,
 * labels), one job per batch, and webhooks, one job per event and subscription.
 */
export const OUTBOX_CONSUMERS: readonly OutboxConsumer[] = [
  ...EVENT_CONSUMER_NAMES.map(batchConsumer),
  { name: 'webhooks', jobsFor: webhookJobs },
];
