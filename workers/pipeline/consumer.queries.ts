import { query } from '../../shared/db/named-sql';
import type { RelayedRow } from '../../shared/events/channels';

/*
 * The statements of every event consumer (consumer-runner.ts): positions, batches, passed-over events.
 * A position is an outbox id: the consumer has passed every event at or below it. Events are read by id
 * up to the relay's horizon (outbox_horizon.through: every event at or below it is committed, or never
 * will be; docs/architecture.md "Relay order"), so none committed later can appear below a position.
 */

/** A consumer seen for the first time starts at the horizon: the current end of the relayed events. */
export const registerConsumer = query<{ name: string }>('outbox-consumer-register', `
insert into outbox_consumer (name, position) values (:name::text, coalesce((select through from outbox_horizon), 0))
on conflict (name) do nothing`);

/*
 * A consumer's position, locked for its batch's transaction; no row when another process holds it
 * (that one is the active consumer, this one a stand-by). The batch's commit does not wait for its WAL
 * flush (synchronous_commit off to the transaction's end): what a batch writes is derived from events
 * committed before it, and a crash that loses it loses its position with it, so the batch runs again
 * (an effect in PostgreSQL still exactly once, one outside at least once, as ever). At one sorter each
 * command is followed by a batch or two, whose flushes the next command's commit used to wait behind.
 */
export const lockConsumerPosition = query<{ name: string }, { position: string }>(
  'outbox-consumer-lock',
  `select position::text, set_config('synchronous_commit', 'off', true) as commit_mode
  from outbox_consumer where name = :name::text for update skip locked`,
);

/*
 * The next batch after :after, as a range of outbox ids (:after, through] holding the next :batchSize
 * relayed events (fewer when there are fewer: then through is the horizon, so ids no event holds, those
 * of rolled-back writes, are passed too), and how many it holds. For consumers whose effect is SQL
 * over the range: no event travels to the process. (outbox_events_after: an ordered walk of the primary
 * key from :after up to the horizon, whatever the statistics; Migration20261202012036.)
 */
export const nextRange = query<{ after: string; batchSize: number }, { through: string | null; n: number }>('outbox-next-range', `
with h as (select through from outbox_horizon),
     batch as (select id from outbox_events_after(:after::bigint, (select through from h), :batchSize::int, null))
select (case when (select count(*) from batch) >= :batchSize::int then (select max(id) from batch) else (select through from h) end)::text as through,
       (select count(*) from batch)::int as n`);

/** One relayed event by its outbox id (the record of an event a consumer passes over). */
export const relayedEvent = query<{ id: string }, RelayedRow>(
  'outbox-relayed-event',
  `select id::text, event_id, type, occurred_at, client_id, wall_id, data from outbox_event where id = :id::bigint`,
);

/*
 * A consumer's position, locked for its batch's transaction as outbox-consumer-lock does (no row when
 * another process holds it; the batch's commit does not wait for its WAL flush), and in the same round
 * trip the next batch's events after it, in id order, of the given types (all types when :types is
 * null), with the outbox id the batch reaches: the last event read when the batch is full, else the
 * horizon (so a consumer with a filter passes over the events it does not take, and the ids no event
 * holds). One row with null event columns when there is none. The horizon and the events are read in
 * one snapshot: every event at or below the horizon it sees is visible in it. The position is the row's
 * latest (a lock waits for no one here, and a row another transaction moved since the snapshot is read
 * as it is now): at most the horizon of a later snapshot, so a batch never reaches below it. A consumer
 * that saves its position only now and then (`positionSaveMs`: effects outside PostgreSQL, at least
 * once) reads after what it has handled itself, :known, when that is further than the saved position.
 */
export const nextEvents = query<
  { name: string; known: string | null; batchSize: number; types: string[] | null },
  { saved: string; position: string; through: string | null } & Partial<RelayedRow>
>(
  'outbox-next-events',
  `
with c as materialized (
  select position as saved, greatest(position, coalesce(:known::bigint, position)) as position,
         set_config('synchronous_commit', 'off', true) as commit_mode
    from outbox_consumer where name = :name::text for update skip locked
), horizon as (select through from outbox_horizon), batch as (
  select b.id, b.event_id, b.type, b.occurred_at, b.client_id, b.wall_id, b.data
    from c, outbox_events_after(c.position, (select through from horizon), :batchSize::int, :types::text[]) b
), reach as (
  select case when (select count(*) from batch) >= :batchSize::int then (select max(id) from batch)
              else (select through from horizon) end as through
)
select c.saved::text, c.position::text, r.through::text, b.id::text, b.event_id, b.type, b.occurred_at, b.client_id, b.wall_id, b.data
  from c cross join reach r left join batch b on true order by b.id`,
);

/** The consumer's new position, in the transaction of its effect. */
export const saveConsumerPosition = query<{ name: string; position: string }>(
  'outbox-consumer-save',
  `update outbox_consumer set position = :position::bigint, updated_at = now() where name = :name::text`,
);

/*
 * For a consumer that saves its position now and then (positionSaveMs): the position it has handled
 * itself, saved in one statement of its own, unless another process holds the consumer's row (no row
 * returned: this process is a stand-by) or the saved one is already further. Its commit does not wait
 * for the WAL flush: a crash that loses it hands the last events again, as a later save would.
 */
export const saveHandledPosition = query<{ name: string; position: string }, { saved: string }>(
  'outbox-consumer-save-handled',
  `
with c as materialized (
  select name, position, set_config('synchronous_commit', 'off', true) as commit_mode
    from outbox_consumer where name = :name::text for update skip locked
), moved as (
  update outbox_consumer o set position = :position::bigint, updated_at = now()
    from c where o.name = c.name and c.position < :position::bigint
  returning o.position
)
select coalesce((select position from moved), c.position)::text as saved from c`,
);

/*
 * Whether relayed events may wait after the consumer's position: the cheap look of a poll, before any
 * transaction. It compares with the horizon (one row), so it never misses work; it may see a range that
 * holds no event of the consumer's (ids of rolled-back writes, types it does not take): the batch that
 * follows then moves its position to the horizon.
 */
export const consumerHasWork = query<{ name: string }, { work: boolean }>(
  'outbox-consumer-has-work',
  `select c.position < coalesce((select h.through from outbox_horizon h), 0) as work
     from outbox_consumer c where c.name = :name::text`,
);
