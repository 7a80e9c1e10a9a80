import { Migration } from '@mikro-orm/migrations';

/**
 * The light gateway's state (docs/lights.md):
 * - wall_light_mode: a light test or the show-address mode of a wall, until a time (no row: normal),
 *   so a gateway that restarts in the middle of one carries on with it;
 * - light_controller: every slot light controller the gateway has heard of, online or not, with the
 *   serial numbers of the slots it drives (a GIN index finds the controllers of a wall's slots).
 */
export class Migration20261125400100_lights extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table wall_light_mode (
  wall_id int primary key references wall (id) on delete cascade,
  client_id int not null references client (id) on delete cascade,
  mode text not null check (mode in ('test', 'show-address')),
  started_at timestamptz not null,
  until timestamptz not null,
  user_id int null
);
create table light_controller (
  client_id int not null references client (id) on delete cascade,
  controller_id text not null,
  driver text not null check (driver in ('mqtt', 'tcp')),
  online boolean not null,
  serial_numbers text[] not null default '{}',
  address text null,
  last_seen_at timestamptz null,
  changed_at timestamptz not null default now(),
  primary key (client_id, controller_id)
);
create index light_controller_serials_idx on light_controller using gin (serial_numbers);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists light_controller; drop table if exists wall_light_mode;');
  }
}
