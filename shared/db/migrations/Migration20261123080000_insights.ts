import { Migration } from '@mikro-orm/migrations';

/**
 * Insights (docs/architecture.md "Statistics"): a warehouse's optional IANA time zone, and the
 * roll-ups the statistics worker keeps from the outbox events.
 * - stats_counted_event: every event a roll-up has counted; inserted in the same transaction as the
 *   increments, so a replayed event changes nothing.
 * - stats_hour / stats_day: additive counters per scope (0 client, 1 warehouse, 2 wall), dimension
 *   (0 total, 1 user, 2 sku, 3 input method, 4 slot crc) and bucket (the local hour's first instant;
 *   the local date). The key leads with the bucket after the scope and dimension, so a range of one
 *   scope and dimension is one index range.
 */
/** stats_hour and stats_day are the same table but for the bucket's type. */
const statsTable = (name: string, bucket: 'timestamptz' | 'date') => `create table ${name} (
  client_id int not null,
  scope smallint not null check (scope between 0 and 2),
  scope_id int not null,
  dim smallint not null check (dim between 0 and 4),
  dim_key text not null,
  bucket ${bucket} not null,
  scans int not null default 0,
  failed_scans int not null default 0,
  confirmed_items int not null default 0,
  confirmed_units int not null default 0,
  cancelled_items int not null default 0,
  sorted_orders int not null default 0,
  confirm_ms bigint not null default 0,
  position int null,
  primary key (client_id, scope, scope_id, dim, bucket, dim_key)
) with (fillfactor = 80);
`;

export class Migration20261123080000_insights extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table warehouse add column time_zone text null;

create table stats_counted_event (
  event_id uuid primary key,
  counted_at timestamptz not null default now()
);

${statsTable('stats_hour', 'timestamptz')}
${statsTable('stats_day', 'date')}
-- The rebuild reads the events of a time range and replaces the buckets of a time range. Buckets and
-- events arrive roughly in time order, so block-range indexes serve it at almost no write cost.
create index outbox_event_occurred_idx on outbox_event using brin (occurred_at);
create index stats_hour_bucket_idx on stats_hour using brin (bucket);
create index stats_day_bucket_idx on stats_day using brin (bucket);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index if exists outbox_event_occurred_idx;  -- the stats indexes go with their tables
drop table if exists stats_day, stats_hour, stats_counted_event;
alter table warehouse drop column if exists time_zone;
`);
  }
}
