import { query } from '../../shared/db/named-sql';
import type { RelayedRow } from '../../shared/events/channels';

/* The relay's statements (relay.use-case.ts); the consumers' are workers/pipeline/consumer.queries.ts. */

/*
 * One statement, its own transaction, one call (outbox_relay_locked_step, Migration20261203060000): take
 * the relay lock and move the horizon (outbox_horizon.through: every event at or below it is committed or
 * never will be), the function outbox_advance_horizon (Migration20261202111442). It reads the last outbox
 * id handed out, then the committed ids right above the horizon, in a row: the horizon moves to the last
 * of them (to that id when none is missing). Only when the first missing one is the one the relay's
 * previous step found missing (:gap; null for a relay without memory) does it read which transactions
 * hold the outbox's write lock: the horizon moves to the last id handed out when none does, or to the
 * candidate the relay kept (:candidate, read with its writers :holders at an earlier look) once none of
 * those still does; NOTIFY outbox_relayed at commit unless :notify is 'off' (for this transaction: no
 * process but the relay's own listens; the migration Migration20261202232000_relay_notify_when_heard).
 * Then the events after :after up to the new horizon, in id order (the order the function returns
 * them), at most :batchSize, read in a query of its own whose snapshot holds them all (none when :after
 * is null). One row per event, each with the step's columns (the horizon before and after, the
 * candidate and the missing id to keep); one row with a null id when there is none; `locked` false and
 * nothing else on a stand-by relay (the lock is another's). One relay at a time, so the horizon only
 * moves forward; no outbox row is written.
 */
export const advanceHorizon = query<
  { candidate: string | null; holders: string[] | null; gap: string | null; after: string | null; batchSize: number; notify: 'on' | 'off' },
  { locked: boolean; before: string | null; through: string | null; next_candidate: string | null; next_holders: string[] | null; next_gap: string | null } & Partial<RelayedRow>
>('outbox-advance', `
select locked, before::text, through::text, next_candidate::text, next_holders, next_gap::text,
       id::text, event_id, type, occurred_at, client_id, wall_id, data
  from outbox_relay_locked_step(:candidate::bigint, :holders::text[], :gap::bigint, :after::bigint, :batchSize::int, :notify::text)`);

/*
 * The relayed events after outbox id :after up to :through, in id order, at most :batchSize (a walk of
 * the primary key: outbox_events_after): what the first step of a relay that has just become the active
 * one moved the horizon past, read in a statement after that step's commit, so its snapshot holds them.
 */
export const relayedBetween = query<{ after: string; through: string; batchSize: number }, RelayedRow>('outbox-relayed-between', `
select id::text, event_id, type, occurred_at, client_id, wall_id, data
  from outbox_events_after(:after::bigint, :through::bigint, :batchSize::int, null)`);

/*
 * The events the previous relay published in its last 5 seconds of work (at most 1000, at or below
 * outbox id :through, the horizon this relay found), for a relay that has just taken over: its
 * predecessor may have died between moving the horizon and publishing. Hub connections drop what they
 * already sent (by outbox id).
 */
export const recentlyRelayed = query<{ through: string }, RelayedRow>('outbox-recently-relayed', `
with last as (
  select * from outbox_event where id <= :through::bigint order by id desc limit 1000
)
select id::text, event_id, type, occurred_at, client_id, wall_id, data from last
 where occurred_at >= (select max(occurred_at) from last) - interval '5 seconds'
 -- last.id, the bigint: a bare "id" here names the output column, the text, and 10 sorted before 9.
 order by last.id`);

/*
 * Whether a listening connection of another process is on this database (application_name :listener,
 * the listener of workers/pipeline/notifications.ts, other than the one of backend :own): a light
 * gateway there waits for the relay's NOTIFY. Every role reads every backend's application_name.
 */
export const otherListeners = query<{ listener: string; own: number | null }, { others: boolean }>('outbox-other-listeners', `
select exists (
  select 1 from pg_stat_activity a
   where a.datname = current_database() and a.application_name = :listener::text and a.pid is distinct from :own::int
) as others`);
