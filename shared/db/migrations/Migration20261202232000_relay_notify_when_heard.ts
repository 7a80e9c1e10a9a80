import { Migration } from '@mikro-orm/migrations';

/**
 * The relay's step notifies `outbox_relayed` only when a process other than the relay's own may listen
 * for it (docs/architecture.md "Event pipeline"). The light gateway in the relay's process (as `npm
 * start` runs them) takes the relay's steps in memory; the notification woke that process's listener
 * connection and its backend once more per step for nothing. The relay looks every second whether any
 * other listener is connected to the database (workers/outbox/outbox.worker.ts) and sets
 * `sorting.relay_notify` to `off` for its step's transaction when none is; unset (any other caller,
 * the relay's first look not done yet, an older relay during a rolling update), the step notifies as
 * before.
 */
/** outbox_advance_horizon (Migration20261202111442_relay_step_committed_run) with the horizon's NOTIFY as given. */
const advanceHorizon = (notify: string) => `
create or replace function outbox_advance_horizon(locked boolean, candidate bigint, holders text[], gap bigint)
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
${notify}
  end if;
  -- The first missing id when the horizon stopped right below it, else 0.
  return query select cur, target, keep_candidate, keep_holders, case when target = run and run < handed then run + 1 else 0 end;
end
$$;
`;

const NOTIFY_WHEN_HEARD = `    -- Only when a process other than the relay's own may listen for it (a light gateway of its own):
    -- the relay's process hands its steps to its own gateway in memory. Set by the step's statement for
    -- its own transaction (workers/outbox/outbox.queries.ts); unset: notify.
    if current_setting('sorting.relay_notify', true) is distinct from 'off' then
      perform pg_notify('outbox_relayed', '');
    end if;`;

const NOTIFY_ALWAYS = `    perform pg_notify('outbox_relayed', '');`;

export class Migration20261202232000_relay_notify_when_heard extends Migration {
  override async up(): Promise<void> {
    this.addSql(advanceHorizon(NOTIFY_WHEN_HEARD));
  }

  override async down(): Promise<void> {
    this.addSql(advanceHorizon(NOTIFY_ALWAYS));
  }
}
