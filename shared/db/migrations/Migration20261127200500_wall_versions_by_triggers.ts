import { Migration } from '@mikro-orm/migrations';

/**
 * Every write to a row a wall's actor holds in memory moves the wall's version, whoever makes it
 * (docs/architecture.md "Changes from outside"): an upload, a ship, a statement typed by hand. The
 * actor's own write moves the version itself (its fence), so its connections (application_name
 * `sorting:wall-actor`: WALL_ACTOR_APPLICATION_NAME in shared/db/entities/wall-versions.ts, which lists
 * these tables; a migration imports nothing, test/integration/wall-version-triggers.test.ts ties them) are
 * left out by each trigger's WHEN clause: on the actor's hot path a trigger is a condition that is false,
 * never a call.
 *
 * - Statement-level AFTER triggers with transition tables on each table whose rows the actor holds
 *   (queries/wall-load.queries.ts and the barcode cache): slots, sessions, items (by their wall_id),
 *   orders, order lines and picklist memberships (the walls holding the order in a slot), product
 *   codes and a product's sku (every wall of the client). A 10,000-row upload is one call per
 *   statement, grouped by wall, never a call per row. A deleted item no wall holds (retention of old
 *   confirmed and cancelled items) moves nothing. A TRUNCATE of any of them moves every wall.
 * - The walls are not moved there: they are recorded for the transaction (`wall_version_move`, one row
 *   per transaction) and moved at its commit by a deferred trigger, in id order, each wall once: the
 *   wall rows are the last locks a writer takes (after its order lines, as the actor's fence), held
 *   only for the commit, and two writers never deadlock on them. A wall this transaction already
 *   updated (its version moved by hand, or the actor's fence) is not moved again.
 */
export class Migration20261127200500_wall_versions_by_triggers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table wall_version_move (
  xact xid8 primary key default pg_current_xact_id(),
  walls int[] not null
);

-- The walls to move when the transaction commits (one row per transaction, the walls merged).
create function wall_versions_move_at_commit(moved int[]) returns void language sql as $$
  insert into wall_version_move (walls) select moved where cardinality(moved) > 0
  on conflict (xact) do update set walls = array(select distinct unnest(wall_version_move.walls || excluded.walls))
$$;

create function wall_version_move_commit() returns trigger language plpgsql as $$
declare
  moved int[];
begin
  delete from wall_version_move where xact = pg_current_xact_id() returning walls into moved;
  if moved is not null then
    with locked as (
      select id from wall where id = any(moved) and xmin <> pg_current_xact_id()::xid order by id for update
    )
    update wall w set version = w.version + 1 from locked where w.id = locked.id;
  end if;
  return null;
end $$;
create constraint trigger wall_version_move_commit after insert on wall_version_move
  deferrable initially deferred for each row execute function wall_version_move_commit();

-- The statement's rows (its transition tables: new rows, old rows, or both), as a query's text.
create function wall_statement_rows(op text) returns text language sql immutable as $$
  select case op when 'INSERT' then 'select * from new_rows' when 'DELETE' then 'select * from old_rows'
                 else 'select * from new_rows union all select * from old_rows' end
$$;

-- Slots, sessions and items: their walls. A deleted item only when a wall holds it (pending, or
-- confirmed into the slot that still holds its order): retention's deletes of old items move nothing.
create function wall_rows_written() returns trigger language plpgsql as $$
declare
  moved int[];
  held text := case when tg_table_name = 'sort_box_item' and tg_op = 'DELETE' then
    $q$ where r.status = 'PendingConfirmation'
           or (r.status = 'Confirmed' and exists (select 1 from sort_box sb where sb.id = r.sort_box_id and sb.order_id = r.order_id))$q$
    else '' end;
begin
  execute format('select array_agg(distinct r.wall_id) from (%s) r %s', wall_statement_rows(tg_op), held) into moved;
  perform wall_versions_move_at_commit(moved);
  return null;
end $$;

