import type { Runtime } from '../../shared/runtime/runtime';
import { failedJobRecorder } from '../../shared/queue/failed-job';
import { startJobWorker } from '../../shared/queue/job-queue';
import type { WebhookJob } from '../../shared/queue/webhook-jobs';
import { deliverWebhook } from './deliver-webhook.use-case';

/**
 * Worker kind `webhooks`: sends the webhook deliveries the outbox relay enqueued on the queue
 * `{webhook-deliveries}` (docs/api.md §8), retried by the queue with exponential backoff
 * (shared/queue/jobs.ts); every attempt is a webhook_delivery row, written with two named plain SQL
 * statements (runtime.ormSql: prepared unless DATABASE_PREPARED_STATEMENTS=false).
 */
export async function startWebhooksWorker(runtime: Runtime): Promise<void> {
  const { config, log, orm, ormSql } = runtime;
  const options = { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS };
  const worker = await startJobWorker(
    runtime.queueSettings,
    'webhooks',
    // Named plain SQL on the ORM's pool: no unit of work, no EntityManager per delivery.
    { 'webhook.deliver': (job, attempt) => deliverWebhook(ormSql, job as WebhookJob, attempt, options) },
    { log, recordFailure: failedJobRecorder(() => orm.em.fork()) },
  );
  log.info({ allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, retryBaseMs: config.WEBHOOK_RETRY_BASE_MS }, 'webhook deliveries started');
  runtime.onClose('webhook deliveries', () => worker.close());
}
