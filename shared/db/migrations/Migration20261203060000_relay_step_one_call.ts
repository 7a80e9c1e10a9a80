import { Migration } from '@mikro-orm/migrations';

/**
 * The relay's step as one call of one function (docs/architecture.md "Relay order"). The step's
 * statement took the relay lock and set `sorting.relay_notify` in a CTE, then joined
 * outbox_relay_step laterally and sorted its rows: a statement the backend plans at every call when
 * statements are not prepared (DATABASE_PREPARED_STATEMENTS=false, behind an older PgBouncer), and
 * runs through a join and a sort when they are. At one sorter the relay steps once per command, as
 * often as the command's own write. The backend's CPU per step, one step after each committed event
 * (`RELAY_STEP_PREVIOUS=1 npx tsx bench/relay-step-cpu.ts`, three rounds): unnamed statements
 * 0.46–0.53 ms before, 0.31–0.44 after; prepared ones 0.235–0.25 before, 0.225–0.235 after.
 *
 * outbox_relay_locked_step does the same in PL/pgSQL: the lock (one row, `locked` false and nothing
 * else, on a stand-by), the notification setting for the step's transaction, outbox_advance_horizon,
 * then the events after read_after up to the new horizon in a query of its own (outbox_events_after,
 * in id order: the rows come back in the order the function returns them), else one row without an
 * event. The same columns as before, the event's fields as columns of their own. outbox_relay_step
 * stays for a relay of the previous version during a rolling update.
 */
export class Migration20261203060000_relay_step_one_call extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create function outbox_relay_locked_step(candidate bigint, holders text[], gap bigint, read_after bigint, batch_size int, notify text)
returns table (locked boolean, before bigint, through bigint, next_candidate bigint, next_holders text[], next_gap bigint,
               id bigint, event_id uuid, type text, occurred_at timestamptz, client_id int, wall_id int, data jsonb)
language plpgsql volatile
set plan_cache_mode = force_generic_plan
as $$
declare
  s record;
  n int := 0;
begin
  if not pg_try_advisory_xact_lock(hashtext('outbox-relay')) then
    return query select false, null::bigint, null::bigint, null::bigint, null::text[], null::bigint,
                        null::bigint, null::uuid, null::text, null::timestamptz, null::int, null::int, null::jsonb;
    return;
  end if;
  -- Read by outbox_advance_horizon's NOTIFY (Migration20261202232000_relay_notify_when_heard), for this transaction.
  perform set_config('sorting.relay_notify', notify, true);
  select h.before, h.through, h.next_candidate, h.next_holders, h.next_gap into s
    from outbox_advance_horizon(true, candidate, holders, gap) h;
  if read_after is not null and s.through > read_after then
    -- A query of its own: a snapshot taken after the horizon moved.
    return query select true, s.before, s.through, s.next_candidate, s.next_holders, s.next_gap,
                        e.id, e.event_id, e.type, e.occurred_at, e.client_id, e.wall_id, e.data
                   from outbox_events_after(read_after, s.through, batch_size, null) e;
    get diagnostics n = row_count;
  end if;
  if n = 0 then
    return query select true, s.before, s.through, s.next_candidate, s.next_holders, s.next_gap,
                        null::bigint, null::uuid, null::text, null::timestamptz, null::int, null::int, null::jsonb;
  end if;
end
$$;
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists outbox_relay_locked_step(bigint, text[], bigint, bigint, int, text);');
  }
}
