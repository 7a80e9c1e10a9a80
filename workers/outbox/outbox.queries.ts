import { query } from '../../shared/db/named-sql';
import type { OutboxEventRow } from '../../shared/events/channels';
import { RELAYED_CHANNEL } from '../pipeline/notifications';

/* The relay's statements (workers/outbox/relay.use-case.ts) and the consumers' (consumer-runner.ts). */

/** A relayed event as the relay and the consumers read it: the outbox row with its id and relay order. */
export type RelayedRow = OutboxEventRow & { id: string; relay_seq: string };

/*
 * One statement, its own transaction: take the relay lock, claim up to :batchSize committed events not
 * relayed yet in id order (per wall the commit order: a command writes its events under the wall's row
 * lock), stamp each with the next relay_seq in that order and the time, and notify the consumers at
 * commit. One relay at a time (a transaction-scoped advisory lock, released at the commit, after the
 * stamps are visible): stamps therefore become visible in relay_seq order, and a consumer that read up
 * to some relay_seq never finds a lower one later. `locked` is false on a stand-by relay.
 * (A CTE that calls a volatile function is evaluated once; the numbering reads the claimed ids in order.)
 */
export const stampOutboxEvents = query<{ batchSize: number }, { locked: boolean; notified: number } & Partial<RelayedRow>>('outbox-stamp', `
with relay_lock as (select pg_try_advisory_xact_lock(hashtext('outbox-relay')) as locked),
claimed as (
  select o.id from outbox_event o, relay_lock
   where relay_lock.locked and o.published_at is null
   order by o.id limit :batchSize::int for update of o skip locked
),
numbered as (select c.id, nextval('outbox_relay_seq') as seq from (select id from claimed order by id) c),
stamped as (
  update outbox_event o set relay_seq = n.seq, published_at = clock_timestamp()
    from numbered n where o.id = n.id
  returning o.id, o.relay_seq, o.event_id, o.type, o.occurred_at, o.client_id, o.wall_id, o.data
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

/*
 * A consumer seen for the first time starts at the current end of the relayed events (the four of this
 * release start at 0: Migration20261125300000 made their rows).
 */
export const registerConsumer = query<{ name: string }>('outbox-consumer-register', `
insert into outbox_consumer (name, position) values (:name::text, coalesce((select max(relay_seq) from outbox_event), 0))
on conflict (name) do nothing`);

/*
 * A consumer's position, locked for its batch's transaction; no row when another process holds it
 * (that one is the active consumer, this one a stand-by).
 */
export const lockConsumerPosition = query<{ name: string }, { position: string }>(
  'outbox-consumer-lock',
  `select position::text from outbox_consumer where name = :name::text for update skip locked`,
);

/*
 * The next batch after :after, as a range of relay_seq (:after, through] holding the next :batchSize
 * relayed events (fewer when there are fewer), and how many it holds. For consumers whose effect is SQL
 * over the range: no event travels to the process.
 */
export const nextRange = query<{ after: string; batchSize: number }, { through: string | null; n: number }>('outbox-next-range', `
with batch as (select relay_seq from outbox_event where relay_seq > :after::bigint order by relay_seq limit :batchSize::int)
select (select max(relay_seq) from batch)::text as through, (select count(*) from batch)::int as n`);

/** One relayed event by its relay order (the record of an event a consumer passes over). */
export const relayedEvent = query<{ seq: string }, RelayedRow>(
  'outbox-relayed-event',
  `select id, relay_seq, event_id, type, occurred_at, client_id, wall_id, data from outbox_event where relay_seq = :seq::bigint`,
);

/*
 * The next batch's events after :after, in relay order, of the given types (all types when :types is
 * null), and the relay_seq the batch reaches: the last event read when the batch is full, else the last
 * relayed event (so a consumer with a filter passes over the events it does not take). One row with
 * null event columns when there is none.
 */
export const nextEvents = query<{ after: string; batchSize: number; types: string[] | null }, { through: string | null } & Partial<RelayedRow>>(
  'outbox-next-events',
  `
with batch as (
  select o.id, o.relay_seq, o.event_id, o.type, o.occurred_at, o.client_id, o.wall_id, o.data
    from outbox_event o
   where o.relay_seq > :after::bigint and (:types::text[] is null or o.type = any(:types::text[]))
   order by o.relay_seq limit :batchSize::int
), reach as (
  select case when (select count(*) from batch) >= :batchSize::int then (select max(relay_seq) from batch)
              else (select max(relay_seq) from outbox_event where relay_seq > :after::bigint) end as through
)
select r.through::text, b.* from reach r left join batch b on true order by b.relay_seq`,
);

/** The consumer's new position, in the transaction of its effect. */
export const saveConsumerPosition = query<{ name: string; position: string }>(
  'outbox-consumer-save',
  `update outbox_consumer set position = :position::bigint, updated_at = now() where name = :name::text`,
);

/*
 * An event a consumer passes over after its attempts, in failed_job (queue `consumer:<name>`, job id the
 * event id), in the transaction that moves the consumer's position past it.
 */
export const recordSkippedEvent = query<{ queue: string; type: string; eventId: string; data: string; error: string; attempts: number }>(
  'outbox-consumer-skipped',
  `insert into failed_job (queue, job_name, job_id, data, error, attempts)
   values (:queue::text, :type::text, :eventId::text, :data::jsonb, :error::text, :attempts::int)
   on conflict (queue, job_id) do update set error = excluded.error, attempts = excluded.attempts, failed_at = now()`,
);

/** Whether the database answers: tells an outage (wait, count nothing) from an event that fails. */
export const databaseAnswers = query<Record<string, never>, { ok: number }>('database-answers', 'select 1 as ok');

/** Whether relayed events wait after the consumer's position: the cheap look of a poll, before any transaction. */
export const consumerHasWork = query<{ name: string }, { work: boolean }>(
  'outbox-consumer-has-work',
  `select exists (select 1 from outbox_consumer c, outbox_event o where c.name = :name::text and o.relay_seq > c.position) as work`,
);
