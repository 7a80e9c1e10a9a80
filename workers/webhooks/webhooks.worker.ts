import type { Runtime } from '../../shared/runtime/runtime';
import { failedJobRecorder } from '../../shared/queue/failed-job';
import { startJobWorker } from '../../shared/queue/job-queue';
import type { WebhookJob } from '../../shared/queue/webhook-jobs';
import { deliverWebhook } from './deliver-webhook.use-case';

/**
 * Worker kind `webhooks`: sends the webhook deliveries the outbox relay enqueued on the queue
 * `{webhook-deliveries}` (docs/api.md §8), retried by the queue with exponential backoff
 * (shared/queue/jobs.ts); every attempt is a webhook_delivery row, written with two plain SQL
 * statements (named prepared statements unless DATABASE_PREPARED_STATEMENTS=false).
 */
export async function startWebhooksWorker(runtime: Runtime): Promise<void> {
  const { config, log, orm } = runtime;
  const options = { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, preparedStatements: config.DATABASE_PREPARED_STATEMENTS };
  const worker = await startJobWorker(
    runtime.queueSettings,
    'webhooks',
    // Plain SQL on the connection: no unit of work, so the global EntityManager needs no fork per delivery.
    { 'webhook.deliver': (job, attempt) => deliverWebhook(orm.em, job as WebhookJob, attempt, options) },
    { log, recordFailure: failedJobRecorder(() => orm.em.fork()) },
  );
  log.info({ allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, retryBaseMs: config.WEBHOOK_RETRY_BASE_MS }, 'webhook deliveries started');
  runtime.onClose('webhook deliveries', () => worker.close());
}
