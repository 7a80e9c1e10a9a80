import { Migration } from '@mikro-orm/migrations';

/**
 * The event pipeline with PostgreSQL as its only record of progress (docs/architecture.md "Event pipeline"):
 * - outbox_event.relay_seq: the relay's order (commit order per wall), stamped by the one active relay
 *   from outbox_relay_seq when it publishes an event; consumers read `relay_seq > position`. Rows written
 *   before this release have none (partial index).
 * - outbox_consumer: each consumer's position, updated in the transaction of its effect.
 * - webhook_pending: what is still to be delivered to whom, and when the next attempt is due: retries
 *   and their schedule live here, not in Redis.
 * - maintenance_run: when each periodic task last ran, so one run per interval happens however many
 *   sweepers there are; retention_horizon: how far back each kind of record is still complete.
 * - label_print_format: the formats a client printed lately (labels are rendered ahead only in those).
 * - stats_counted_event is no longer written; a block-range index finds its old rows for the retention.
 */
export class Migration20261125300000_durable_pipeline extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create sequence outbox_relay_seq;
alter table outbox_event add column relay_seq bigint null;
create unique index outbox_event_relay_seq_uq on outbox_event (relay_seq) where relay_seq is not null;

create table outbox_consumer (
  name text primary key,
  position bigint not null default 0,
  updated_at timestamptz not null default now()
);
insert into outbox_consumer (name) values ('audit'), ('stats'), ('labels'), ('webhooks');

create table webhook_pending (
  event_id uuid not null,
  subscription_id int not null references webhook_subscription (id) on delete cascade,
  client_id int not null,
  -- Attempts made so far; due_at is when the next one may start (a claimed one: when its lease ends).
  attempts int not null default 0,
  due_at timestamptz not null default now(),
  primary key (event_id, subscription_id)
);
create index webhook_pending_due_idx on webhook_pending (due_at);

create table maintenance_run (
  name text primary key,
  last_run_at timestamptz not null
);

create table retention_horizon (
  kind text primary key,
  -- Records of this kind older than this may have been deleted.
  deleted_before timestamptz not null
);

create table label_print_format (
  client_id int not null references client (id) on delete cascade,
  format text not null check (format in ('zpl', 'pdf')),
  last_printed_at timestamptz not null,
  primary key (client_id, format)
);

-- No longer written (a consumer's position makes each event counted once); its rows go with the outbox's retention.
create index stats_counted_event_counted_brin on stats_counted_event using brin (counted_at);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index if exists stats_counted_event_counted_brin;
drop table if exists label_print_format, retention_horizon, maintenance_run, webhook_pending, outbox_consumer;
drop index if exists outbox_event_relay_seq_uq;
alter table outbox_event drop column if exists relay_seq;
drop sequence if exists outbox_relay_seq;
`);
  }
}
