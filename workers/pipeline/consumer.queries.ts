import { query } from '../../shared/db/named-sql';
import type { RelayedRow } from '../../shared/events/channels';

/* The statements of every event consumer (consumer-runner.ts): positions, batches, passed-over events. */

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
