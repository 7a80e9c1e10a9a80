import { Migration } from '@mikro-orm/migrations';

/** The actor's tables and the events its writes make on them, whose triggers become row-level here. */
const ROW_LEVEL: [table: string, events: ('insert' | 'update' | 'delete')[]][] = [
  ['sort_box', ['insert', 'update', 'delete']],
  ['sorter_session', ['insert', 'update']],
  ['sort_box_item', ['insert', 'update']],
];

const OUTSIDE = `when (current_setting('application_name') <> 'sorting:wall-actor')`;

/**
 * The triggers that move walls' versions (Migration20261127200500_wall_versions_by_triggers, docs/
 * architecture.md "Changes from outside") are row-level on the rows only the wall's actor writes in the
 * product: slots (insert, update, delete), sessions and items (insert, update). A statement-level
 * trigger with transition tables leaves the actor out by its WHEN clause, but PostgreSQL copies every
 * row a statement writes into the transition tables whatever the clause says, so each of the actor's
 * writes copied its item, its slot and its session for nothing: the backend's CPU per scan+confirm
 * pair 1.20–1.31 ms before, 1.07–1.22 after (`WRITE_SOURCE=sorting_bench_badday npx tsx
 * bench/write-cpu.ts`, three rounds alternated). A row-level trigger's WHEN clause is read before
 * anything is queued or copied: on the actor's path it is that condition, per row.
 *
 * Another writer of these rows (a statement typed by hand; the product has none outside the actor)
 * now calls wall_row_written per row, which records the row's walls for the transaction as before: a
 * wall still moves once, at commit. The events the product writes in bulk keep their statement-level
 * triggers: order lines (uploads update thousands; the actor's update of a line still copies it),
 * orders, picklist memberships, product codes and products, the deletes of items (retention) and of
 * sessions, and every TRUNCATE.
 */
export class Migration20261203070000_actor_tables_row_triggers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
-- A slot's, a session's or an item's walls: its wall_id before and after (an update may move the row).
create function wall_row_written() returns trigger language plpgsql as $$
begin
  perform wall_versions_move_at_commit(array_remove(case tg_op
    when 'INSERT' then array[new.wall_id]
    when 'DELETE' then array[old.wall_id]
    else array[old.wall_id, nullif(new.wall_id, old.wall_id)] end, null));
  return null;
end $$;
`);
    for (const [table, events] of ROW_LEVEL) {
      for (const event of events) {
        this.addSql(`drop trigger ${table}_${event}_moves_walls on ${table};`);
        this.addSql(`create trigger ${table}_${event}_moves_walls after ${event} on ${table} for each row ${OUTSIDE} execute function wall_row_written();`);
      }
    }
  }

  override async down(): Promise<void> {
    for (const [table, events] of ROW_LEVEL) {
      for (const event of events) {
        const tables = { insert: 'new table as new_rows', update: 'old table as old_rows new table as new_rows', delete: 'old table as old_rows' }[event];
        this.addSql(`drop trigger ${table}_${event}_moves_walls on ${table};`);
        this.addSql(`create trigger ${table}_${event}_moves_walls after ${event} on ${table} referencing ${tables}
  for each statement ${OUTSIDE} execute function wall_rows_written();`);
      }
    }
    this.addSql('drop function wall_row_written();');
  }
}
