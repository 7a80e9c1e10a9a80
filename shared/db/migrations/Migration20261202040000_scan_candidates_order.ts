import { Migration } from '@mikro-orm/migrations';

/**
 * The scan's candidate read in the order it picks (docs/architecture.md "Plans that cannot go
 * quadratic"): the open lines of a sku, best order first, so that `scan-candidates` reads its index from
 * the front and stops at the fourth line whose order can take the unit, instead of reading every open
 * line of the sku in the warehouse (and each line's order, slot and picklist) to sort them. On a morning
 * upload of a few SKUs over many orders that was every order of the warehouse holding the sku, on every
 * scan that opens a slot.
 *
 * The line carries its order's `priority_rank` and `order_date` (the pick's order: priority first, then
 * the oldest, then the order id), as it carries its `warehouse_id`: the order upload writes them with
 * the line; a line inserted without them takes its order's (the trigger that gave it the warehouse,
 * which now copies all three), and an order whose warehouse, priority or date changes moves them on
 * its lines (a trigger). The ORM entity does not map these columns.
 *
 * `order_item_scan_candidates_idx` serves `scan-candidates` (a wall of a warehouse),
 * `order_item_scan_candidates_any_warehouse_idx` `scan-candidates-any-warehouse`; they replace the
 * indexes of the open lines by warehouse and sku and by sku, which only those statements read.
 */
export class Migration20261202040000_scan_candidates_order extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table order_item add column priority_rank smallint, add column order_date timestamptz;
update order_item oi set priority_rank = o.priority_rank, order_date = o.order_date
  from orders o where o.client_id = oi.client_id and o.id = oi.order_id;
alter table order_item alter column priority_rank set not null, alter column order_date set not null;

-- scan-candidates: a warehouse's open lines of a sku, best order first.
create index order_item_scan_candidates_idx on order_item (client_id, warehouse_id, sku, priority_rank desc, order_date, order_id)
  where qty > confirmed_qty + pending_qty;
-- scan-candidates-any-warehouse: the client's open lines of a sku, best order first. Its order is written
-- -priority_rank so that only that statement (which orders by it) finds it in order: with the column
-- itself, the warehouse's read could walk it too, skipping every other warehouse's lines.
create index order_item_scan_candidates_any_warehouse_idx on order_item (client_id, sku, (-priority_rank), order_date, order_id)
  where qty > confirmed_qty + pending_qty;
drop index order_item_open_warehouse_sku_idx;
drop index order_item_open_sku_idx;

drop trigger order_item_warehouse on order_item;
drop function order_item_warehouse();
create function order_item_from_order() returns trigger language plpgsql as $$
begin
  select o.warehouse_id, o.priority_rank, o.order_date into new.warehouse_id, new.priority_rank, new.order_date
    from orders o where o.client_id = new.client_id and o.id = new.order_id;
  return new;
end $$;
create trigger order_item_from_order before insert on order_item
  for each row when (new.warehouse_id is null or new.priority_rank is null or new.order_date is null)
  execute function order_item_from_order();

drop trigger orders_warehouse_to_lines on orders;
drop function orders_warehouse_to_lines();
create function orders_to_lines() returns trigger language plpgsql as $$
begin
  update order_item set warehouse_id = new.warehouse_id, priority_rank = new.priority_rank, order_date = new.order_date
   where client_id = new.client_id and order_id = new.id;
  return null;
end $$;
create trigger orders_to_lines after update of warehouse_id, priority_rank, order_date on orders
  for each row when (old.warehouse_id is distinct from new.warehouse_id or old.priority_rank is distinct from new.priority_rank
                     or old.order_date is distinct from new.order_date)
  execute function orders_to_lines();
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop trigger orders_to_lines on orders;
drop function orders_to_lines();
create function orders_warehouse_to_lines() returns trigger language plpgsql as $$
begin
  update order_item set warehouse_id = new.warehouse_id where client_id = new.client_id and order_id = new.id;
  return null;
end $$;
create trigger orders_warehouse_to_lines after update of warehouse_id on orders
  for each row when (old.warehouse_id is distinct from new.warehouse_id) execute function orders_warehouse_to_lines();

drop trigger order_item_from_order on order_item;
drop function order_item_from_order();
create function order_item_warehouse() returns trigger language plpgsql as $$
begin
  select o.warehouse_id into new.warehouse_id from orders o where o.client_id = new.client_id and o.id = new.order_id;
  return new;
end $$;
create trigger order_item_warehouse before insert on order_item
  for each row when (new.warehouse_id is null) execute function order_item_warehouse();

create index order_item_open_sku_idx on order_item (client_id, sku) where qty > confirmed_qty + pending_qty;
create index order_item_open_warehouse_sku_idx on order_item (client_id, warehouse_id, sku) where qty > confirmed_qty + pending_qty;
drop index order_item_scan_candidates_any_warehouse_idx;
drop index order_item_scan_candidates_idx;
alter table order_item drop column order_date, drop column priority_rank;
`);
  }
}
