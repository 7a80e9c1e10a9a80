import type { Orm } from '../../../../shared/db/orm';
import type { QueueInspection } from '../../../../shared/queue/queue-registry';
import { WEBHOOK_FAILURE_WINDOW_S, type OperationalSources } from '../../http/metrics';

/** What the deployment-wide gauges of /metrics read on each scrape: BullMQ's counts and three small queries. */
export function operationalSources(orm: Orm, queues: QueueInspection): OperationalSources {
  const sql = <T>(query: string, params: unknown[] = []) => orm.em.getConnection().execute<T[]>(query, params);
  return {
    queueCounts: () => queues.jobCounts(),
    outbox: async () => {
      // Both through the partial index of unpublished events: the oldest by id, and how many.
      const [row] = await sql<{ lag: string | null; unpublished: string }>(
        `select coalesce(extract(epoch from now() - (select occurred_at from outbox_event where published_at is null order by id limit 1)), 0) as lag,
                (select count(*) from outbox_event where published_at is null) as unpublished`,
      );
      return { lagSeconds: Math.max(0, Number(row?.lag ?? 0)), unpublished: Number(row?.unpublished ?? 0) };
    },
    webhookFailures: async () => {
      const [row] = await sql<{ n: string }>(
        `select count(*) as n from webhook_delivery where status = 'failed' and attempted_at > now() - make_interval(secs => ?)`,
        [WEBHOOK_FAILURE_WINDOW_S],
      );
      return Number(row?.n ?? 0);
    },
    lightControllers: async () => {
      const [row] = await sql<{ online: string; offline: string }>(
        'select count(*) filter (where online) as online, count(*) filter (where not online) as offline from light_controller',
      );
      return { online: Number(row?.online ?? 0), offline: Number(row?.offline ?? 0) };
    },
    consumers: async () => {
      // Along the relay_seq index: each consumer's first relayed event after its position.
      const rows = await sql<{ name: string; lag: string | null }>(
        `select c.name, extract(epoch from now() - (select occurred_at from outbox_event o where o.relay_seq > c.position order by o.relay_seq limit 1)) as lag
           from outbox_consumer c order by c.name`,
      );
      return rows.map((r) => ({ consumer: r.name, lagSeconds: Math.max(0, Number(r.lag ?? 0)) }));
    },
  };
}
