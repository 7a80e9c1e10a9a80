import { Migration } from '@mikro-orm/migrations';

/**
 * The relay's step in one round trip (docs/architecture.md "Relay order"): the step that moves the
 * horizon also reads the events it passed, for the hubs. At one sorter the relay steps about once per
 * command, and each step was two statements (outbox-advance, then outbox-relayed-between).
 *
 * outbox_relay_step runs outbox_advance_horizon, then reads the events after :after up to the horizon
 * it returned in a query of its own: a volatile function takes a fresh snapshot for each query it runs,
 * and every event below the new horizon was committed before the step read the lock table (a writer
 * releases its locks after its commit is visible), so that snapshot holds every one of them, as the
 * separate statement after the step's commit did. The horizon's row is written before the read, in the
 * same transaction; its commit (and NOTIFY outbox_relayed) follows the read.
 */
export class Migration20261202071800_relay_step_reads extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
-- The relay's step (workers/outbox/outbox.queries.ts, outbox-advance): outbox_advance_horizon, then the
-- events after read_after up to the horizon (at most batch_size, in id order), one row each, each with
-- the step's columns; one row with a null event when there are none (or read_after is null: a relay that
-- has just become the active one reads after its commit). No row on a stand-by (not locked).
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
    -- A query of its own: a snapshot taken after the lock table was read.
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

  override async down(): Promise<void> {
    this.addSql(`drop function if exists outbox_relay_step(boolean, bigint, text[], bigint, int);`);
  }
}
