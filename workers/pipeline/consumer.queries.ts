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
 * over the range: no event travels to the process. (outbox_relayed_after: an ordered walk of the
 * relay_seq index from :after, whatever the statistics; Migration20261125500000.)
 */
export const nextRange = query<{ after: string; batchSize: number }, { through: string | null; n: number }>('outbox-next-range', `
with batch as (select relay_seq from outbox_relayed_after(:after::bigint, :batchSize::int, null))
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
 * null event columns when there is none. Both reads walk the relay_seq index from :after and stop
 * there, whatever the statistics (outbox_relayed_after and outbox_relayed_through, Migration20261125500000).
 */
export const nextEvents = query<{ after: string; batchSize: number; types: string[] | null }, { through: string | null } & Partial<RelayedRow>>(
  'outbox-next-events',
  `
with batch as (
  select b.id, b.relay_seq, b.event_id, b.type, b.occurred_at, b.client_id, b.wall_id, b.data
    from outbox_relayed_after(:after::bigint, :batchSize::int, :types::text[]) b
), reach as (
  select case when (select count(*) from batch) >= :batchSize::int then (select max(relay_seq) from batch)
              else outbox_relayed_through(:after::bigint) end as through
)
select r.through::text, b.* from reach r left join batch b on true order by b.relay_seq`,
);

/** The consumer's new position, in the transaction of its effect. */
export const saveConsumerPosition = query<{ name: string; position: string }>(
  'outbox-consumer-save',
  `update outbox_consumer set position = :position::bigint, updated_at = now() where name = :name::text`,
);


/*
 * Whether relayed events may wait after the consumer's position: the cheap look of a poll, before any
 * transaction. It compares with the last relay_seq handed out (the sequence itself: one page, however
 * large the outbox), so it never misses work; it may see some that is not visible yet (a stamp not
 * committed, or lost), and the batch that follows then finds nothing and moves nothing.
 */
export const consumerHasWork = query<{ name: string }, { work: boolean }>(
  'outbox-consumer-has-work',
  `select c.position < (select case when s.is_called then s.last_value else 0 end from outbox_relay_seq s) as work
     from outbox_consumer c where c.name = :name::text`,
);
