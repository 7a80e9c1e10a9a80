import { Migration } from '@mikro-orm/migrations';

/**
 * A scan's item row checks the references that protect something (docs/architecture.md "One write per
 * command, fenced"). Each foreign key of a row the command inserts is a lookup of the referenced row
 * that also locks it (FOR KEY SHARE) until the commit: every scan of every wall locked its client's
 * row, its product's and its employee's, which concurrent scans then shared through multixacts.
 *
 * Kept, each for what it does:
 * - `wall_id` (on delete cascade): a deleted wall takes its items (and so does a deleted client, whose
 *   walls go with it);
 * - `sort_box_id` (on delete set null): a slot detached leaves its finished items without a slot;
 * - `order_item_id`: an order upload that removes a line with a scan history is refused
 *   (`admin-order-line-scans` counts them, through the new index below); the key stays the backstop,
 *   and its check on a line's delete reads that index.
 * Dropped: `client_id` (cascade already through the wall), `(client_id, order_id)`, `product_id`,
 * `user_id`, `session_id`: nothing deletes orders, products, employees (deactivated instead) or
 * sessions (ended instead), and the item's values come from the wall actor's own reads of those rows.
 */
export class Migration20261127174054_sort_box_item_references extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table sort_box_item
  drop constraint sort_box_item_client_id_fkey,
  drop constraint sort_box_item_client_id_order_id_fkey,
  drop constraint sort_box_item_product_id_fkey,
  drop constraint sort_box_item_user_id_fkey,
  drop constraint sort_box_item_session_id_fkey;
-- admin-order-line-scans (an order upload removing lines), and the check of sort_box_item_order_item_id_fkey on a line's delete.
create index sort_box_item_line_idx on sort_box_item (order_item_id);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index sort_box_item_line_idx;
alter table sort_box_item
  add constraint sort_box_item_client_id_fkey foreign key (client_id) references client(id) on delete cascade,
  add constraint sort_box_item_client_id_order_id_fkey foreign key (client_id, order_id) references orders(client_id, id),
  add constraint sort_box_item_product_id_fkey foreign key (product_id) references product(id),
  add constraint sort_box_item_user_id_fkey foreign key (user_id) references employee(id),
  add constraint sort_box_item_session_id_fkey foreign key (session_id) references sorter_session(id);
`);
  }
}
