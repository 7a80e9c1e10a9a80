import type { EntityManager } from '@mikro-orm/postgresql';
import { boundSql } from '../../shared/db/bound-sql';
import { toWallEvent, type OutboxEventRow, type WallEvent } from '../../shared/events/channels';
import { isPublicEventType } from '../../shared/events/event-types';
import type { JobRequest } from '../../shared/queue/job-queue';
import type { OutboxConsumer } from './consumers';

export type RelayedEvent = WallEvent;

/** Live pub/sub to the hubs' wall channels (public events only). */
export type Publish = (events: RelayedEvent[]) => Promise<void>;

/** Hands jobs to their queues; must be idempotent per job id (jobs.ts derives ids from the events). */
export type Enqueue = (jobs: JobRequest[]) => Promise<void>;

export const RELAY_BATCH = 500;

/*
 * One statement: take the relay lock and claim committed, unrelayed events in commit order (FOR UPDATE
 * SKIP LOCKED). One relay at a time: two relays claiming disjoint batches could publish a wall's events
 * out of order. A transaction-scoped advisory lock: a relay that dies releases it with its connection.
 * (A CTE that calls a volatile function is evaluated once.)
 */
const CLAIM_SQL = `
with relay_lock as (select pg_try_advisory_xact_lock(hashtext('outbox-relay')) as locked)
select o.id, o.event_id, o.type, o.occurred_at, o.client_id, o.wall_id, o.data
  from outbox_event o, relay_lock
 where relay_lock.locked and o.published_at is null
 order by o.id limit ? for update of o skip locked`;

// After the batch is published and enqueued: published_at is when it went out. One array parameter.
const MARK_SQL = `update outbox_event set published_at = clock_timestamp() where id = any(?::bigint[])`;

/**
 * Claims committed, unrelayed outbox events in commit order, publishes the public ones to the hubs,
 * enqueues the consumers' jobs (one per batch and consumer, one per webhook delivery), and marks them
 * relayed in the same transaction: two statements besides begin and commit, and one Redis round trip's
 * wait, per batch (one more statement when it has public events: the webhook subscriptions). A crash
 * before the commit relays them again: the jobs' deterministic ids make a second enqueue of the same
 * batch a no-op and the consumers deduplicate on the event id. Per wall, the id order is the commit order (each command writes its events under the
 * wall's row lock).
 */
export async function relayOnce(
  em: EntityManager,
  publish: Publish,
  enqueue: Enqueue,
  consumers: readonly OutboxConsumer[],
  batchSize = RELAY_BATCH,
): Promise<number> {
  return em.transactional(async (tx) => {
    const { rows } = await boundSql<OutboxEventRow & { id: string }>(tx, CLAIM_SQL, [batchSize]);
    if (rows.length === 0) return 0;
    const events: RelayedEvent[] = new Array(rows.length);
    const visible: RelayedEvent[] = [];
    for (let i = 0; i < rows.length; i++) {
      const e = (events[i] = toWallEvent(rows[i]));
      if (isPublicEventType(e.type)) visible.push(e);
    }
    const jobs: JobRequest[] = [];
    for (const consumer of consumers) for (const job of await consumer.jobsFor(tx, events)) jobs.push(job);
    // Hubs and queues at once: one round trip's wait, not two.
    await Promise.all([visible.length ? publish(visible) : undefined, enqueue(jobs)]);
    await boundSql(tx, MARK_SQL, [`{${rows.map((r) => r.id).join(',')}}`]);
    return rows.length;
  });
}
