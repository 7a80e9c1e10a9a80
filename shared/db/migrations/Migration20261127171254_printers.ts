import { Migration } from '@mikro-orm/migrations';

/**
 * Network label printers and their print jobs (docs/api.md §12):
 * - printer: a client's raw-TCP label printer (Zebra-compatible, ZPL on port 9100 by default), with its
 *   health as the print sender last saw it (last success, last error);
 * - wall_printer: the printer a wall names and whether it prints a plate by itself when an order
 *   completes (its own table: the wall row is the sorting workers' and is not widened for this);
 * - print_job: one license plate to print, with the exact ZPL bytes sent, its state and its retries.
 *   `event_id` is the order-complete event an automatic print came from: one job per event.
 *   `writing_attempt` is the attempt that began writing the bytes: a job whose write began and whose
 *   outcome was never recorded is never written again (it may have printed).
 */
export class Migration20261127171254_printers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table printer (
  id serial primary key,
  client_id int not null references client (id) on delete cascade,
  name text not null,
  host text not null,
  port int not null default 9100 check (port between 1 and 65535),
  created_at timestamptz not null default now(),
  last_printed_at timestamptz null,
  last_error text null,
  last_error_at timestamptz null
);
create index printer_client_idx on printer (client_id, id);

create table wall_printer (
  wall_id int primary key references wall (id) on delete cascade,
  client_id int not null references client (id) on delete cascade,
  printer_id int null references printer (id),
  auto_print boolean not null default false
);
create index wall_printer_printer_idx on wall_printer (printer_id) where printer_id is not null;

create table print_job (
  id serial primary key,
  client_id int not null references client (id) on delete cascade,
  printer_id int not null references printer (id) on delete cascade,
  wall_id int null references wall (id) on delete set null,
  order_id int not null,
  crc char(8) null,
  plate_number text not null,
  source text not null check (source in ('request', 'auto')),
  event_id uuid null,
  user_id int null,
  body bytea not null,
  status text not null default 'Queued' check (status in ('Queued', 'Sent', 'Failed')),
  attempts int not null default 0,
  writing_attempt int null,
  last_error text null,
  due_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  sent_at timestamptz null
);
create unique index print_job_event_uq on print_job (event_id) where event_id is not null;
create index print_job_due_idx on print_job (due_at) where status = 'Queued';
create index print_job_printer_idx on print_job (printer_id, created_at);
create index print_job_client_idx on print_job (client_id, id);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists print_job; drop table if exists wall_printer; drop table if exists printer;');
  }
}