-- Orders (key \`id\`), order lines and picklist memberships (key \`order_id\`): the walls holding the
-- order in a slot. The key column is the trigger's argument.
create function wall_order_rows_written() returns trigger language plpgsql as $$
declare
  moved int[];
begin
  execute format(
    'select array_agg(distinct sb.wall_id) from (select distinct r.client_id, r.%1$I as order_id from (%2$s) r) r
       join sort_box sb on sb.client_id = r.client_id and sb.order_id = r.order_id',
    tg_argv[0], wall_statement_rows(tg_op)) into moved;
  perform wall_versions_move_at_commit(moved);
  return null;
end $$;

-- Product codes (the barcode cache of every wall of the client).
create function wall_codes_written() returns trigger language plpgsql as $$
declare
  moved int[];
begin
  execute format('select array_agg(w.id) from wall w where w.client_id in (select r.client_id from (%s) r)', wall_statement_rows(tg_op)) into moved;
  perform wall_versions_move_at_commit(moved);
  return null;
end $$;

-- A product's sku (the barcode cache answers it): every wall of the client.
create function wall_product_skus_written() returns trigger language plpgsql as $$
declare
  moved int[];
begin
  select array_agg(w.id) into moved from wall w
   where w.client_id in (select n.client_id from new_rows n join old_rows o on o.id = n.id where o.sku is distinct from n.sku);
  perform wall_versions_move_at_commit(moved);
  return null;
end $$;

-- A TRUNCATE names no rows: every wall moves.
create function wall_table_truncated() returns trigger language plpgsql as $$
begin
  perform wall_versions_move_at_commit(array(select id from wall));
  return null;
end $$;
`);
    const outside = `when (current_setting('application_name') <> 'sorting:wall-actor')`;
    const triggers: [table: string, fn: string, events: ('insert' | 'update' | 'delete')[]][] = [
      ['sort_box', 'wall_rows_written()', ['insert', 'update', 'delete']],
      ['sorter_session', 'wall_rows_written()', ['insert', 'update', 'delete']],
      ['sort_box_item', 'wall_rows_written()', ['insert', 'update', 'delete']],
      ['orders', "wall_order_rows_written('id')", ['insert', 'update', 'delete']],
      ['order_item', "wall_order_rows_written('order_id')", ['insert', 'update', 'delete']],
      ['picklist_order', "wall_order_rows_written('order_id')", ['insert', 'update', 'delete']],
      ['product_code', 'wall_codes_written()', ['insert', 'update', 'delete']],
      ['product', 'wall_product_skus_written()', ['update']],
    ];
    for (const [table, fn, events] of triggers) {
      for (const event of events) {
        // A transition table serves one event: one trigger per event.
        const tables = { insert: 'new table as new_rows', update: 'old table as old_rows new table as new_rows', delete: 'old table as old_rows' }[event];
        this.addSql(`create trigger ${table}_${event}_moves_walls after ${event} on ${table} referencing ${tables}
  for each statement ${outside} execute function ${fn};`);
      }
      this.addSql(`create trigger ${table}_truncate_moves_walls after truncate on ${table} for each statement ${outside} execute function wall_table_truncated();`);
    }
  }

  override async down(): Promise<void> {
    for (const table of ['sort_box', 'sorter_session', 'sort_box_item', 'orders', 'order_item', 'picklist_order', 'product_code']) {
      for (const event of ['insert', 'update', 'delete', 'truncate']) this.addSql(`drop trigger ${table}_${event}_moves_walls on ${table};`);
    }
    this.addSql(`
drop trigger product_update_moves_walls on product;
drop trigger product_truncate_moves_walls on product;
drop function wall_table_truncated();
drop function wall_product_skus_written();
drop function wall_codes_written();
drop function wall_order_rows_written();
drop function wall_rows_written();
drop function wall_statement_rows(text);
drop trigger wall_version_move_commit on wall_version_move;
drop function wall_version_move_commit();
drop function wall_versions_move_at_commit(int[]);
drop table wall_version_move;
`);
  }
}
