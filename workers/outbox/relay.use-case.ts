import type { EntityManager } from '@mikro-orm/postgresql';
import { toWallEvent, type OutboxEventRow, type WallEvent } from '../../shared/events/channels';
import { isPublicEventType } from '../../shared/events/event-types';
import type { JobRequest } from '../../shared/queue/job-queue';
import type { OutboxConsumer } from './consumers';

export type RelayedEvent = WallEvent;

/** Live pub/sub to the hubs' wall channels (public events only). */
export type Publish = (events: RelayedEvent[]) => Promise<void>;

/** Hands jobs to their queues; must be idempotent per job id (jobs.ts derives ids from the event). */
export type Enqueue = (jobs: JobRequest[]) => Promise<void>;

export const RELAY_BATCH = 500;

// One relay at a time: two relays claiming disjoint batches could publish a wall's events out of order.
// A transaction-scoped advisory lock: a relay that dies releases it with its connection.
const RELAY_LOCK = `select pg_try_advisory_xact_lock(hashtext('outbox-relay')) as locked`;

/**
 * Claims committed, unrelayed outbox events in commit order (FOR UPDATE SKIP LOCKED), publishes the
 * public ones to the hubs, enqueues each event once per consumer, and marks them relayed in the same
 * transaction. A crash before the commit relays them again: the jobs' deterministic ids make the
 * second enqueue a no-op and the consumers deduplicate on the event id. Per wall, the id order is the
 * commit order (each command writes its events under the wall's row lock).
 */
export async function relayOnce(
  em: EntityManager,
  publish: Publish,
  enqueue: Enqueue,
  consumers: readonly OutboxConsumer[],
  batchSize = RELAY_BATCH,
): Promise<number> {
  return em.transactional(async (tx) => {
    const [{ locked }] = await tx.execute<{ locked: boolean }[]>(RELAY_LOCK);
    if (!locked) return 0;
    const rows = await tx.execute<(OutboxEventRow & { id: string })[]>(
      `select id, event_id, type, occurred_at, client_id, wall_id, data from outbox_event
        where published_at is null order by id limit ? for update skip locked`,
      [batchSize],
    );
    if (rows.length === 0) return 0;
    const events: RelayedEvent[] = rows.map(toWallEvent);
    const visible = events.filter((e) => isPublicEventType(e.type));
    if (visible.length) await publish(visible);
    const jobs: JobRequest[] = [];
    for (const consumer of consumers) jobs.push(...(await consumer.jobsFor(tx, events)));
    await enqueue(jobs);
    await tx.execute(`update outbox_event set published_at = clock_timestamp() where id in (?)`, [rows.map((r) => r.id)]);
    return rows.length;
  });
}
