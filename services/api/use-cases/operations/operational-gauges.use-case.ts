import { OrmSql } from '../../../../shared/db/orm-sql';
import type { Orm } from '../../../../shared/db/orm';
import type { QueueInspection } from '../../../../shared/queue/queue-registry';
import { WEBHOOK_FAILURE_WINDOW_S, type OperationalSources } from '../../http/metrics';
import { consumerLags, lightControllerCounts, outboxBacklog, printerHealth, recentWebhookFailures } from './operations.queries';

/** What the deployment-wide gauges of /metrics read on each scrape: BullMQ's counts and a few small queries. */
export function operationalSources(orm: Orm, queues: QueueInspection): OperationalSources {
  const db = OrmSql.of(orm.em, false);
  return {
    queueCounts: () => queues.jobCounts(),
    outbox: async () => {
      const [row] = await outboxBacklog(db, {});
      return { lagSeconds: Math.max(0, Number(row?.lag ?? 0)), unpublished: Number(row?.unpublished ?? 0) };
    },
    webhookFailures: async () => {
      const [row] = await recentWebhookFailures(db, { windowSeconds: WEBHOOK_FAILURE_WINDOW_S });
      return Number(row?.n ?? 0);
    },
    lightControllers: async () => {
      const [row] = await lightControllerCounts(db, {});
      return { online: Number(row?.online ?? 0), offline: Number(row?.offline ?? 0) };
    },
    printers: async () => {
      const [row] = await printerHealth(db, {});
      return { ok: Number(row?.ok ?? 0), failing: Number(row?.failing ?? 0), queuedJobs: Number(row?.queued ?? 0), oldestQueuedSeconds: Math.max(0, Number(row?.oldest ?? 0)) };
    },
    consumers: async () => {
      const rows = await consumerLags(db, {});
      return rows.map((r) => ({ consumer: r.name, lagSeconds: Math.max(0, Number(r.lag ?? 0)) }));
    },
  };
}
