import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox's queue reads, with plans that cannot grow with the table (docs/architecture.md "Event
 * pipeline", "Plans that cannot go quadratic"). outbox_event is a queue: every row is inserted
 * unstamped, stamped once by the relay (an update: the old version stays until a vacuum) and read by
 * every consumer. Left to the planner, the relay's claim and the consumers' reads went wrong in two
 * ways on a busy fresh database (no vacuum yet, or statistics gathered while the outbox was empty):
 * - the claim chose a bitmap scan of the unpublished index, which never marks an entry whose row is
 *   dead: it visited every event stamped since the last vacuum, at each stamp (955 buffers a call
 *   after a minute, for 5 rows);
 * - a prepared statement keeps the generic plan it chose while the table had a few rows: a sequential
 *   scan, read in full at every call as the table grows (a consumer's look for work: 1,000 buffers).
 * These functions hold the reads whose shape matters: with sequential and bitmap scans disabled for
 * their own planning (the SET clauses; nothing else is affected) the only plans left walk an index in
 * order from the position and stop after what they return. A plain index scan also marks the dead
 * entries it passes, so the next claim no longer visits their rows.
 */
export class Migration20261125500000_outbox_bounded_reads extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
-- The relay's claim and stamp (workers/outbox/outbox.queries.ts, outbox-stamp): up to batch_size
-- committed events not relayed yet, in id order, each stamped with the next relay_seq in that order;
-- nothing unless the caller holds the relay lock (locked).
create function outbox_stamp_batch(locked boolean, batch_size int) returns setof outbox_event
language plpgsql volatile
set enable_seqscan = off set enable_bitmapscan = off
as $$
begin
  return query
  with claimed as (
    select o.id from outbox_event o
     where locked and o.published_at is null
     order by o.id limit batch_size for update skip locked
  ),
  numbered as (select c.id, nextval('outbox_relay_seq') as seq from (select id from claimed order by id) c)
  update outbox_event o set relay_seq = n.seq, published_at = clock_timestamp()
    from numbered n where o.id = n.id
  returning o.*;
end
$$;

-- A consumer's next batch (outbox-next-events, outbox-next-range): the first batch_size relayed events
-- after relay_seq after, of the given types (every type when types is null), in relay order.
create function outbox_relayed_after(after bigint, batch_size int, types text[]) returns setof outbox_event
language plpgsql stable
set enable_seqscan = off set enable_bitmapscan = off
as $$
begin
  return query
  select o.* from outbox_event o
   where o.relay_seq > after and (types is null or o.type = any(types))
   order by o.relay_seq limit batch_size;
end
$$;

-- The last relayed event's relay_seq when one follows relay_seq after, else null.
create function outbox_relayed_through(after bigint) returns bigint
language plpgsql stable
set enable_seqscan = off set enable_bitmapscan = off
as $$
begin
  return (select max(o.relay_seq) from outbox_event o where o.relay_seq > after);
end
$$;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop function if exists outbox_relayed_through(bigint);
drop function if exists outbox_relayed_after(bigint, int, text[]);
drop function if exists outbox_stamp_batch(boolean, int);
`);
  }
}
