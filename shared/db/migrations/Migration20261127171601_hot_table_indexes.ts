import { Migration } from '@mikro-orm/migrations';

/**
 * The indexes of the tables every command writes, cut to those a query someone runs needs
 * (docs/architecture.md "One write per command, fenced"). Each index entry is written with every row a
 * command inserts, and with every update that is not HOT; an index nobody reads is paid for thousands
 * of times a minute and never used.
 *
 * - sorter_session: every scan and confirm moves its session's `last_activity_at` and `expires_at`.
 *   With `expires_at` in an index no such update could be HOT (each wrote a new entry in all five
 *   indexes). The sweeper's "sessions idle past their expiry" (workers/sweeper/sweep.queries.ts,
 *   `sweep-due-sessions`) reads the connected sessions through `sorter_session_wall_user_uq`
 *   (partial: connected only, a few per wall) and sorts them; nothing else reads by expiry. The table's
 *   pages keep room for the new versions (fillfactor), so an activity update stays on its page.
 * - sort_box_item: `(client_id, order_id)` was read by no statement; `(client_id, created_at)` only by the
 *   retention (`retention-sort-box-items`, oldest first), which a BRIN index on `created_at` (rows are
 *   inserted in time order) serves at a fraction of a B-tree's write.
 * - applied_command: read by its key only (`earlier-answer`, the primary key's conflict), and deleted
 *   by time (`retention-applied-commands`): `seq` and `(wall_id, seq)` had no reader; `applied_at` is a
 *   BRIN index (inserted in time order).
 * - idempotency_record: read by its key (`idempotency-record`), deleted by time
 *   (`retention-idempotency-records`): BRIN on `created_at`.
 */
export class Migration20261127171601_hot_table_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
drop index sorter_session_expiry_idx;
alter table sorter_session set (fillfactor = 70);

drop index sort_box_item_order_idx;
drop index sort_box_item_created_idx;
-- retention-sort-box-items: a client's finished items older than the cutoff.
create index sort_box_item_created_brin on sort_box_item using brin (created_at);

drop index applied_command_seq_uq;
drop index applied_command_wall_idx;
drop index applied_command_applied_idx;
-- retention-applied-commands: records older than the cutoff.
create index applied_command_applied_brin on applied_command using brin (applied_at);

drop index idempotency_record_created_idx;
-- retention-idempotency-records: records older than the cutoff.
create index idempotency_record_created_brin on idempotency_record using brin (created_at);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index idempotency_record_created_brin;
create index idempotency_record_created_idx on idempotency_record (created_at);
drop index applied_command_applied_brin;
create unique index applied_command_seq_uq on applied_command (seq);
create index applied_command_wall_idx on applied_command (wall_id, seq);
create index applied_command_applied_idx on applied_command (applied_at);
drop index sort_box_item_created_brin;
create index sort_box_item_created_idx on sort_box_item (client_id, created_at);
create index sort_box_item_order_idx on sort_box_item (client_id, order_id);
alter table sorter_session reset (fillfactor);
create index sorter_session_expiry_idx on sorter_session (expires_at) where status = 'Connected';
`);
  }
}
