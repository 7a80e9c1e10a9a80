import { Migration } from '@mikro-orm/migrations';

/**
 * The relay's step reads the lock table only when the outbox ids above the horizon stay unfinished
 * (docs/architecture.md "Relay order"), same horizon rule. Under load the relay steps every 10 ms and
 * every step read `pg_locks` (the whole lock table, every backend's fast-path slots), most of the
 * step's time, although the ids it passed were usually committed already.
 *
 * outbox_advance_horizon now first counts the committed ids right above the horizon, in a row (a walk
 * of the primary key from the horizon up to the last id handed out): every one of them is committed, so
 * the horizon moves to the last of them with no look at the locks. Only when an id in between is not
 * there (its writer is still at work, or rolled back) and was already the first missing one at the
 * relay's previous step (`gap`) does it read the lock table as before: no writer, and every id handed
 * out is final; the candidate and its writers otherwise. A relay without memory of a previous step
 * (`gap` null) reads it at the first missing id at once.
 *
 * The run is a walk of the primary key whatever the statistics say (outbox_committed_run, with
 * enable_seqscan off as outbox_events_after: an outbox analyzed while nearly empty). The step's
 * function, the run and outbox_events_after (every consumer's read, and the step's own) keep their
 * generic plans (plan_cache_mode): a PL/pgSQL query with parameters is otherwise planned anew at every call
 * while its custom plan looks cheaper than the generic one, which a range of the primary key always
 * does; the plan is the same walk of the key, and the planning cost 0.04 ms (the read) to 0.13 ms (the
 * step) of the backend's CPU a call, measured one call after the other on a table of 200,000 events.
 */
export class Migration20261202111442_relay_step_committed_run extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
drop function if exists outbox_relay_step(boolean, bigint, text[], bigint, int);
drop function if exists outbox_advance_horizon(boolean, bigint, text[]);

