import type { EntityManager } from '@mikro-orm/postgresql';

import type { WallEvent } from '../../shared/events/channels';
import type { WebhookJob } from '../../shared/queue/notification-queue';

export type RelayedEvent = WallEvent;

export type Publish = (events: RelayedEvent[]) => Promise<void>;

/** Hands webhook delivery jobs to their queue; must be idempotent per (event, subscription). */
export type EnqueueWebhooks = (jobs: WebhookJob[]) => Promise<void>;

const BATCH = 500;

/**
 * Takes committed, unpublished outbox events in commit order, hands them to `publish`, and marks
 * them published in the same transaction: a crash before the commit publishes them again
 * (at-least-once; receivers deduplicate on the event id). SKIP LOCKED lets several relays run.
 * Webhook jobs are enqueued before the mark too, so a crash cannot lose a delivery; their
 * deterministic job ids make the repeat after a crash a no-op.
 */
export async function relayOnce(em: EntityManager, publish: Publish, enqueueWebhooks?: EnqueueWebhooks): Promise<number> {
  return em.transactional(async (tx) => {
    const rows = await tx.execute<{ id: string; event_id: string; type: string; occurred_at: Date; client_id: number; wall_id: number | null; data: unknown }[]>(
      `select id, event_id, type, occurred_at, client_id, wall_id, data from outbox_event
        where published_at is null order by id limit ${BATCH} for update skip locked`,
    );
    if (rows.length === 0) return 0;
    const events: RelayedEvent[] = rows.map((r) => ({
      id: r.event_id,
      type: r.type,
      occurredAt: new Date(r.occurred_at).toISOString(),
      clientId: r.client_id,
      wallId: r.wall_id,
      data: r.data,
    }));
    await publish(events);
    if (enqueueWebhooks) await enqueueWebhooks(await webhookJobs(tx, events));
    await tx.execute(`update outbox_event set published_at = now() where id in (?)`, [rows.map((r) => r.id)]);
    return rows.length;
  });
}

/** One job per event and matching active subscription of the event's client, in event order. */
async function webhookJobs(tx: EntityManager, events: RelayedEvent[]): Promise<WebhookJob[]> {
  const clientIds = [...new Set(events.map((e) => e.clientId))];
  const subs = await tx.execute<{ id: number; client_id: number; events: string[] }[]>(
    `select id, client_id, events from webhook_subscription where is_active and client_id in (?) order by id`,
    [clientIds],
  );
  if (subs.length === 0) return [];
  const jobs: WebhookJob[] = [];
  for (const event of events) {
    for (const s of subs) {
      if (s.client_id === event.clientId && (s.events.includes('*') || s.events.includes(event.type))) {
        jobs.push({ subscriptionId: s.id, clientId: event.clientId, event });
      }
    }
  }
  return jobs;
}
