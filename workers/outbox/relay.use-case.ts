import type { EntityManager } from '@mikro-orm/postgresql';

import type { WallEvent } from '../../shared/events/channels';

export type RelayedEvent = WallEvent;

export type Publish = (events: RelayedEvent[]) => Promise<void>;

const BATCH = 500;

/**
 * Takes committed, unpublished outbox events in commit order, hands them to `publish`, and marks
 * them published in the same transaction: a crash before the commit publishes them again
 * (at-least-once; receivers deduplicate on the event id). SKIP LOCKED lets several relays run.
 */
export async function relayOnce(em: EntityManager, publish: Publish): Promise<number> {
  return em.transactional(async (tx) => {
    const rows = await tx.execute<{ id: string; event_id: string; type: string; occurred_at: Date; client_id: number; wall_id: number | null; data: unknown }[]>(
      `select id, event_id, type, occurred_at, client_id, wall_id, data from outbox_event
        where published_at is null order by id limit ${BATCH} for update skip locked`,
    );
    if (rows.length === 0) return 0;
    await publish(
      rows.map((r) => ({
        id: r.event_id,
        type: r.type,
        occurredAt: new Date(r.occurred_at).toISOString(),
        clientId: r.client_id,
        wallId: r.wall_id,
        data: r.data,
      })),
    );
    await tx.execute(`update outbox_event set published_at = now() where id in (?)`, [rows.map((r) => r.id)]);
    return rows.length;
  });
}
