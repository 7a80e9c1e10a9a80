import { Migration } from '@mikro-orm/migrations';

/**
 * Marketplace transparency codes (docs/api.md §9): one row per code recorded for a unit of a product
 * (its SKU) in an order. A code is unique per client (the marketplace issues each code once); the
 * count per order and product is checked under a lock on the order row.
 */
export class Migration20261123040000_transparency_codes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table transparency_code (
  id serial primary key,
  client_id int not null,
  order_id int not null,
  product_sku text not null,
  kit_parent_sku text null,
  code text not null,
  created_at timestamptz not null default now(),
  created_by int null references employee (id) on delete set null,
  foreign key (client_id, order_id) references orders (client_id, id) on delete cascade
);
create unique index transparency_code_client_code_uq on transparency_code (client_id, code);
create index transparency_code_order_idx on transparency_code (client_id, order_id, product_sku);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists transparency_code;');
  }
}
