import { Migration } from '@mikro-orm/migrations';

/**
 * License plate documents rendered ahead by the labels worker when a slot completes (docs/api.md §9):
 * one per order and format, replaced on each render. `label_hash` is the digest of the data the
 * document shows; a print answers the document only while the data it reads has the same digest.
 */
export class Migration20261123100000_license_plate_documents extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table license_plate_document (
  client_id int not null,
  order_id int not null,
  format text not null check (format in ('zpl', 'pdf')),
  plate_number text not null,
  label_hash text not null,
  body bytea not null,
  rendered_at timestamptz not null default now(),
  primary key (client_id, order_id, format),
  foreign key (client_id, order_id) references license_plate (client_id, order_id) on delete cascade
);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists license_plate_document;');
  }
}
