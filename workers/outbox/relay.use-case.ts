import type { SqlDatabase } from '../../shared/db/named-sql';
import { toWallEvent, type WallEvent } from '../../shared/events/channels';
import type { JobRequest } from '../../shared/queue/job-queue';
import type { OutboxConsumer } from './consumers';
import { claimOutboxEvents, markOutboxRelayed } from './outbox.queries';

/** Live pub/sub to the hubs' wall channels (every event: hubs show refusals and device state too). */
export type Publish = (events: WallEvent[]) => Promise<void>;

/** Hands jobs to their queues; must be idempotent per job id (jobs.ts derives ids from the events). */
export type Enqueue = (jobs: JobRequest[]) => Promise<void>;

export const RELAY_BATCH = 500;

/**
 * Claims committed, unrelayed outbox events in commit order, publishes them to the hubs,
 * enqueues the consumers' jobs (one per batch and consumer, one per webhook delivery), and marks them
 * relayed in the same transaction: two statements besides begin and commit, and one Redis round trip's
 * wait, per batch (one more statement when it has public events: the webhook subscriptions). A crash
 * before the commit relays them again: the jobs' deterministic ids make a second enqueue of the same
 * batch a no-op and the consumers deduplicate on the event id. Per wall, the id order is the commit
 * order (each command writes its events under the wall's row lock). Named plain SQL
 * (outbox.queries.ts) in one transaction of `db` (runtime.ormSql: the ORM's pool).
 */
export async function relayOnce(
  db: SqlDatabase,
  publish: Publish,
  enqueue: Enqueue,
  consumers: readonly OutboxConsumer[],
  batchSize = RELAY_BATCH,
): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await claimOutboxEvents(tx, { batchSize });
    if (rows.length === 0) return 0;
    const events: WallEvent[] = rows.map(toWallEvent);
    const jobs: JobRequest[] = [];
    for (const consumer of consumers) for (const job of await consumer.jobsFor(tx, events)) jobs.push(job);
    // Hubs and queues at once: one round trip's wait, not two.
    await Promise.all([publish(events), enqueue(jobs)]);
    await markOutboxRelayed(tx, { ids: rows.map((r) => r.id) });
    return rows.length;
  });
}
