import { Migration } from '@mikro-orm/migrations';

/**
 * License plates (docs/api.md §9): one number per order, made on its first print and the same on
 * every reprint. Numbers come from one sequence, so they are unique across clients as well.
 */
export class Migration20261123040200_license_plates extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create sequence license_plate_number_seq;
create table license_plate (
  client_id int not null,
  order_id int not null,
  plate_number text not null,
  print_count int not null default 0,
  created_at timestamptz not null default now(),
  last_printed_at timestamptz null,
  primary key (client_id, order_id),
  foreign key (client_id, order_id) references orders (client_id, id) on delete cascade
);
create unique index license_plate_number_uq on license_plate (plate_number);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists license_plate; drop sequence if exists license_plate_number_seq;');
  }
}
