import { Migration } from '@mikro-orm/migrations';

/**
 * Serial numbers per unit (docs/api.md "Serial numbers"): a product may require each unit's serial at
 * its confirm. The item keeps whether its product required one when it was scanned (the confirm
 * decides on the item alone, without reading the product) and the serial confirmed with it. A serial
 * is sorted once per product and client: a partial unique index, so two walls confirming the same
 * serial at once cannot both win (the loser's write fails and its confirm is decided again).
 */
export class Migration20261202040100_serial_numbers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table product add column requires_serial boolean not null default false;
alter table sort_box_item add column requires_serial boolean not null default false, add column serial text;
create unique index sort_box_item_serial_uq on sort_box_item (client_id, product_id, serial) where serial is not null;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index sort_box_item_serial_uq;
alter table sort_box_item drop column serial, drop column requires_serial;
alter table product drop column requires_serial;
`);
  }
}
