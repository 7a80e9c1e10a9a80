import { query } from '../../../../shared/db/named-sql';

/* What the deployment-wide gauges of /metrics read on each scrape (services/api/http/metrics.ts). */

/**
 * Both along the primary key above the relay's horizon: the oldest event not relayed yet, and how many.
 * The count is bounded above by the last id as well: with the horizon alone (a value the plan does
 * not know) the planner takes a third of the outbox, a week of a floor's events, to be above it and
 * starts parallel workers for every scrape (80 ms on a million events, where the few above it take 1).
 */
export const outboxBacklog = query<Record<string, never>, { lag: string | null; unpublished: string }>('gauge-outbox-backlog', `
select coalesce(extract(epoch from now() - (select occurred_at from outbox_event where id > (select through from outbox_horizon) order by id limit 1)), 0) as lag,
       (select count(*) from outbox_event
         where id > (select through from outbox_horizon) and id <= (select max(id) from outbox_event)) as unpublished`);

/** Webhook attempts that failed within the last :windowSeconds. */
export const recentWebhookFailures = query<{ windowSeconds: number }, { n: string }>('gauge-webhook-failures', `
select count(*) as n from webhook_delivery where status = 'failed' and attempted_at > now() - make_interval(secs => :windowSeconds::int)`);

export const lightControllerCounts = query<Record<string, never>, { online: string; offline: string }>('gauge-light-controllers', `
select count(*) filter (where online) as online, count(*) filter (where not online) as offline from light_controller`);

/** Along the primary key: each consumer's first relayed event after its position. */
export const consumerLags = query<Record<string, never>, { name: string; lag: string | null }>('gauge-consumer-lags', `
select c.name, extract(epoch from now() - (select occurred_at from outbox_event o where o.id > c.position and o.id <= (select through from outbox_horizon) order by o.id limit 1)) as lag
  from outbox_consumer c order by c.name`);

/** Printers by health (failing: the last attempt to reach it failed), and the Queued print jobs with the oldest one's age. */
export const printerHealth = query<Record<string, never>, { ok: string; failing: string; queued: string; oldest: string | null }>('gauge-printers', `
select (select count(*) from printer where last_error is null) as ok,
       (select count(*) from printer where last_error is not null) as failing,
       (select count(*) from print_job where status = 'Queued') as queued,
       extract(epoch from now() - (select min(created_at) from print_job where status = 'Queued')) as oldest`);
