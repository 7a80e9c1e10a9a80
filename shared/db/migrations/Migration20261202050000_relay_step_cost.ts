import { Migration } from '@mikro-orm/migrations';

/**
 * The relay's step at less cost (docs/architecture.md "Relay order"), same horizon. At one sorter the
 * relay steps once per command that commits an event, and a step that moved the horizon waited for its
 * commit's WAL flush (about as long as the command's own commit) before it could publish to the hubs,
 * on the same disk as the commands' commits.
 *
 * - A step that moves the horizon commits without waiting for the flush (synchronous_commit off for its
 *   transaction). The horizon is derived: every event below it was committed by its own transaction
 *   before the step read the locks, so their commit records come first in the WAL, and a consumer that
 *   saved a position up to it flushed the WAL through the step's record with its own commit. A crash
 *   can lose only a last step nobody durable depends on; the next active relay moves the horizon again
 *   from the sequence and the locks (no writer survives a restart) and publishes its predecessor's last
 *   seconds again, which hubs drop by outbox id.
 * - A step that finds no id handed out above the horizon returns before it reads pg_locks: every id at
 *   or below the horizon is committed or never will be already (the back-up polls of an idle floor).
 */
export class Migration20261202050000_relay_step_cost extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
-- The relay's step (workers/outbox/outbox.queries.ts, outbox-advance): with the relay lock (locked),
-- reads the last id handed out; none above the horizon: done. Else which transactions hold
-- RowExclusiveLock on outbox_event (other than this one). The horizon moves to that id at once when none
-- does; otherwise to the candidate the relay kept from an earlier step (an id read then, and the
-- writers then) once none of those writers holds the lock any more. Returns the horizon before and
-- after, and the candidate to keep: the earlier one while its writers are still at work, else this
-- step's. When it moved: NOTIFY outbox_relayed, and a commit that does not wait for the WAL flush.
create or replace function outbox_advance_horizon(locked boolean, candidate bigint, holders text[])
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
  if handed <= cur then
    return query select cur, cur, null::bigint, null::text[];
    return;
  end if;
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
    -- Until this transaction ends (the statement's own).
    perform set_config('synchronous_commit', 'off', true);
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
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
create or replace function outbox_advance_horizon(locked boolean, candidate bigint, holders text[])
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
`);
  }
}
