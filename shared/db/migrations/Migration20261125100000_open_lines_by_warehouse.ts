import { Migration } from '@mikro-orm/migrations';

/**
 * The open lines of a sku in one warehouse, found through one index whatever the planner knows
 * (docs/architecture.md "Plans that cannot go quadratic"). A scan's candidate read used to find the
 * sku's open lines of every warehouse and joined each to its order to filter the warehouse; without
 * statistics (right after a morning upload) the planner chose to walk the client's unshipped orders
 * for every line. Now the line carries its order's warehouse and the partial index leads with it.
 *
 * `order_item.warehouse_id` is its order's `warehouse_id`: the order upload writes it with the line;
 * a line inserted without it takes its order's (a trigger, for every other writer), and an order that
 * moves to another warehouse moves its lines (a trigger). The ORM entity does not map the column.
 */
export class Migration20261125100000_open_lines_by_warehouse extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table order_item add column warehouse_id int;
update order_item oi set warehouse_id = o.warehouse_id from orders o where o.client_id = oi.client_id and o.id = oi.order_id;
alter table order_item alter column warehouse_id set not null;
create index order_item_open_warehouse_sku_idx on order_item (client_id, warehouse_id, sku) where qty > confirmed_qty + pending_qty;
-- Every line of a sku (a refused scan says how many orders hold it and how many are done).
create index order_item_sku_idx on order_item (client_id, sku, warehouse_id);

create function order_item_warehouse() returns trigger language plpgsql as $$
begin
  select o.warehouse_id into new.warehouse_id from orders o where o.client_id = new.client_id and o.id = new.order_id;
  return new;
end $$;
create trigger order_item_warehouse before insert on order_item
  for each row when (new.warehouse_id is null) execute function order_item_warehouse();

create function orders_warehouse_to_lines() returns trigger language plpgsql as $$
begin
  update order_item set warehouse_id = new.warehouse_id where client_id = new.client_id and order_id = new.id;
  return null;
end $$;
create trigger orders_warehouse_to_lines after update of warehouse_id on orders
  for each row when (old.warehouse_id is distinct from new.warehouse_id) execute function orders_warehouse_to_lines();
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop trigger orders_warehouse_to_lines on orders;
drop function orders_warehouse_to_lines();
drop trigger order_item_warehouse on order_item;
drop function order_item_warehouse();
drop index order_item_sku_idx;
drop index order_item_open_warehouse_sku_idx;
alter table order_item drop column warehouse_id;
`);
  }
}
