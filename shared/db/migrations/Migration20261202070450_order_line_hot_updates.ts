import { Migration } from '@mikro-orm/migrations';

/**
 * An order line's counts move without touching its indexes (docs/architecture.md "Data"). Every
 * scan and every confirm updates its line's `confirmed_qty` and `pending_qty`; both were in the
 * predicate of the scan candidates' partial indexes (`qty > confirmed_qty + pending_qty`), and PostgreSQL writes an update as HOT (no new index entry) only when no column an
 * index reads changes. So each of those updates wrote a new entry into all five indexes of the table
 * (the key, the line's unique key, the two candidate indexes, the sku index), about 15 of the write's
 * 70-80 shared buffers, and left as many dead entries behind.
 *
 * Now the predicate reads `is_open`, a stored generated column (`qty > confirmed_qty + pending_qty`),
 * which changes only when the line fills up or opens again: a confirm never changes it, a scan only
 * when it takes the line's last unit. Every other count update is HOT when its page has room, which
 * fillfactor 70 leaves (the new version goes on the same page; HOT pruning frees the dead ones when
 * the page is read again, without vacuum).
 *
 * `order_item_scan_candidates_idx` still serves `scan-candidates` (a wall of a warehouse),
 * `order_item_scan_candidates_any_warehouse_idx` `scan-candidates-any-warehouse`; both statements
 * read `l.is_open`.
 */
export class Migration20261202070450_order_line_hot_updates extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table order_item set (fillfactor = 70);
-- Rewrites the table, packed to the fillfactor above.
alter table order_item add column is_open boolean generated always as (qty > confirmed_qty + pending_qty) stored;

drop index order_item_scan_candidates_idx;
drop index order_item_scan_candidates_any_warehouse_idx;
-- scan-candidates: a warehouse's open lines of a sku, best order first.
create index order_item_scan_candidates_idx on order_item (client_id, warehouse_id, sku, priority_rank desc, order_date, order_id)
  where is_open;
-- scan-candidates-any-warehouse: the client's open lines of a sku, best order first (-priority_rank: see
-- Migration20261202040000_scan_candidates_order).
create index order_item_scan_candidates_any_warehouse_idx on order_item (client_id, sku, (-priority_rank), order_date, order_id)
  where is_open;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index order_item_scan_candidates_idx;
drop index order_item_scan_candidates_any_warehouse_idx;
alter table order_item drop column is_open;
alter table order_item reset (fillfactor);
create index order_item_scan_candidates_idx on order_item (client_id, warehouse_id, sku, priority_rank desc, order_date, order_id)
  where qty > confirmed_qty + pending_qty;
create index order_item_scan_candidates_any_warehouse_idx on order_item (client_id, sku, (-priority_rank), order_date, order_id)
  where qty > confirmed_qty + pending_qty;
`);
  }
}