-- The last of the committed outbox ids right above after, in a row, up to through (after itself when
-- the next is missing; at most 10,000 looked at). Ids are unique, so the k-th row after holds after + k
-- exactly while none is missing. A walk of the primary key whatever the statistics say (an outbox
-- analyzed while nearly empty), with its generic plan. Only this query disables the sequential scan: a
-- statement that can only scan (the horizon's one row) would be costed past the JIT's threshold.
create function outbox_committed_run(after bigint, through bigint) returns bigint
language plpgsql stable
set enable_seqscan = off set enable_bitmapscan = off set plan_cache_mode = force_generic_plan
as $$
begin
  return (select after + count(*)
            from (select e.id, row_number() over (order by e.id) as k
                    from (select o.id from outbox_event o where o.id > after and o.id <= through order by o.id limit 10000) e) r
           where r.id = after + r.k);
end
$$;

-- The relay's step (workers/outbox/outbox.queries.ts, outbox-advance): with the relay lock (locked),
-- reads the last id handed out; none above the horizon: done. Then the committed ids right above the
-- horizon, in a row: when they reach that id, the horizon moves to it. Else the horizon moves to the
-- last of them, and when the first id missing after them is the one the relay's previous step found
-- missing (gap; null: a relay without memory), the lock table too: which transactions hold
-- RowExclusiveLock on outbox_event (other than this one). None: the horizon moves to the last id handed
-- out; otherwise to the candidate the relay kept from an earlier look at the locks (an id read then, and
-- the writers then) once none of those writers holds the lock any more. Returns the horizon before and
-- after, the candidate to keep, and the first id missing when the horizon stopped below it. When it
-- moved: NOTIFY outbox_relayed, and a commit that does not wait for the WAL flush.
create function outbox_advance_horizon(locked boolean, candidate bigint, holders text[], gap bigint)
returns table (before bigint, through bigint, next_candidate bigint, next_holders text[], next_gap bigint)
language plpgsql volatile
set plan_cache_mode = force_generic_plan
as $$
declare
  cur bigint;
  handed bigint;
  run bigint;
  writers text[];
  target bigint;
  keep_candidate bigint;
  keep_holders text[];
begin
  if not locked then
    return;
  end if;
  select h.through into cur from outbox_horizon h;
  -- First the sequence, then the rows and the locks: an id handed out by then belongs to a transaction
  -- that holds the lock now, or has ended (committed: its row is there).
  select case when s.is_called then s.last_value else 0 end into handed from outbox_event_id_seq s;
  if handed <= cur then
    return query select cur, cur, null::bigint, null::text[], 0::bigint;
    return;
  end if;
  -- The committed ids right above the horizon, in a row (a query of its own: a snapshot taken after the
  -- sequence was read).
  run := outbox_committed_run(cur, handed);
  keep_candidate := candidate;
  keep_holders := holders;
  if run >= handed then
    target := handed;
    keep_candidate := null;
    keep_holders := null;
  elsif gap is not null and gap <> run + 1 then
    -- A new first missing id: its writer is most likely at work; the locks only if it is still missing at the next step.
    target := run;
  else
    select array_agg(distinct l.virtualtransaction) into writers
      from pg_locks l
     where l.locktype = 'relation' and l.relation = 'outbox_event'::regclass and l.mode = 'RowExclusiveLock'
       and l.database = (select d.oid from pg_database d where d.datname = current_database())
       and l.pid is distinct from pg_backend_pid();
    if writers is null then
      target := handed;
      keep_candidate := null;
      keep_holders := null;
    else
      target := run;
      if candidate is not null and not (holders && writers) then
        target := greatest(run, candidate);
      end if;
      -- The candidate to keep: the earlier one while its writers are still at work, else this look's.
      if not (candidate is not null and candidate > target and holders && writers) then
        keep_candidate := handed;
        keep_holders := writers;
      end if;
    end if;
  end if;
  if keep_candidate <= target then
    keep_candidate := null;
    keep_holders := null;
  end if;
  if target > cur then
    -- Until this transaction ends (the statement's own).
    perform set_config('synchronous_commit', 'off', true);
    update outbox_horizon set through = target, moved_at = clock_timestamp();
    perform pg_notify('outbox_relayed', '');
  end if;
  -- The first missing id when the horizon stopped right below it, else 0.
  return query select cur, target, keep_candidate, keep_holders, case when target = run and run < handed then run + 1 else 0 end;
end
$$;

-- The relay's step: outbox_advance_horizon, then the events after read_after up to the horizon (at most
-- batch_size, in id order) in a query of its own, one row each, each with the step's columns; one row
-- with a null event when there are none (or read_after is null: a relay that has just become the active
-- one reads after its commit). No row on a stand-by (not locked).
create function outbox_relay_step(locked boolean, candidate bigint, holders text[], gap bigint, read_after bigint, batch_size int)
returns table (before bigint, through bigint, next_candidate bigint, next_holders text[], next_gap bigint, ev outbox_event)
language plpgsql volatile
as $$
declare
  s record;
  n int := 0;
begin
  select h.before, h.through, h.next_candidate, h.next_holders, h.next_gap into s from outbox_advance_horizon(locked, candidate, holders, gap) h;
  if not found then
    return;
  end if;
  if read_after is not null and s.through > read_after then
    -- A query of its own: a snapshot taken after the lock table was read.
    return query select s.before, s.through, s.next_candidate, s.next_holders, s.next_gap, e
      from outbox_events_after(read_after, s.through, batch_size, null) e;
    get diagnostics n = row_count;
  end if;
  if n = 0 then
    return query select s.before, s.through, s.next_candidate, s.next_holders, s.next_gap, null::outbox_event;
  end if;
end
$$;

-- The consumers' and the relay's read of the events after a position: its one plan, the walk of the
-- primary key (enable_seqscan off), kept as the generic plan instead of planned anew for each call.
alter function outbox_events_after(bigint, bigint, int, text[]) set plan_cache_mode = force_generic_plan;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
alter function outbox_events_after(bigint, bigint, int, text[]) reset plan_cache_mode;
drop function if exists outbox_relay_step(boolean, bigint, text[], bigint, bigint, int);
drop function if exists outbox_advance_horizon(boolean, bigint, text[], bigint);
drop function if exists outbox_committed_run(bigint, bigint);

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

create function outbox_relay_step(locked boolean, candidate bigint, holders text[], read_after bigint, batch_size int)
returns table (before bigint, through bigint, next_candidate bigint, next_holders text[], ev outbox_event)
language plpgsql volatile
as $$
declare
  s record;
  n int := 0;
begin
  select h.before, h.through, h.next_candidate, h.next_holders into s from outbox_advance_horizon(locked, candidate, holders) h;
  if not found then
    return;
  end if;
  if read_after is not null and s.through > read_after then
    return query select s.before, s.through, s.next_candidate, s.next_holders, e
      from outbox_events_after(read_after, s.through, batch_size, null) e;
    get diagnostics n = row_count;
  end if;
  if n = 0 then
    return query select s.before, s.through, s.next_candidate, s.next_holders, null::outbox_event;
  end if;
end
$$;
`);
  }
}
