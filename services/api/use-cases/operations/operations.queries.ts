import { query } from '../../../../shared/db/named-sql';

/* What the deployment-wide gauges of /metrics read on each scrape (services/api/http/metrics.ts). */

/** Both through the partial index of unpublished events: the oldest by id, and how many. */
export const outboxBacklog = query<Record<string, never>, { lag: string | null; unpublished: string }>('gauge-outbox-backlog', `
select coalesce(extract(epoch from now() - (select occurred_at from outbox_event where published_at is null order by id limit 1)), 0) as lag,
       (select count(*) from outbox_event where published_at is null) as unpublished`);

/** Webhook attempts that failed within the last :windowSeconds. */
export const recentWebhookFailures = query<{ windowSeconds: number }, { n: string }>('gauge-webhook-failures', `
select count(*) as n from webhook_delivery where status = 'failed' and attempted_at > now() - make_interval(secs => :windowSeconds::int)`);

export const lightControllerCounts = query<Record<string, never>, { online: string; offline: string }>('gauge-light-controllers', `
select count(*) filter (where online) as online, count(*) filter (where not online) as offline from light_controller`);

/** Along the relay_seq index: each consumer's first relayed event after its position. */
export const consumerLags = query<Record<string, never>, { name: string; lag: string | null }>('gauge-consumer-lags', `
select c.name, extract(epoch from now() - (select occurred_at from outbox_event o where o.relay_seq > c.position order by o.relay_seq limit 1)) as lag
  from outbox_consumer c order by c.name`);
