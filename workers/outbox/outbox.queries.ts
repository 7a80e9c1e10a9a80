import { query } from '../../shared/db/named-sql';
import type { OutboxEventRow } from '../../shared/events/channels';

/* The relay's statements (workers/outbox/relay.use-case.ts) and the webhook consumer's (consumers.ts). */

/*
 * One statement: take the relay lock and claim committed, unrelayed events in commit order (FOR UPDATE
 * SKIP LOCKED). One relay at a time: two relays claiming disjoint batches could publish a wall's events
 * out of order. A transaction-scoped advisory lock: a relay that dies releases it with its connection.
 * (A CTE that calls a volatile function is evaluated once.)
 */
export const claimOutboxEvents = query<{ batchSize: number }, OutboxEventRow & { id: string }>('outbox-claim', `
with relay_lock as (select pg_try_advisory_xact_lock(hashtext('outbox-relay')) as locked)
select o.id, o.event_id, o.type, o.occurred_at, o.client_id, o.wall_id, o.data
  from outbox_event o, relay_lock
 where relay_lock.locked and o.published_at is null
 order by o.id limit :batchSize::int for update of o skip locked`);

/** After the batch is published and enqueued: published_at is when it went out. One array parameter. */
export const markOutboxRelayed = query<{ ids: string[] }>(
  'outbox-mark-relayed',
  `update outbox_event set published_at = clock_timestamp() where id = any(:ids::bigint[])`,
);

/** The active webhook subscriptions of these clients, in id order. */
export const activeWebhookSubscriptions = query<{ clientIds: number[] }, { id: number; client_id: number; events: string[] }>(
  'webhook-subscriptions-active',
  `select id, client_id, events from webhook_subscription where is_active and client_id = any(:clientIds::int[]) order by id`,
);
