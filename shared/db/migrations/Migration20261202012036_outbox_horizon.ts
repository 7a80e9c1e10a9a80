import { Migration } from '@mikro-orm/migrations';

/**
 * The relay order without a second write of every outbox row (docs/architecture.md "Relay order").
 * Consumers, hubs and the relay read events by outbox id up to a horizon (`outbox_horizon.through`)
 * below which every event is committed or never will be: the relay moves it (one row, one update per
 * step) instead of stamping each event with a relay_seq. An id is taken from outbox_event_id_seq by a
 * statement that already holds RowExclusiveLock on outbox_event (taken when the insert is planned, held
 * to its transaction's end), so once every transaction that held that lock when the sequence was read
 * has ended, every id up to that read is final (outbox_advance_horizon).
 *
 * Existing rows: the outbox is locked while this runs (no write in flight). The horizon starts below
 * the first event not relayed yet (or at the last event); each consumer's position becomes the outbox id
 * below the first event it had not passed (relay_seq after its position, or not relayed yet). A consumer
 * that had passed an event above that (relayed out of id order) would read it again: the migration
 * refuses to run then, and says to let the consumers catch up first.
 */
export class Migration20261202012036_outbox_horizon extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
-- The consumers' positions first, then the outbox: the order in which a consumer takes them.
lock table outbox_consumer in exclusive mode;
lock table outbox_event in exclusive mode;

-- A consumer that has passed an event with a higher id than one it has not passed (events relayed out of
-- id order just before the stop) cannot be given an id position without reading one again, and a
-- statistic counted twice or a webhook sent twice is worse than an upgrade refused: then the previous
-- version must run until its consumers have caught up (outbox_consumer_lag_seconds 0), and stop.
do $$
declare
  behind text;
begin
  select string_agg(c.name, ', ' order by c.name) into behind
    from outbox_consumer c
   where exists (
     select 1 from outbox_event passed
      where passed.relay_seq <= c.position
        and passed.id > (select min(o.id) from outbox_event o where o.relay_seq > c.position or (o.relay_seq is null and o.published_at is null)));
  if behind is not null then
    raise exception 'the event consumers % have not caught up with the relayed events: start the previous version until outbox_consumer_lag_seconds is 0 for each, stop every process, then migrate again', behind;
  end if;
end
$$;

create table outbox_horizon (
  only_row boolean primary key default true check (only_row),
  through bigint not null,
  moved_at timestamptz not null default now()
);
insert into outbox_horizon (through)
select coalesce((select min(id) - 1 from outbox_event where relay_seq is null and published_at is null), (select max(id) from outbox_event), 0);

update outbox_consumer c set position = coalesce(
  (select min(o.id) - 1 from outbox_event o where o.relay_seq > c.position or (o.relay_seq is null and o.published_at is null)),
  (select max(id) from outbox_event), 0);

-- Every event's place is its id now; the relayed ones are those up to the horizon.
drop index outbox_event_wall_idx;
create index outbox_event_wall_idx on outbox_event (client_id, wall_id, id);
drop function if exists outbox_stamp_batch(boolean, int);
drop function if exists outbox_relayed_after(bigint, int, text[]);
drop function if exists outbox_relayed_through(bigint);
drop index if exists outbox_event_unpublished_idx;
drop index if exists outbox_event_relay_seq_uq;
alter table outbox_event drop column relay_seq, drop column published_at;
drop sequence if exists outbox_relay_seq;

-- The relay's step (workers/outbox/outbox.queries.ts, outbox-advance): with the relay lock (locked),
-- reads the last id handed out, then which transactions hold RowExclusiveLock on outbox_event (other
-- than this one). The horizon moves to that id at once when none does; otherwise to the candidate the
-- relay kept from an earlier step (an id read then, and the writers then) once none of those writers
-- holds the lock any more. Returns the horizon before and after, and the candidate to keep: the
-- earlier one while its writers are still at work, else this step's. NOTIFY outbox_relayed when it moved.
create function outbox_advance_horizon(locked boolean, candidate bigint, holders text[])
returns table (before bigint, through bigint, next_candidate bigint, next_holders text[])
language plpgsql volatile
as $$
declare
  cur bigint;
  handed bigint;
  writers text[];
  target bigint;
begin
  if not locked then
    return;
  end if;
  select h.through into cur from outbox_horizon h;
  -- First the sequence, then the locks: an id handed out by then belongs to a transaction that holds the lock now, or has ended.
  select case when s.is_called then s.last_value else 0 end into handed from outbox_event_id_seq s;
  select array_agg(distinct l.virtualtransaction) into writers
    from pg_locks l
   where l.locktype = 'relation' and l.relation = 'outbox_event'::regclass and l.mode = 'RowExclusiveLock'
     and l.database = (select d.oid from pg_database d where d.datname = current_database())
     and l.pid is distinct from pg_backend_pid();
  target := cur;
  if writers is null then
    target := greatest(cur, handed);
  elsif candidate is not null and not (holders && writers) then
    target := greatest(cur, candidate);
  end if;
  if target > cur then
    update outbox_horizon set through = target, moved_at = clock_timestamp();
    perform pg_notify('outbox_relayed', '');
  end if;
  if writers is null then
    return query select cur, target, null::bigint, null::text[];
  elsif candidate is not null and candidate > target and holders && writers then
    return query select cur, target, candidate, holders;
  else
    return query select cur, target, handed, writers;
  end if;
end
$$;

-- Events after id after, up to through, of the given types (every type when types is null), in id
-- order, at most batch_size: a walk of the primary key from after, whatever the statistics.
create function outbox_events_after(after bigint, through bigint, batch_size int, types text[]) returns setof outbox_event
language plpgsql stable
set enable_seqscan = off set enable_bitmapscan = off
as $$
begin
  return query
  select o.* from outbox_event o
   where o.id > after and o.id <= through and (types is null or o.type = any(types))
   order by o.id limit batch_size;
end
$$;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop function if exists outbox_events_after(bigint, bigint, int, text[]);
drop function if exists outbox_advance_horizon(boolean, bigint, text[]);
create sequence outbox_relay_seq;
alter table outbox_event add column relay_seq bigint null, add column published_at timestamptz null;
update outbox_event o set relay_seq = nextval('outbox_relay_seq'), published_at = now()
  from (select id from outbox_event where id <= (select through from outbox_horizon) order by id) r where o.id = r.id;
create unique index outbox_event_relay_seq_uq on outbox_event (relay_seq) where relay_seq is not null;
create index outbox_event_unpublished_idx on outbox_event (id) where published_at is null;
drop index outbox_event_wall_idx;
create index outbox_event_wall_idx on outbox_event (client_id, wall_id, id) where relay_seq is not null;
update outbox_consumer c set position = coalesce((select max(o.relay_seq) from outbox_event o where o.id <= c.position), 0);
drop table outbox_horizon;
`);
  }
}
