import { query } from '../../shared/db/named-sql';
import type { RelayedRow } from '../../shared/events/channels';
import { RELAYED_CHANNEL } from '../pipeline/notifications';

/* The relay's statements (relay.use-case.ts); the consumers' are workers/pipeline/consumer.queries.ts. */

/*
 * One statement, its own transaction: take the relay lock, claim up to :batchSize committed events not
 * relayed yet in id order (per wall the commit order: a command writes its events under the wall's row
 * lock), stamp each with the next relay_seq in that order and the time, and notify the consumers at
 * commit. One relay at a time (a transaction-scoped advisory lock, released at the commit, after the
 * stamps are visible): stamps therefore become visible in relay_seq order, and a consumer that read up
 * to some relay_seq never finds a lower one later. `locked` is false on a stand-by relay.
 * The claim and stamp are outbox_stamp_batch (Migration20261125500000): its plan walks the unpublished
 * index in order and stops after the batch, whatever the statistics; the lock is taken first (a CTE
 * that calls a volatile function is evaluated once) and handed to it.
 */
export const stampOutboxEvents = query<{ batchSize: number }, { locked: boolean; notified: number } & Partial<RelayedRow>>('outbox-stamp', `
with relay_lock as (select pg_try_advisory_xact_lock(hashtext('outbox-relay')) as locked),
stamped as (
  select s.id, s.relay_seq, s.event_id, s.type, s.occurred_at, s.client_id, s.wall_id, s.data
    from relay_lock l, outbox_stamp_batch(l.locked, :batchSize::int) s
)
select l.locked, (select count(*) from (select pg_notify('${RELAYED_CHANNEL}', '') from (select 1 from stamped limit 1) one) n)::int as notified, s.*
  from relay_lock l left join stamped s on true
 order by s.relay_seq`);

/*
 * The events the previous relay stamped in its last 5 seconds of work (at most 1000; before relay_seq
 * :before, the first this relay stamped, or all when it stamped none), for a relay that has just taken
 * over: its predecessor may have died between its commit and its publish. Hub connections drop what
 * they already sent (by outbox id).
 */
export const recentlyRelayed = query<{ before: string | null }, RelayedRow>('outbox-recently-relayed', `
with last as (
  select * from outbox_event
   where relay_seq is not null and (:before::bigint is null or relay_seq < :before::bigint)
   order by relay_seq desc limit 1000
)
select id, relay_seq, event_id, type, occurred_at, client_id, wall_id, data from last
 where published_at >= (select max(published_at) from last) - interval '5 seconds'
 order by relay_seq`);
