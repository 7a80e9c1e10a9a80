import type { Runtime } from '../../shared/runtime/runtime';
import { failedJobRecorder } from '../../shared/queue/failed-job';
import { startJobWorker } from '../../shared/queue/job-queue';
import type { WebhookJob } from '../../shared/queue/notification-queue';
import { deliverWebhook } from './deliver-webhook.use-case';

/**
 * Worker kind `notifications`: sends the webhook deliveries the outbox relay enqueued (docs/api.md §8),
 * retried by the queue with exponential backoff (shared/queue/jobs.ts); every attempt is a webhook_delivery row.
 */
export async function startNotificationsWorker(runtime: Runtime): Promise<void> {
  const { config, log, orm } = runtime;
  const worker = await startJobWorker(
    runtime.queueSettings,
    'webhooks',
    {
      'webhook.deliver': (job, attempt) =>
        deliverWebhook(orm.em.fork(), job as WebhookJob, attempt, { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS }),
    },
    { log, recordFailure: failedJobRecorder(() => orm.em.fork()) },
  );
  log.info({ allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, retryBaseMs: config.WEBHOOK_RETRY_BASE_MS }, 'webhook deliveries started');
  runtime.onClose('webhook deliveries', () => worker.close());
}
