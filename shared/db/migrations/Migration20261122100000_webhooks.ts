import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks (docs/api.md §8): a client's subscriptions and every delivery attempt. Deliveries go with
 * their subscription (on delete cascade); a subscription's history is read newest first.
 */
export class Migration20261122100000_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table webhook_subscription (
  id serial primary key,
  client_id int not null references client (id) on delete cascade,
  url text not null,
  events text[] not null check (cardinality(events) > 0),
  secret text not null,
  is_active boolean not null default true,
  created_at timestamptz not null default now()
);
create index webhook_subscription_client_idx on webhook_subscription (client_id) where is_active;

create table webhook_delivery (
  id bigserial primary key,
  client_id int not null references client (id) on delete cascade,
  subscription_id int not null references webhook_subscription (id) on delete cascade,
  event_id uuid not null,
  event_type text not null,
  attempt int not null,
  status text not null check (status in ('succeeded', 'failed', 'pending')),
  response_status int null,
  error text null,
  duration_ms int null,
  attempted_at timestamptz not null default now(),
  next_attempt_at timestamptz null
);
create index webhook_delivery_subscription_idx on webhook_delivery (subscription_id, attempted_at desc);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists webhook_delivery, webhook_subscription cascade;');
  }
}
